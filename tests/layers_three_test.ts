/**
 * Layers on the real characters against three.js' AnimationMixer, within
 * 1e-4 of the model's size (the diagonal of its skinned bounding box), on
 * every build:
 *
 * - weighted blends: Marrow layers with the weights of three.js actions
 *   (threshold 1, three.js' rest-pose fill). three.js accumulates rotations
 *   by successive slerps and Marrow (as ozz-animation) by a normalized
 *   weighted sum; the two agree exactly for two clips at equal weights and
 *   for one clip against the rest pose at 0.5, and for translations and
 *   scales at any weights. Elsewhere they differ by the nlerp-vs-slerp
 *   error: the three-way test compares translations and scales and prints
 *   the rotation difference;
 * - additive layers: `AnimationUtils.makeClipAdditive` plus
 *   `AdditiveAnimationBlendMode`, at weights 1 and 0.5;
 * - masked blend layers: three.js with the masked-out tracks removed from
 *   the action;
 * - masked override layers (`addLayer`'s default): at weight 1, three.js
 *   playing the override clip's masked tracks and the base clip without
 *   the tracks they override; at 0.5, those tracks of the base clip at
 *   weight 0.5 besides (three.js' slerp at 0.5 is Marrow's nlerp);
 * - root motion: the root's motion from three.js' sampled poses, across a
 *   loop wrap and blended.
 */
import { assertGreater, assertLess } from "@std/assert";
import * as THREE from "three";
import { BUILDS } from "./_scene.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addJointMat,
  addJointQuat,
  addSkeleton,
  createAnimation,
  createAnimationPipeline,
  getModelMatrices,
  getPose,
  playClip,
  removeClipPlayer,
  SkeletonAsset,
} from "../mod.ts";
import { type GltfSkeleton, importGltf } from "../gltf/mod.ts";
import { addLayer, setBlendThreshold, setLayerWeight } from "../layers.ts";
import { enableRootMotion, getRootMotion } from "../clips.ts";
import { Core, PoseField, poseIndex } from "../kernels.ts";
import { yawOf } from "../animation/_root_motion.ts";
import {
  assetUrl,
  boundingDiagonal,
  loadThree,
  nodeObjects,
  poseThree,
  readAsset,
  testOnModels,
  type ThreeModel,
} from "./_three_gltf.ts";
import { characterWorld, halfSubtree } from "./_layers.ts";

const TOLERANCE = 1e-4;

interface ThreeAction {
  readonly clip: THREE.AnimationClip;
  readonly weight: number;
  readonly additive?: boolean;
}

/** Poses three.js with `actions` (looping) at `time`, from the rest pose. */
function poseActions(three: ThreeModel, actions: readonly ThreeAction[], time: number): void {
  poseThree(three, null, 0);
  for (const a of actions) {
    const mode = a.additive ? THREE.AdditiveAnimationBlendMode : THREE.NormalAnimationBlendMode;
    const action = three.mixer.clipAction(a.clip, undefined, mode);
    action.reset();
    action.setLoop(THREE.LoopRepeat, Infinity);
    action.setEffectiveWeight(a.weight);
    action.play();
  }
  three.mixer.setTime(time);
  three.gltf.scene.updateMatrixWorld(true);
}

/** Largest difference of the joints' model matrices, three.js posed. */
function matrixError(
  three: ThreeModel,
  character: GltfSkeleton,
  model: Float32Array,
  size: number,
): number {
  const objects = nodeObjects(three);
  let worst = 0;
  for (let j = 0; j < character.nodes.length; j++) {
    const e = objects.get(character.nodes[j])!.matrixWorld.elements;
    // Translations relative to the model's size; the axes relative to their
    // length (a joint's scale: RobotExpressive's are 100).
    const length = [0, 1, 2].map((c) => Math.hypot(e[c * 4], e[c * 4 + 1], e[c * 4 + 2]));
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 4; c++) {
        const d = Math.abs(model[j * 12 + r * 4 + c] - e[c * 4 + r]);
        worst = Math.max(worst, d / (c === 3 ? size : length[c]));
      }
    }
  }
  return worst;
}

