/**
 * Real characters through the whole ECS frame on every core build: every
 * shared glTF asset is imported, its skins become assets, each skinned
 * primitive an entity that plays each clip, and the skinned positions and
 * normals equal three.js (GLTFLoader + AnimationMixer + applyBoneTransform)
 * within 1e-4 of the model's bounding-box diagonal.
 */
import "../scalar.ts";
import { assertEquals, assertGreater, assertLess } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import {
  assetUrl,
  boundingDiagonal,
  everyPrimitive,
  listAssets,
  loadThree,
  poseThree,
  readAsset,
  testOnModels,
  threeSkinned,
} from "./_three_gltf.ts";

const TOLERANCE = 1e-4;
const BUILDS: CoreBuild[] = ["relaxed-simd", "simd", "scalar"];

for (const file of listAssets()) {
  testOnModels(
    [file],
    `${file}: the ECS pipeline on every core build skins like three.js`,
    async () => {
      const model = await importGltf(assetUrl(file));
      const three = await loadThree(readAsset(file));
      for (const build of BUILDS) {
        const core = Core.create(build);
        const world = createWorld();
        createAnimation(world, { core });
        const animate = createAnimationPipeline({ renormalize: true });
        const entities: {
          eid: number;
          skin: SkinAsset;
          node: number;
          mesh: number;
          primitive: number;
        }[] = [];
        for (const gltfSkeleton of model.skeletons) {
          const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
          const assets = new Map<object, SkinAsset>();
          for (const p of gltfSkeleton.primitives) {
            let skin = assets.get(p.skin);
            if (!skin) assets.set(p.skin, skin = new SkinAsset(skeleton, p.skin));
            const eid = addEntity(world);
            addCharacter(world, eid, skeleton, skin, { tangents: false });
            entities.push({ eid, skin, node: p.node, mesh: p.mesh, primitive: p.primitive });
          }
        }
        const clipCount = model.skeletons[0].clips.length;
        let worst = 0, worstNormal = 0, compared = 0;
        for (let c = 0; c < clipCount; c++) {
          const { start, duration } = model.skeletons[0].clips[c];
          for (const fraction of [0.13, 0.77]) {
            const time = start + fraction * (duration - start);
            // Each entity plays its own skeleton's clip c from the same time.
            let index = 0;
            for (const gltfSkeleton of model.skeletons) {
              for (let p = 0; p < gltfSkeleton.primitives.length; p++, index++) {
                playClip(world, entities[index].eid, gltfSkeleton.clips[c], {
                  time,
                  wrap: "clamp",
                });
              }
            }
            animate(world, 0);
            poseThree(three, c, time);
            const box = boundingDiagonal(three);
            for (const e of entities) {
              const match = everyPrimitive(three).find((t) =>
                t.node === e.node && t.mesh === e.mesh && t.primitive === e.primitive
              );
              if (!match) {
                throw new Error(
                  `${file}: three.js has no primitive for node ${e.node} mesh ${e.mesh}`,
                );
              }
              const expected = threeSkinned(match);
              const positions = getSkinnedPositions(world, e.eid);
              const normals = getSkinnedNormals(world, e.eid);
              for (let v = 0; v < e.skin.vertexCount; v++) {
                const o = e.skin.outputIndex[v] * 4;
                for (let k = 0; k < 3; k++) {
                  worst = Math.max(
                    worst,
                    Math.abs(positions[o + k] - expected.positions[v * 3 + k]) / box,
                  );
                  if (normals && expected.normals) {
                    worstNormal = Math.max(
                      worstNormal,
                      Math.abs(normals[o + k] - expected.normals[v * 3 + k]),
                    );
                  }
                }
              }
              compared++;
            }
          }
        }
        assertGreater(compared, 0);
        assertLess(worst, TOLERANCE, `${build}: position error ${worst} x bbox`);
        assertLess(worstNormal, TOLERANCE, `${build}: normal error ${worstNormal}`);
        console.log(
          `  ${file} (${build}): ${compared} primitive poses, max error ${
            worst.toExponential(2)
          } x bbox, normals ${worstNormal.toExponential(2)}`,
        );
      }
      assertEquals(model.skeletons.length > 0, true);
    },
  );
}
