/**
 * Root motion: an entity's animation moves it, instead of its root joint
 * moving away from it. With root motion on, the sample clips system takes
 * the root joint's horizontal translation (x, z in the root's parent space)
 * and its yaw (twist about the parent's +y) out of the sampled and blended
 * pose, leaving the rest pose's values, and reports the frame's motion
 * ({@linkcode getRootMotion}) for the game to move the entity by. The
 * motion is that of every clip playing, weighted as the pose blends them,
 * and correct across loop wraps, backwards playback and large steps; the
 * vertical translation and the other rotation axes stay in the pose.
 *
 * @example
 * ```ts ignore
 * enableRootMotion(world, eid, { joint: "Hips" });
 * animate(world, dt);
 * const { dx, dz, dyaw } = getRootMotion(world, eid);
 * ```
 * @module
 */

import { resolveJoint } from "../animation/joint_mask.ts";
import { restRoot } from "../animation/internal.ts";
import { MarkerHits } from "../animation/markers.ts";
import { checkedPlayer } from "./clip_player.ts";
import { checkedSkeleton } from "./skeleton.ts";
import { stateOf } from "./_lifecycle.ts";
import type { PlayerState } from "./_playbacks.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** The root motion of one frame. */
export interface RootMotion {
  /** Translation along the root parent's x axis. */
  readonly dx: number;
  /** Translation along the root parent's z axis. */
  readonly dz: number;
  /** Turn about the root parent's +y axis, radians (counter-clockwise seen from above). */
  readonly dyaw: number;
}

/** Options of {@linkcode enableRootMotion}. */
export interface RootMotionOptions {
  /** The root joint, by index or name. Default 0. */
  readonly joint?: number | string;
}

/** @internal The player's extras, created on first use. */
export function extrasOf(player: PlayerState): NonNullable<PlayerState["extras"]> {
  return player.extras ??= { hits: new MarkerHits() };
}

/**
 * Turns root motion on for entity `eid` (which plays clips: playClip
 * first). Throws a `ComponentError` without a ClipPlayer and a `RangeError`
 * for a joint the skeleton does not have.
 */
export function enableRootMotion(
  world: object,
  eid: number,
  options: RootMotionOptions = {},
): void {
  const state = stateOf(world, "enableRootMotion", eid);
  const player = checkedPlayer(state, eid);
  const skeleton = checkedSkeleton(state, eid);
  const joint = resolveJoint(
    skeleton,
    options?.joint ?? 0,
    `entity ${describeValue(eid)}: enableRootMotion: joint`,
  );
  extrasOf(player).rootMotion = {
    joint,
    rest: restRoot(skeleton.restPose, joint),
    delta: new Float64Array(3),
  };
}

/** Turns root motion off for entity `eid`: the root moves in the pose again. */
export function disableRootMotion(world: object, eid: number): void {
  const state = stateOf(world, "disableRootMotion", eid);
  const player = checkedPlayer(state, eid);
  if (player.extras) player.extras.rootMotion = undefined;
}

/**
 * Entity `eid`'s root motion in the last frame (zero before the first, or
 * with root motion off). Given `out`, writes it there and returns it
 * (nothing allocated), else returns a new object.
 */
export function getRootMotion(world: object, eid: number, out?: RootMotion): RootMotion {
  const state = stateOf(world, "getRootMotion", eid);
  if (out !== undefined && (typeof out !== "object" || out === null)) {
    throw new TypeError(`getRootMotion: out: expected an object, got ${describeValue(out)}`);
  }
  const delta = checkedPlayer(state, eid).extras?.rootMotion?.delta;
  const motion = (out ?? { dx: 0, dz: 0, dyaw: 0 }) as { dx: number; dz: number; dyaw: number };
  motion.dx = delta ? delta[0] : 0;
  motion.dz = delta ? delta[1] : 0;
  motion.dyaw = delta ? delta[2] : 0;
  return motion;
}
