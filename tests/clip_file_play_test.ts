/**
 * Loaded clips are first-class: for every test model, on every core build,
 * a world playing the clips loaded from a compact clip file and one playing
 * the clips they were saved from give bit-identical poses, root motion and
 * crossed markers frame after frame, through a cross-fade, masked override
 * layers, additive layers (reference at a clip time), a masked locomotion
 * layer and root motion; the file keeps the clips' markers, which
 * properties they animate, and the root's keys. A file is refused, naming
 * the field, when those sections are bad.
 */
import "../scalar.ts";
import { assert, assertEquals, assertInstanceOf, assertThrows } from "@std/assert";
import { createCylinder } from "../procedural/cylinder.ts";
import { HEADER, xxhash32 } from "../animation/_clip_file_format.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  createClip,
  crossFadeTo,
  getPose,
  playClip,
  SkeletonAsset,
  type SkeletonDefinition,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { addLayer, addLocomotionLayer, setLocomotionParameter } from "../layers.ts";
import {
  clipBytes,
  ClipFileError,
  enableRootMotion,
  getClipMarkers,
  getCrossedMarkers,
  getRootMotion,
  loadCompactClips,
  saveCompactClips,
  setClipMarkers,
} from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { SIMD_BUILDS } from "./_compact.ts";
import { assetUrl, listAssets, testOnModels } from "./_three_gltf.ts";

const BUILDS: CoreBuild[] = ["scalar", ...SIMD_BUILDS];

/** What one entity showed in a frame, floats as bits: pose, root motion, markers crossed. */
function observe(world: object, eid: number): string {
  const pose = getPose(world, eid);
  const motion = getRootMotion(world, eid);
  const hits = getCrossedMarkers(world, eid).map((h) => [h.name, h.time, h.layer, h.clip.name]);
  const bits = new Uint32Array(pose.buffer, pose.byteOffset, pose.length);
  const motionBits = new Uint32Array(Float64Array.of(motion.dx, motion.dz, motion.dyaw).buffer);
  return JSON.stringify([[...bits], [...motionBits], hits]);
}

/** A mask weighing joints unevenly (some 0): the layer's effective mask matters per joint. */
function unevenMask(jointCount: number, seed: number): Float32Array {
  return Float32Array.from({ length: jointCount }, (_, j) => ((j * 7 + seed) % 5) / 4);
}

/**
 * Plays `clips` on one entity: a clip then a cross-fade, a masked override
 * layer, an additive layer referenced at a clip time, a masked locomotion
 * layer, root motion about `rootJoint`.
 */
function stage(world: object, eid: number, clips: readonly Clip[], rootJoint: number, n: number) {
  const at = (i: number) => clips[i % clips.length];
  playClip(world, eid, at(0), { time: at(0).duration * 0.1 });
  enableRootMotion(world, eid, { joint: rootJoint });
  addLayer(world, eid, at(1), { mask: unevenMask(n, 1), weight: 0.7, speed: 1.3 });
  addLayer(world, eid, at(2), {
    mode: "additive",
    reference: at(2).duration * 0.4,
    mask: unevenMask(n, 3),
    weight: 0.6,
  });
  return addLocomotionLayer(world, eid, [{ clip: at(0), at: 0 }, { clip: at(1), at: 2 }], {
    parameter: 0.5,
    mask: unevenMask(n, 2),
    weight: 0.8,
  });
}

/**
 * On each build: `clips` (markers set) saved for `definition` and loaded for
 * a second skeleton on the same core; two entities, one per set, play the
 * same script over many frames and show the same bits. Returns how many
 * markers were crossed and whether root motion was ever non-zero.
 */
