/**
 * The sample clips system: advances every ClipPlayer by the frame's time
 * and samples its clip (and, during a cross-fade, the clip it fades to,
 * blended by the fade weight) into the entity's JointQuat, in one call into
 * the core for all entities. It runs first in the frame. Fields no clip
 * animates keep the skeleton's rest pose.
 *
 * Sampling reads the clips' compact form (`animation/compact_clip.ts`)
 * through each playback's cache, four joints at a time: rotations are
 * normalized-lerped along the shorter arc between the keys around the clip
 * time, translations and scales lerped, STEP keys held; a cross-fade blends
 * the two clips' poses by the fade weight in the same core call.
 *
 * @module
 */

import {
  checkedPlayer,
  checkedPose,
  checkedSkeleton,
  selectEntities,
} from "../components/_access.ts";
import { stateOf } from "../components/_lifecycle.ts";
import type { Playback } from "../components/_world.ts";
import { wrapTime } from "../animation/clip.ts";
import { JOB_WORDS } from "../simd/_abi.ts";

/**
 * Throws a `RangeError` unless `deltaSeconds` is a finite number >= 0. A
 * negative frame time is refused rather than read as "play backwards" (a
 * negative speed does that), so that a fade weight can only move from 0
 * to 1.
 */
export function checkFrameDelta(caller: string, deltaSeconds: number): void {
  if (typeof deltaSeconds !== "number" || !Number.isFinite(deltaSeconds) || deltaSeconds < 0) {
    throw new RangeError(
      `${caller}: deltaSeconds: expected a finite number >= 0 (the frame's duration in seconds), got ${deltaSeconds}`,
    );
  }
}

/**
 * Advances every clip player (or those of `entities`; others are skipped)
 * by `deltaSeconds` times its speed, and writes the sampled poses. Throws a
 * `RangeError` for a delta that is not a finite number >= 0 (play
 * backwards with a negative speed), and for a `ClipPlayer.time` or `speed`
 * that game code set to a non-finite value, before anything is written.
 */
export function sampleClipsSystem(
  world: object,
  deltaSeconds: number,
  entities?: ArrayLike<number>,
): void {
  const state = stateOf(world, "sampleClipsSystem");
  checkFrameDelta("sampleClipsSystem", deltaSeconds);
  const owned = state.owned, c = state.components.ClipPlayer;
  const list = selectEntities(
    world,
    state,
    "sampleClipsSystem",
    ["Skeleton", "JointQuat", "ClipPlayer"],
    (eid) => owned.player[eid] !== undefined,
    entities,
  );
  if (list.length === 0) return;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    checkedPlayer(state, eid);
    checkedPose(state, eid);
    checkedSkeleton(state, eid);
    for (const field of ["time", "speed"] as const) {
      if (!Number.isFinite(c[field][eid])) {
        throw new RangeError(`entity ${eid}: ClipPlayer: ${field} is ${c[field][eid]}`);
      }
    }
  }
  const table = state.jobs("sampleClips");
  table.begin(list.length * 2, JOB_WORDS);
  const { u32, f32 } = state.memory;
  let rows = 0;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    const player = owned.player[eid]!;
    const pose = owned.pose[eid];
    c.time[eid] += deltaSeconds * c.speed[eid];
    const next = player.next;
    if (next) {
      next.time += deltaSeconds * next.speed;
      player.fade = player.fadeDuration > 0
        ? Math.min(1, Math.max(0, player.fade + deltaSeconds / player.fadeDuration))
        : 1;
      if (player.fade >= 1) {
        player.current.sampler!.release();
        player.current = next;
        player.next = undefined;
        player.fade = 0;
        c.time[eid] = next.time;
        c.speed[eid] = next.speed;
      }
    }
    const at = (table.ptr >> 2) + rows * JOB_WORDS;
    rows += samplePlayback(u32, f32, at, player.current, c.time[eid], pose);
    if (player.next) {
      const at = (table.ptr >> 2) + rows * JOB_WORDS;
      rows += samplePlayback(u32, f32, at, player.next, player.next.time, player.scratch, {
        into: pose,
        weight: player.fade,
      });
    }
  }
  state.kernels.sampleCompactBatch(table.ptr, rows);
}

/**
 * Writes the job row (at word `at` of the job table) that samples
 * `playback` at playback time `time` into the pose at byte `out`, and, with
 * `blend`, then blends pose `blend.into` toward that sample by
 * `blend.weight` (in the same kernel call). Returns the rows written (1).
 */
export function samplePlayback(
  u32: Uint32Array,
  f32: Float32Array,
  at: number,
  playback: Playback,
  time: number,
  out: number,
  blend?: { readonly into: number; readonly weight: number },
): number {
  const clipTime = wrapTime(time, playback.compact.duration, playback.wrap);
  playback.sampler!.emit(u32, f32, at, clipTime, out, blend?.into ?? 0, blend?.weight ?? 0);
  return 1;
}
