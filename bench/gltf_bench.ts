/**
 * Real characters (`tests/fixtures/gltf/`, and Xbot from
 * `../shared/assets/gltf/` when it is there): the whole frame against
 * three.js on the same file in the same run.
 *
 * - Clip sampling has its own group, "sampling" in `sampling_bench.ts`.
 * - "frame, FILE": one instance, its first clip. Baseline: three.js
 *   (`AnimationMixer.update` + `updateMatrixWorld` + `Skeleton.update` +
 *   `applyBoneTransform` on every vertex, positions only). Marrow runs its
 *   whole pipeline, positions only and with normals, on each build.
 */
import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import * as THREE from "three";
import { addCharacter, createAnimation, createAnimationPipeline, playClip } from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { assetUrl, loadThree, readAsset } from "../tests/_three_gltf.ts";
import { missingTestOnlyModels, SHARED_DIR } from "../tests/_assets.ts";

const BUILDS: CoreBuild[] = ["scalar", "simd", "relaxed-simd"];
const DT = 1 / 60;

async function marrowWorld(file: string, build: CoreBuild, count: number, normals: boolean) {
  const model = await importGltf(assetUrl(file));
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const entities: number[] = [];
  for (const gltfSkeleton of model.skeletons) {
    if (gltfSkeleton.primitives.length === 0) continue;
    // One entity per character: all its meshes in one skin, the skeleton animated once.
    const { skeleton, skin } = createCharacterAssets(gltfSkeleton, core);
    const clip = gltfSkeleton.clips.find((c) => c.name === "walk") ?? gltfSkeleton.clips[0];
    for (let i = 0; i < count; i++) {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin, {
        normals: normals && skin.hasNormals,
        tangents: false,
      });
      if (clip) playClip(world, eid, clip, { time: i * 0.1 });
      entities.push(eid);
    }
  }
  return { world, entities, model };
}

// Xbot is licensed for testing only: read from ../shared/assets/gltf/ when it is there.
const hasXbot = !missingTestOnlyModels().includes("Xbot.glb");
if (!hasXbot) {
  console.log(
    `glTF: skipping the Xbot benches: Xbot.glb is licensed for testing only and read from ${
      decodeURIComponent(SHARED_DIR.pathname)
    }, which does not have it`,
  );
}

// The whole frame against three.js.
for (const file of ["CesiumMan.glb", "Fox.glb", ...(hasXbot ? ["Xbot.glb"] : [])]) {
  const group = `frame, ${file}`;
  const three = await loadThree(readAsset(file));
  const clip = three.gltf.animations.find((a: THREE.AnimationClip) => a.name === "walk") ??
    three.gltf.animations[0];
  three.mixer.clipAction(clip).play();
  const vertex = new THREE.Vector3();
  const sources = three.primitives.map(({ object }) => {
    const position = object.geometry.getAttribute("position") as THREE.BufferAttribute;
    return { object, position, out: new Float32Array(position.count * 3) };
  });
  Deno.bench({
    name: "three.js positions only",
    group,
    baseline: true,
    fn: () => {
      three.mixer.update(DT);
      three.gltf.scene.updateMatrixWorld(true);
      for (const { object, position, out } of sources) {
        object.skeleton.update();
        for (let v = 0; v < position.count; v++) {
          vertex.fromBufferAttribute(position, v);
          object.applyBoneTransform(v, vertex);
          vertex.toArray(out, v * 3);
        }
      }
    },
  });
  for (const normals of [false, true]) {
    for (const build of BUILDS) {
      const { world } = await marrowWorld(file, build, 1, normals);
      const pipeline = createAnimationPipeline();
      Deno.bench({
        name: `Marrow ${build}, ${normals ? "with normals" : "positions only"}`,
        group,
        fn: () => pipeline(world, DT),
      });
    }
  }
}
