/**
 * The sample clips system: advances every ClipPlayer by the frame's time
 * and samples its clip (and, during a cross-fade, the clip it fades to,
 * blended by the fade weight) into the entity's JointQuat, in one call into
 * the core for all entities. It runs first in the frame. Fields no clip
 * animates keep the skeleton's rest pose.
 *
 * Sampling blends the two baked frames around the clip time; rotations are
 * normalized-lerped along the shorter arc, translations and scales lerped.
 *
 * @module
 */

import type { Playback, PlayerState } from "../components/clip_player.ts";
import { stateOf } from "../components/_world.ts";
import { wrapTime } from "../animation/clip.ts";
import { JOB_WORDS } from "../simd/_abi.ts";

/**
 * Advances every clip player by `deltaSeconds` (times its speed) and writes
 * the sampled poses. Throws a `RangeError` for a non-finite delta.
 */
export function sampleClipsSystem(world: object, deltaSeconds = 0): void {
  const state = stateOf(world, "sampleClipsSystem");
  if (!Number.isFinite(deltaSeconds)) {
    throw new RangeError(`sampleClipsSystem: deltaSeconds must be finite, got ${deltaSeconds}`);
  }
  if (state.players.size === 0) return;
  const table = state.frameJobs("sampleClips");
  table.reserve(state.players.size * 3);
  const { u32, f32 } = state.memory;
  let rows = 0;
  const row = (a: number, b: number, out: number, joints: number, weight: number) => {
    const at = (table.ptr >> 2) + rows++ * JOB_WORDS;
    u32[at] = a, u32[at + 1] = b, u32[at + 2] = out, u32[at + 3] = joints;
    f32[at + 4] = weight;
  };
  const sample = (playback: Playback, out: number, joints: number) => {
    const [a, b, weight] = playback.baked.locate(
      wrapTime(playback.time, playback.clip.duration, playback.wrap),
    );
    row(a, b, out, joints, weight);
  };
  for (const [eid, entry] of state.players) {
    const player = entry as PlayerState;
    const joints = state.skeletons.get(eid)!.jointCount;
    const pose = state.poses.get(eid)!;
    player.current.time += deltaSeconds * player.current.speed;
    const next = player.next;
    if (next) {
      next.time += deltaSeconds * next.speed;
      player.fade = player.fadeDuration > 0
        ? Math.min(1, player.fade + deltaSeconds / player.fadeDuration)
        : 1;
      if (player.fade >= 1) {
        player.current = next;
        player.next = undefined;
        player.fade = 0;
      }
    }
    sample(player.current, pose, joints);
    if (player.next) {
      sample(player.next, player.scratch, joints);
      row(pose, player.scratch, pose, joints, player.fade);
    }
  }
  state.kernels.blendPosesBatch(table.ptr, rows);
}
