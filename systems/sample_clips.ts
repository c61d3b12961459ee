/**
 * The sample clips system: advances every ClipPlayer by the frame's time
 * and samples its clip (and, during a cross-fade, the clip it fades to,
 * blended by the fade weight) into the entity's JointQuat. It runs first in
 * the frame. Fields no clip animates keep the skeleton's rest pose.
 *
 * @module
 */

import type { PlayerState } from "../components/clip_player.ts";
import { stateOf } from "../components/_world.ts";
import { blendPoses, sampleClip, wrapTime } from "../gltf/clip.ts";
import { poseFloats } from "../simd/layout.ts";

/**
 * Advances every clip player by `deltaSeconds` (times its speed) and writes
 * the sampled poses. Throws a `RangeError` for a non-finite delta.
 */
export function sampleClipsSystem(world: object, deltaSeconds = 0): void {
  const state = stateOf(world, "sampleClipsSystem");
  if (!Number.isFinite(deltaSeconds)) {
    throw new RangeError(`sampleClipsSystem: deltaSeconds must be finite, got ${deltaSeconds}`);
  }
  const f32 = state.memory.f32;
  for (const [eid, entry] of state.players) {
    const player = entry as PlayerState;
    const skeleton = state.skeletons.get(eid)!;
    const ptr = state.poses.get(eid)! >> 2;
    const pose = f32.subarray(ptr, ptr + poseFloats(skeleton.jointCount));
    const { current, next } = player;
    current.time += deltaSeconds * current.speed;
    skeleton.copyRestPoseTo(pose);
    sampleClip(current.clip, wrapTime(current.time, current.clip.duration, current.wrap), pose);
    if (!next) continue;
    next.time += deltaSeconds * next.speed;
    player.fade = player.fadeDuration > 0 ? Math.min(1, player.fade + deltaSeconds / player.fadeDuration) : 1;
    if (player.fade >= 1) {
      player.current = next;
      player.next = undefined;
      player.fade = 0;
      skeleton.copyRestPoseTo(pose);
      sampleClip(next.clip, wrapTime(next.time, next.clip.duration, next.wrap), pose);
      continue;
    }
    skeleton.copyRestPoseTo(player.scratch);
    sampleClip(next.clip, wrapTime(next.time, next.clip.duration, next.wrap), player.scratch);
    blendPoses(pose, player.scratch, player.fade, pose, skeleton.jointCount);
  }
}