function playBoth(
  definition: SkeletonDefinition,
  clips: readonly Clip[],
  label: string,
  rootJoint = 0,
  rootMotionJoints?: readonly number[],
) {
  let markers = 0, moved = false;
  for (const clip of clips) {
    const d = clip.duration;
    setClipMarkers(clip, [{ name: "step", time: d * 0.25 }, { name: "", time: d * 0.7 }]);
  }
  for (const build of BUILDS) {
    const core = Core.create(build);
    using source = new SkeletonAsset(definition, core);
    using target = new SkeletonAsset(definition, core);
    const file = saveCompactClips(source, clips, { rootMotionJoints });
    const loaded = loadCompactClips(target, file);
    loaded.forEach((clip, i) => assertEquals(getClipMarkers(clip), getClipMarkers(clips[i])));
    const world = createWorld();
    createAnimation(world, { core });
    const a = addEntity(world), b = addEntity(world);
    addCharacter(world, a, source);
    addCharacter(world, b, target);
    const n = source.jointCount;
    const locomotion = stage(world, a, clips, rootJoint, n);
    stage(world, b, loaded, rootJoint, n);
    const animate = createAnimationPipeline();
    for (let frame = 0; frame < 90; frame++) {
      if (frame === 30) {
        crossFadeTo(world, a, clips[1 % clips.length], 0.4);
        crossFadeTo(world, b, loaded[1 % loaded.length], 0.4);
      }
      if (frame % 20 === 10) {
        setLocomotionParameter(world, a, locomotion, (frame / 20) % 2.5);
        setLocomotionParameter(world, b, locomotion, (frame / 20) % 2.5);
      }
      animate(world, frame % 7 === 3 ? 0.31 : 0.037);
      assertEquals(observe(world, b), observe(world, a), `${label} on ${build}: frame ${frame}`);
      markers += getCrossedMarkers(world, a).length;
      const motion = getRootMotion(world, a);
      moved ||= motion.dx !== 0 || motion.dz !== 0 || motion.dyaw !== 0;
    }
  }
  return { markers, moved };
}

for (const name of listAssets()) {
  testOnModels(
    [name],
    `clip file: ${name}: loaded clips play as the clips saved (layers, masks, additive, locomotion, root motion, markers)`,
    async () => {
      const model = await importGltf(assetUrl(name));
      for (const [s, character] of model.skeletons.entries()) {
        if (character.clips.length === 0) continue;
        // Root motion about the topmost joint the first clip translates (a character's hips).
        const parents = character.skeleton.parents;
        const translated = new Set(
          character.clips[0].channels.filter((c) => c.path === "translation").map((c) => c.joint),
        );
        const top = [...translated].find((j) => {
          for (let p = parents[j]; p >= 0; p = parents[p]) if (translated.has(p)) return false;
          return true;
        }) ?? 0;
        const { markers } = playBoth(
          character.skeleton,
          character.clips,
          `${name} skeleton ${s}`,
          top,
        );
        assert(markers > 0, `${name}: markers were crossed`);
      }
    },
  );
}

testOnModels(
  ["CesiumMan.glb"],
  "clip file: root motion about a joint named when saving plays as the clip saved; about one under a moving joint, unnamed, a loaded clip has none",
  async () => {
    const model = await importGltf(assetUrl("CesiumMan.glb"));
    const { skeleton, clips } = model.skeletons[0];
    // The joint whose translation moves most over the clip among those under a moving joint.
    const animated = new Set(clips[0].channels.map((c) => c.joint));
    const joint = clips[0].channels
      .filter((c) => c.path === "translation" && animated.has(skeleton.parents[c.joint]))
      .map((c) => ({
        joint: c.joint,
        range: Math.abs(c.values[c.values.length - 3] - c.values[0]),
      }))
      .sort((x, y) => y.range - x.range)[0].joint;
    const { moved } = playBoth(skeleton, clips, "CesiumMan", joint, [joint]);
    assert(moved, "root motion moved");
    using skeletonAsset = new SkeletonAsset(skeleton, Core.create("scalar"));
    const loaded = loadCompactClips(skeletonAsset, saveCompactClips(skeletonAsset, clips));
    const world = createWorld();
    createAnimation(world, { core: skeletonAsset.core });
    const eid = addEntity(world);
    addCharacter(world, eid, skeletonAsset);
    playClip(world, eid, loaded[0]);
    enableRootMotion(world, eid, { joint });
    const animate = createAnimationPipeline();
    for (let frame = 0; frame < 10; frame++) {
      animate(world, 0.1);
      assertEquals(getRootMotion(world, eid), { dx: 0, dz: 0, dyaw: 0 });
    }
  },
);