/** A clip with only the tracks of the nodes whose joints `keep` says. */
function maskedClip(
  three: ThreeModel,
  clip: THREE.AnimationClip,
  character: GltfSkeleton,
  keep: (joint: number) => boolean,
): THREE.AnimationClip {
  const jointByName = new Map<string, number>();
  for (const [node, object] of nodeObjects(three)) {
    const joint = character.nodes.indexOf(node);
    if (joint >= 0) jointByName.set(object.name, joint).set(object.uuid, joint);
  }
  const tracks = clip.tracks.filter((track: THREE.KeyframeTrack) => {
    const joint = jointByName.get(THREE.PropertyBinding.parseTrackName(track.name).nodeName);
    return joint !== undefined && keep(joint);
  });
  return new THREE.AnimationClip(`${clip.name} masked`, clip.duration, tracks);
}

for (const file of ["Fox.glb", "RobotExpressive.glb", "Soldier.glb", "Xbot.glb"]) {
  testOnModels([file], `${file}: layers blend like three.js actions`, async () => {
    const imported = await importGltf(assetUrl(file));
    const three = await loadThree(readAsset(file));
    poseThree(three, null, 0);
    const size = boundingDiagonal(three);
    const character = imported.skeletons.find((s) => s.clips.length >= 3)!;
    const [c0, c1, c2] = character.clips;
    const t0 = three.gltf.animations[c0.animation], t1 = three.gltf.animations[c1.animation];
    const t2 = three.gltf.animations[c2.animation];
    const time = 0.3 * Math.min(c0.duration, c1.duration, c2.duration);
    const additive = THREE.AnimationUtils.makeClipAdditive(t2.clone());
    const subtree = halfSubtree(character.skeleton.parents);
    for (const build of BUILDS) {
      const { world, skeleton, mask } = characterWorld(build, character, subtree);
      const over = maskedClip(three, t1, character, (j) => mask[j] > 0);
      // The base clip's tracks the override's replace (`under`), and the others (`kept`).
      const names = new Set(over.tracks.map((t: THREE.KeyframeTrack) => t.name));
      const [kept, under] = [false, true].map((overridden) =>
        new THREE.AnimationClip(
          `${t0.name} split`,
          t0.duration,
          t0.tracks.filter((t: THREE.KeyframeTrack) => names.has(t.name) === overridden),
        )
      );
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      addJointMat(world, eid);
      const animate = createAnimationPipeline();
      const at = { time };
      const cases: [string, () => void, ThreeAction[]][] = [
        ["two clips at equal weights", () => {
          // Weights of 1: a property only one clip animates needs no rest-pose fill.
          playClip(world, eid, c0, at);
          addLayer(world, eid, c1, { ...at, mode: "blend" });
        }, [{ clip: t0, weight: 1 }, { clip: t1, weight: 1 }]],
        ["one clip at 0.5 over the rest pose", () => {
          playClip(world, eid, c1, at);
          setLayerWeight(world, eid, 0, 0.5);
          setBlendThreshold(world, eid, 1);
        }, [{ clip: t1, weight: 0.5 }]],
        ["an additive clip at weight 1", () => {
          playClip(world, eid, c0, at);
          addLayer(world, eid, c2, { ...at, mode: "additive" });
        }, [{ clip: t0, weight: 1 }, { clip: additive, weight: 1, additive: true }]],
        ["an additive clip at weight 0.5", () => {
          playClip(world, eid, c0, at);
          addLayer(world, eid, c2, { ...at, mode: "additive", weight: 0.5 });
        }, [{ clip: t0, weight: 1 }, { clip: additive, weight: 0.5, additive: true }]],
        [`a layer masked to the subtree of joint ${subtree}`, () => {
          playClip(world, eid, c0, at);
          addLayer(world, eid, c1, { ...at, mask, mode: "blend" });
        }, [{ clip: t0, weight: 1 }, { clip: over, weight: 1 }]],
        [`an override layer at weight 1 masked to the subtree of joint ${subtree}`, () => {
          playClip(world, eid, c0, at);
          addLayer(world, eid, c1, { ...at, mask });
        }, [{ clip: kept, weight: 1 }, { clip: over, weight: 1 }]],
        [`an override layer at weight 0.5 masked to the subtree of joint ${subtree}`, () => {
          playClip(world, eid, c0, at);
          addLayer(world, eid, c1, { ...at, mask, weight: 0.5 });
        }, [{ clip: kept, weight: 1 }, { clip: under, weight: 0.5 }, { clip: over, weight: 0.5 }]],
      ];
      for (const [name, marrow, actions] of cases) {
        marrow();
        animate(world, 0);
        poseActions(three, actions, time);
        const error = matrixError(three, character, getModelMatrices(world, eid), size);
        assertLess(error, TOLERANCE, `${file} (${build}), ${name}: error ${error}`);
        removeClipPlayer(world, eid);
      }
      // Three clips at 0.5, 0.3, 0.2: translations and scales are the same weighted mean.
      playClip(world, eid, c0, at);
      addLayer(world, eid, c1, { ...at, weight: 0.3, mode: "blend" });
      addLayer(world, eid, c2, { ...at, weight: 0.2, mode: "blend" });
      setLayerWeight(world, eid, 0, 0.5);
      // three.js fills a property's weight up to 1 with the rest pose.
      setBlendThreshold(world, eid, 1);
      animate(world, 0);
      poseActions(three, [
        { clip: t0, weight: 0.5 },
        { clip: t1, weight: 0.3 },
        { clip: t2, weight: 0.2 },
      ], time);
      const pose = getPose(world, eid), objects = nodeObjects(three);
      let linear = 0, rotation = 0;
      for (let j = 0; j < character.nodes.length; j++) {
        const o = objects.get(character.nodes[j])!;
        const f = (field: number) => pose[poseIndex(j, field as PoseField)];
        const t = [o.position.x, o.position.y, o.position.z], s = [o.scale.x, o.scale.y, o.scale.z];
        for (let k = 0; k < 3; k++) {
          linear = Math.max(linear, Math.abs(f(k) - t[k]) / size, Math.abs(f(7 + k) - s[k]));
        }
        const q = [o.quaternion.x, o.quaternion.y, o.quaternion.z, o.quaternion.w];
        const dot = Math.abs(q.reduce((sum, v, k) => sum + v * f(3 + k), 0));
        rotation = Math.max(rotation, 2 * Math.acos(Math.min(1, dot)));
      }
      assertLess(linear, TOLERANCE, `${file} (${build}), three clips: ${linear}`);
      removeClipPlayer(world, eid);
      console.log(
        `  ${file} (${build}): three-way blend rotations differ from three.js' slerp chain by up to ${
          rotation.toExponential(2)
        } rad`,
      );
    }
  });

  testOnModels([file], `${file}: root motion equals three.js' sampled root motion`, async () => {
    const imported = await importGltf(assetUrl(file));
    const three = await loadThree(readAsset(file));
    poseThree(three, null, 0);
    const size = boundingDiagonal(three);
    const character = imported.skeletons.find((s) => s.clips.length >= 2)!;
    const objects = nodeObjects(three);
    // The joint whose translation moves most over the first clip: the hips.
    const clip = character.clips[0], other = character.clips[1];
    let root = 0, most = -1;
    for (const channel of clip.channels) {
      if (channel.path !== "translation") continue;
      let lo = Infinity, hi = -Infinity;
      for (let k = 0; k < channel.values.length; k += 3) {
        lo = Math.min(lo, channel.values[k + 2]), hi = Math.max(hi, channel.values[k + 2]);
      }
      if (hi - lo > most) most = hi - lo, root = channel.joint;
    }
    const object = objects.get(character.nodes[root])!;
    const threeClip = three.gltf.animations[clip.animation];
    const threeOther = three.gltf.animations[other.animation];
    const sample = (actions: ThreeAction[], t: number) => {
      poseActions(three, actions, t);
      const q = object.quaternion;
      return [object.position.x, object.position.z, yawOf(q.y, q.w)];
    };
    const angle = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
    const d = clip.duration;
    const core = Core.create("simd");
    const world = createWorld();
    createAnimation(world, { core });
    const skeleton = new SkeletonAsset(character.skeleton, core);
    const eid = addEntity(world);
    addSkeleton(world, eid, skeleton);
    addJointQuat(world, eid);
    addJointMat(world, eid);
    const animate = createAnimationPipeline();
    const rest = skeleton.restPose;
    // A frame inside the loop, one across its wrap, and one backwards across it.
    const frames: [number, number, number][] = [[0.2 * d, 0.1 * d, 1], [0.95 * d, 0.1 * d, 1], [
      0.03 * d,
      0.1 * d,
      -1,
    ]];
    for (const [start, dt, speed] of frames) {
      playClip(world, eid, clip, { time: start, speed });
      enableRootMotion(world, eid, { joint: root });
      animate(world, dt);
      const motion = getRootMotion(world, eid);
      const end = start + dt * speed;
      const wraps = Math.floor(end / d) - Math.floor(start / d);
      const p0 = sample([{ clip: threeClip, weight: 1 }], start - Math.floor(start / d) * d);
      const p1 = sample([{ clip: threeClip, weight: 1 }], end - Math.floor(end / d) * d);
      const first = sample([{ clip: threeClip, weight: 1 }], 0);
      const last = sample([{ clip: threeClip, weight: 1 }], d - 1e-9);
      const expected = [0, 1, 2].map((k) =>
        k < 2
          ? p1[k] - p0[k] + wraps * (last[k] - first[k])
          : angle(p1[2] - p0[2]) + wraps * angle(last[2] - first[2])
      );
      const got = [motion.dx, motion.dz, motion.dyaw];
      for (let k = 0; k < 2; k++) {
        assertLess(
          Math.abs(got[k] - expected[k]) / size,
          TOLERANCE,
          `${file} frame ${start}: ${got} vs ${expected}`,
        );
      }
      assertLess(
        Math.abs(angle(got[2] - expected[2])),
        TOLERANCE,
        `${file} yaw: ${got[2]} vs ${expected[2]}`,
      );
      // The motion is out of the pose: the root keeps its rest x and z.
      const pose = getPose(world, eid);
      for (const f of [PoseField.TX, PoseField.TZ]) {
        assertLess(Math.abs(pose[poseIndex(root, f)] - rest[poseIndex(root, f)]), 1e-6);
      }
      removeClipPlayer(world, eid);
    }
    // Blended: two clips at equal weights move the root by the mean of their motions.
    const t = 0.1 * Math.min(d, other.duration), dt = 0.2 * Math.min(d, other.duration);
    playClip(world, eid, clip, { time: t });
    addLayer(world, eid, other, { time: t, mode: "blend" });
    enableRootMotion(world, eid, { joint: root });
    animate(world, dt);
    const both = [{ clip: threeClip, weight: 1 }, { clip: threeOther, weight: 1 }];
    const a = sample(both, t), b = sample(both, t + dt);
    const motion = getRootMotion(world, eid);
    assertLess(Math.abs(motion.dx - (b[0] - a[0])) / size, TOLERANCE, `${file} blended dx`);
    assertLess(Math.abs(motion.dz - (b[1] - a[1])) / size, TOLERANCE, `${file} blended dz`);
    assertGreater(size, 0);
  });
}
