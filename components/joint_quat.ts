/**
 * The JointQuat component: an entity's local pose, translation + rotation
 * quaternion + scale per joint, in the SoA×4 layout of `simd/memory/layout.ts`,
 * stored in the core's memory. Needs a Skeleton; starts at its rest pose.
 *
 * Write it through {@linkcode setJointPose} (validated, rotation
 * normalized) or through the view of {@linkcode getPose} (fast, unchecked:
 * the quat→mat system finds a non-finite value, a `PoseError` naming
 * entity, joint and field, before it writes anything: by default the
 * entity is isolated and the error recorded in the world's faults, see
 * `getFaults`). Without a JointQuat, an entity's JointMat holds model
 * matrices that are the game's own (`components/joint_mat.ts`).
 *
 * @module
 */

import { poseFloats } from "../simd/memory/layout.ts";
import { describeValue, writeJointPose } from "../simd/memory/internal.ts";
import { skeletonInternals } from "../animation/internal.ts";
import { stateOf } from "./_machinery.ts";
import {
  addPlain,
  defineComponent,
  missing,
  removeOwn,
  type StoreOf,
  tampered,
} from "./_component.ts";
import type { WorldBase } from "./_world.ts";
import { checkedSkeleton, SKELETON, skeletonOf } from "./skeleton.ts";
import { entityView, ViewKind } from "./_entity_views.ts";

/** The JointQuat component: the entity's local pose (SoA×4) in the core. Needs Skeleton. */
export interface JointQuatComponent {
  /** Byte offset of the pose in the core's memory. */
  readonly byteOffset: Uint32Array;
}

/** The JointQuat's public store, typed: the hot paths read it by name, not through `store`. */
type JointQuatStore = StoreOf<typeof JOINT_QUAT>;

/** @internal The JointQuat's definition. */
export const JOINT_QUAT = defineComponent({
  name: "JointQuat",
  needs: [SKELETON],
  shape: { byteOffset: Uint32Array },
  record: { pose: Uint32Array },
  addedBy: "addJointQuat",
  has: (state: WorldBase, eid: number): boolean => JOINT_QUAT.recordOf(state).pose[eid] !== 0,
  allocate(state: WorldBase, eid: number): void {
    const skeleton = skeletonOf(state, eid)!, memory = state.resources.memory;
    const ptr = memory.alloc(poseFloats(skeleton.jointCount) * 4);
    memory.views().f32.set(skeletonInternals(skeleton).restPose, ptr >> 2);
    JOINT_QUAT.recordOf(state).pose[eid] =
      (state.components.JointQuat as JointQuatStore)
        .byteOffset[eid] =
        ptr;
  },
  release(resources, eid): void {
    const o = JOINT_QUAT.recordOf(resources);
    if (o.pose[eid]) resources.memory.free(o.pose[eid]);
    o.pose[eid] = 0;
    resources.owned.quarantine[eid] = 0;
  },
  check(state: WorldBase, eid: number): void {
    if (JOINT_QUAT.recordOf(state).pose[eid]) checkedPose(state, eid);
  },
});

/** @internal Byte offset of the entity's pose, checked. */
export function checkedPose(state: WorldBase, eid: number): number {
  const ptr = JOINT_QUAT.recordOf(state).pose[eid];
  if (!ptr) throw missing(eid, "JointQuat");
  const stored = (state.components.JointQuat as JointQuatStore).byteOffset[eid];
  if (stored !== ptr) throw tampered(eid, "JointQuat", "byteOffset", stored, ptr);
  return ptr;
}

/**
 * Gives entity `eid` a JointQuat set to its skeleton's rest pose. Needs a
 * Skeleton; throws a {@linkcode ComponentError} otherwise or if present.
 * bitecs' `addComponent(world, eid, JointQuat)` does the same.
 */
export function addJointQuat(world: object, eid: number): void {
  addPlain(world, "addJointQuat", JOINT_QUAT, eid);
}

/**
 * Removes entity `eid`'s JointQuat, and its ClipPlayer, which needs it. A
 * {@linkcode ComponentError} if it has none.
 */
export function removeJointQuat(world: object, eid: number): void {
  removeOwn(world, "removeJointQuat", JOINT_QUAT, eid);
}

/**
 * Entity `eid`'s local pose as a writable SoA×4 view (see `poseIndex`).
 * Calls allocate nothing: while the entity keeps its JointQuat and the
 * core's memory its buffer, every call returns the same view. Valid until
 * the world's core next grows (adding a component, creating an asset)
 * unless `core.viewsSurviveGrowth`, and until the entity's JointQuat is
 * removed; call it again each frame rather than keeping the view.
 */
export function getPose(world: object, eid: number): Float32Array {
  const state = stateOf(world, "getPose", eid);
  const ptr = checkedPose(state, eid);
  const floats = poseFloats(checkedSkeleton(state, eid).jointCount);
  return entityView(state, state.memory, eid, ViewKind.Pose, ptr, floats);
}

/**
 * Sets joint `joint` of entity `eid`'s local pose; the rotation is
 * normalized. Throws a `RangeError` naming entity, joint and field for a
 * non-finite value or a zero rotation, and writes nothing.
 */
export function setJointPose(
  world: object,
  eid: number,
  joint: number,
  translation: ArrayLike<number>,
  rotation: ArrayLike<number>,
  scale: ArrayLike<number> = [1, 1, 1],
): void {
  const state = stateOf(world, "setJointPose", eid);
  const ptr = checkedPose(state, eid);
  const jointCount = checkedSkeleton(state, eid).jointCount;
  if (!Number.isInteger(joint) || joint < 0 || joint >= jointCount) {
    throw new RangeError(
      `entity ${describeValue(eid)}: JointQuat: joint ${describeValue(joint)} is not in 0..${
        jointCount - 1
      }`,
    );
  }
  writeJointPose(
    state.memory.f32,
    ptr >> 2,
    joint,
    translation,
    rotation,
    scale,
    `entity ${describeValue(eid)}: JointQuat`,
    true,
  );
}
