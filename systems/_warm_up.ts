/**
 * The play path, compiled before a game's first play. The first
 * `playClip` of a process and the frame after it otherwise pay, inside that
 * frame, what no later play pays: V8 compiling the play, sampling,
 * cross-fade and skinning code on first call, and the core compiling its
 * kernels on first call and running them unoptimized until they tier up
 * (in the README's order, a first play and the world's first frame took
 * 19–78 ms per model, `deno task bench:first-play`, against ordinary
 * frames of 0.02–0.25 ms). So `createAnimationPipeline`, which a game calls
 * while it sets up, plays a small character once on a private world (every
 * kind of skinning, both clip samplers, cross-fades, a replay), long enough
 * for the core's kernels to be optimized, and gives back everything it
 * took.
 *
 * @module
 */

import { addEntity, createWorld, deleteWorld } from "bitecs";
import type { Clip } from "../animation/clip.ts";
import { type ClipInit, createClip } from "../animation/clip_validation.ts";
import { disposeClip } from "../animation/compact_clip.ts";
import { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { SkinAsset } from "../animation/skin_asset.ts";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { Core } from "../simd/memory/core.ts";
import { PoseField, poseFloats, poseIndex } from "../simd/memory/layout.ts";
import { addCharacter } from "../components/character.ts";
import type { SkinStreams } from "../components/skin.ts";
import { crossFadeTo, playClip } from "../components/clip_player.ts";
import { createAnimation, disposeAnimation } from "../components/world.ts";

const JOINTS = 5;
/**
 * Vertices of each warm-up character: the skinning kernels' work per frame,
 * which spends their tier-up budget (see {@linkcode TIER_UP_FRAMES}).
 */
const VERTICES = 1024;
/** Frames of each cross-fade and replay phase. */
const FRAMES = 4;
/**
 * Frames of the first phase, the rest poses skinned. V8 runs a WebAssembly
 * function unoptimized (Liftoff) until it has executed a budget of its code
 * (`--wasm-tiering-budget`), then optimizes it (TurboFan) in the
 * background, each function on its own: 4 frames tiered up only the
 * smallest skinning kernels, and Xbot, Soldier and BrainStem played their
 * first frames on unoptimized skinning. `deno task bench:first-play`, one
 * run each on a loaded machine, excess on the CPU (BrainStem, Soldier,
 * Xbot) before → after: 1.73 → 1.06, 1.18 → 0.81, 1.74 → 1.02 ms; fresh
 * processes over 1 ms 25 → 11 of 27. Before the clips are built: their builds (tens of ms) give the
 * background compilations time to finish (Xbot's largest kernel takes
 * 50–270 ms to optimize on a loaded machine).
 */
const TIER_UP_FRAMES = 60;
const warmed = new WeakSet<Core>();
/** Warm-ups started and played through in this process: the tests' evidence. */
export const warmUps = { count: 0, completed: 0 };

/** A frame function as `createAnimationPipeline` builds it. */
type Frame = (world: object, deltaSeconds: number) => void;

/**
 * Plays a private character through `frame` once per process and core: the
 * world, skeleton, skin and clips are the warm-up's own, all released here.
 */
export function warmPlayPath(core: Core, frame: Frame): void {
  if (warmed.has(core)) return;
  warmUps.count++;
  warmed.add(core);
  // Two clips, one per sampler (a build takes tens of ms; a glTF file's
  // clips play through one of these two kernels).
  const [clip, shared] = warmUpClips();
  const world = createWorld();
  let skeleton: SkeletonAsset | undefined;
  let linear: SkinAsset | undefined, dualQuaternion: SkinAsset | undefined;
  try {
    skeleton = new SkeletonAsset(chain(), core);
    linear = new SkinAsset(skeleton, cylinder());
    dualQuaternion = new SkinAsset(skeleton, cylinder(), { method: "dual-quaternion" });
    createAnimation(world, { core });
    // Every kind of skin a game's character may wear: each skinning kernel.
    const characters: [SkinAsset, SkinStreams][] = [
      [linear, { normals: true, tangents: true }],
      [linear, { normals: true, tangents: false }],
      [linear, { normals: false, tangents: false }],
      [dualQuaternion, { normals: true, tangents: true }],
      [dualQuaternion, { normals: false, tangents: false }],
    ];
    const eids: number[] = [];
    for (const [skin, streams] of characters) {
      const eid = addEntity(world);
      eids.push(eid);
      addCharacter(world, eid, skeleton, skin, streams);
    }
    // The rest poses skinned first: the clips' builds (tens of ms) then give
    // the kernels' optimization in the background time to finish.
    for (let f = 0; f < TIER_UP_FRAMES; f++) frame(world, 1 / 60);
    const clipOf = (i: number, swap: number) => (i + swap) & 1 ? shared : clip;
    eids.forEach((eid, i) => playClip(world, eid, clipOf(i, 0), { time: 0.25 }));
    for (let f = 0; f < FRAMES; f++) frame(world, 1 / 60);
    // Cross-fades both ways between the samplers, then replays.
    eids.forEach((eid, i) => crossFadeTo(world, eid, clipOf(i, 1), 0.2));
    for (let f = 0; f < FRAMES; f++) frame(world, 1 / 60);
    eids.forEach((eid, i) => crossFadeTo(world, eid, clipOf(i, 0), 0.2));
    for (let f = 0; f < FRAMES; f++) frame(world, 1 / 60);
    eids.forEach((eid, i) => playClip(world, eid, clipOf(i, 1)));
    for (let f = 0; f < FRAMES; f++) frame(world, 1 / 60);
    warmUps.completed++;
  } catch {
    // Only an optimisation: a core that refuses the warm-up's assets or clip
    // (a full memory, setClipBudget) still gets a working pipeline.
  } finally {
    disposeAnimation(world);
    deleteWorld(world);
    disposeClip(clip);
    disposeClip(shared);
    linear?.dispose();
    dualQuaternion?.dispose();
    skeleton?.dispose();
  }
}

function chain() {
  const restPose = new Float32Array(poseFloats(JOINTS));
  const inverseBind = new Float32Array(JOINTS * 12);
  for (let j = 0; j < JOINTS; j++) {
    restPose[poseIndex(j, PoseField.TY)] = j === 0 ? 0 : 1;
    restPose[poseIndex(j, PoseField.QW)] = 1;
    restPose[poseIndex(j, PoseField.SX)] = 1;
    restPose[poseIndex(j, PoseField.SY)] = 1;
    restPose[poseIndex(j, PoseField.SZ)] = 1;
    inverseBind.set([1, 0, 0, 0, 0, 1, 0, -j, 0, 0, 1, 0], j * 12);
  }
  return {
    names: Array.from({ length: JOINTS }, (_, j) => `warm${j}`),
    parents: Int16Array.from({ length: JOINTS }, (_, j) => j - 1),
    restPose,
    inverseBind,
  };
}

/**
 * Vertices of 1 to 8 influences (the skinning kernels differ by influence
 * count), with normals and tangents.
 */
function cylinder(): SkinDefinition {
  const vertexCount = VERTICES;
  const positions = new Float32Array(vertexCount * 4);
  const normals = new Float32Array(vertexCount * 4);
  const tangents = new Float32Array(vertexCount * 4);
  const influenceCounts = new Uint8Array(vertexCount);
  const joints: number[] = [], weights: number[] = [];
  for (let v = 0; v < vertexCount; v++) {
    const count = 1 + (v % 8);
    influenceCounts[v] = count;
    positions.set([v & 1 ? 1 : -1, (v / VERTICES) * JOINTS, 0, 1], v * 4);
    normals.set([v & 1 ? 1 : -1, 0, 0, 0], v * 4);
    tangents.set([0, 0, 1, 1], v * 4);
    for (let i = 0; i < count; i++) {
      joints.push((v + i) % JOINTS);
      weights.push((count - i) / (count * (count + 1) / 2));
    }
  }
  return {
    vertexCount,
    positions,
    normals,
    tangents,
    influenceCounts,
    joints: Uint16Array.from(joints),
    weights: Float32Array.from(weights),
  };
}

/**
 * The warm-up's clips: one that the build lays out in per-track keys and
 * synchronous blocks, one on a shared timeline (see {@linkcode sharedClip}).
 */
export function warmUpClips(): [Clip, Clip] {
  return [warmClip(), sharedClip()];
}

/** A clip animating every path of every joint. */
function warmClip(): Clip {
  const times = new Float32Array([0, 0.5, 1]);
  const channels = [];
  for (let joint = 0; joint < JOINTS; joint++) {
    const s = Math.sin(joint / 8), c = Math.cos(joint / 8);
    channels.push(
      { joint, path: "translation", values: [0, 1, 0, s, 1, 0, 0, 1, 0] },
      { joint, path: "rotation", values: [0, 0, 0, 1, 0, 0, s, c, 0, 0, 0, 1] },
      { joint, path: "scale", values: [1, 1, 1, 1, 1 + s / 4, 1, 1, 1, 1] },
    );
  }
  return createClip({
    name: "warm-up",
    channels: channels.map(({ joint, path, values }) => ({
      joint,
      path: path as "translation" | "rotation" | "scale",
      interpolation: "LINEAR",
      times,
      values: new Float32Array(values),
    })),
  });
}

/**
 * A motion capture's form, which the build lays out on one shared timeline
 * (the sampler of most glTF characters' clips): every channel LINEAR and
 * keyed at the same dense times, most of them constant (as a capture's
 * translations and scales), so that the source keys cost more bytes than
 * the shared floats (`sharedPolicy`); the first group's joints turn.
 */
function sharedClip(): Clip {
  const KEYS = 31;
  const times = Float32Array.from({ length: KEYS }, (_, k) => k / (KEYS - 1));
  const channels: ClipInit["channels"][number][] = [];
  for (let joint = 0; joint < JOINTS; joint++) {
    const rotation = new Float32Array(KEYS * 4);
    const translation = new Float32Array(KEYS * 3), scale = new Float32Array(KEYS * 3).fill(1);
    for (let k = 0; k < KEYS; k++) {
      const half = joint < 4 ? (1 - Math.abs(2 * times[k] - 1)) * (0.3 + joint / 25) : 0;
      rotation.set([Math.sin(half), 0, 0, Math.cos(half)], k * 4);
      translation[k * 3 + 1] = joint === 0 ? 0 : 1;
    }
    const paths = [["rotation", rotation], ["translation", translation], ["scale", scale]] as const;
    for (const [path, values] of paths) {
      channels.push({ joint, path, interpolation: "LINEAR", times, values });
    }
  }
  return createClip({ name: "warm-up shared", channels });
}