Deno.test("clip file: bad animated bits, markers and root keys are refused at their bytes, nothing allocated", () => {
  const { skeleton: definition } = createCylinder({ joints: 3 });
  using skeleton = new SkeletonAsset(definition, Core.create("scalar"));
  const clip = createClip({
    name: "walk",
    channels: [{
      joint: 0,
      path: "translation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, 2),
    }, {
      joint: 1,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 1),
      values: Float32Array.of(0, 0, 0, 1, 0, 1, 0, 0),
    }],
  });
  setClipMarkers(clip, [{ name: "hit", time: 0.5 }]);
  const file = saveCompactClips(skeleton, [clip]);
  // The record's last sections: animated (u16, padded), 1 marker (12 + 4 bytes), 1 motion channel
  // (16 + 2 times + 6 values), no morph channel (a count of 0).
  const animatedAt = file.length - (4 + 4 + 16 + 4 + 16 + 32 + 4);
  const markerAt = animatedAt + 8, motionAt = markerAt + 16 + 4;
  const view = new DataView(file.buffer);
  assertEquals(
    view.getUint16(animatedAt, true),
    0b10_0001,
    "joint 0 translation, joint 1 rotation",
  );
  assertEquals(view.getUint32(motionAt - 4, true), 1, "one motion channel: the root's translation");
  const refused = (
    change: (view: DataView) => void,
    field: string,
    at: number,
  ) => {
    const bad = file.slice();
    const v = new DataView(bad.buffer);
    change(v);
    v.setUint32(HEADER.checksum, xxhash32(bad.subarray(HEADER.jointCount)), true);
    const before = clipBytes(skeleton.core);
    const e = assertThrows(() => loadCompactClips(skeleton, bad));
    assertInstanceOf(e, ClipFileError);
    assertEquals([e.field, e.byteOffset], [field, at], e.message);
    assertEquals(clipBytes(skeleton.core), before);
  };
  refused((v) => v.setUint16(animatedAt, 0b10_1001, true), "clips[0].animated[0]", animatedAt);
  refused((v) => v.setUint8(animatedAt + 2, 1), "clips[0].animated.padding", animatedAt + 2);
  refused((v) => v.setUint32(markerAt - 4, 1025, true), "clips[0].markerCount", markerAt - 4);
  refused((v) => v.setFloat64(markerAt, 1.5, true), "clips[0].markers[0].time", markerAt);
  refused((v) => v.setUint8(markerAt + 12, 0xff), "clips[0].markers[0].name", markerAt + 12);
  refused((v) => v.setUint16(animatedAt, 0b10_0000, true), "clips[0].motion[0]", motionAt);
  refused((v) => v.setUint8(motionAt + 2, 2), "clips[0].motion[0]", motionAt + 2);
  refused((v) => v.setUint16(motionAt, 3, true), "clips[0].motion[0]", motionAt);
  refused((v) => v.setUint32(motionAt + 4, 1e6, true), "clips[0].motion[0]", motionAt + 4);
  refused((v) => v.setFloat32(motionAt + 20, NaN, true), "clips[0].motion[0]", motionAt);
  refused((v) => v.setFloat32(motionAt + 24, 1e30, true), "clips[0].motion[0]", motionAt);
  refused((v) => v.setUint32(file.length - 4, 1, true), "clips[0].morphCount", file.length - 4);
  const [loaded] = loadCompactClips(skeleton, file);
  assertEquals(getClipMarkers(loaded), [{ name: "hit", time: 0.5 }]);
});
