/**
 * The IK component: per entity, chains solved in model space by
 * `ikSystem` after the skeleton is transformed: two-bone IK
 * (legs, arms: start, mid and end joints) and aim IK (a head or a gun
 * looking at a point), after ozz-animation's `IKTwoBoneJob` and
 * `IKAimJob`. A two-bone chain bends by default in the plane its bones
 * make in the pose being solved, so that a reachable target is reached
 * whatever the animation did to the joint; a given `midAxis` is ozz's hinge
 * axis. {@linkcode getIKReached} and {@linkcode getIKDistance} say how
 * close the end came. Needs Skeleton and JointMat; removing either (or the
 * entity, or resetting the world) drops the chains.
 *
 * Targets and pole vectors are in the entity's model space. A chain does
 * nothing until it has a target. Chains run in the order they were added,
 * each seeing the pose the chains before it left (aim the spine, then reach
 * with the arm).
 *
 * IK corrects the model matrices (and the local matrices the skeleton was
 * transformed from) for this frame only: the local pose (JointQuat) keeps
 * the animated pose, so IK never accumulates over frames and a weight below
 * 1 blends with the animation, as ozz does. A game that wants the corrected
 * local pose runs `matToQuatSystem` right after `ikSystem` (the
 * palette still holds the corrected local matrices then).
 *
 * @example Foot IK
 * ```ts
 * import { addEntity, createWorld } from "bitecs";
 * import {
 *   addCharacter,
 *   createAnimation,
 *   createAnimationPipeline,
 *   SkeletonAsset,
 *   SkinAsset,
 * } from "@marrow/anim";
 * import { addTwoBoneIK, setIKTarget } from "@marrow/anim/ik";
 * import { createCylinder } from "@marrow/anim/procedural";
 *
 * const world = createWorld();
 * createAnimation(world);
 * const leg = createCylinder({ joints: 4 });
 * using skeleton = new SkeletonAsset(leg.skeleton);
 * using skin = new SkinAsset(skeleton, leg.skin);
 * const eid = addEntity(world);
 * addCharacter(world, eid, skeleton, skin);
 * const foot = addTwoBoneIK(world, eid, { start: 1, mid: 2, end: 3, poleVector: [0, 0, 1] });
 * const animate = createAnimationPipeline();
 * setIKTarget(world, eid, foot, [0.5, 1, 0]); // every frame, e.g. from a ground raycast
 * animate(world, 1 / 60);
 * ```
 * @module
 */

import {
  ChainChecker,
  chainRow,
  encodeChain,
  type IKChain,
  restHingeAxis,
  subtreeLast,
} from "./_ik_chain.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import { addWithData, defineComponent, removeOwn, type StoreOf } from "./_component.ts";
import { objects } from "./_stores.ts";
import type { WorldBase } from "./_world.ts";
import { checkedSkeleton, SKELETON } from "./skeleton.ts";
import { JOINT_MAT } from "./joint_mat.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import { ComponentError } from "./errors.ts";
import { IKField } from "../simd/scalar/internal.ts";

export { IKError, type Vector3 } from "./_ik_chain.ts";
export { IK_REACH_TOLERANCE } from "../simd/scalar/internal.ts";
import type { Vector3 } from "./_ik_chain.ts";
import { describeValue } from "../simd/memory/internal.ts";

/**
 * The IK component: the entity's IK chains (two-bone and aim), solved in
 * model space by the IK system. Needs Skeleton and JointMat. The chains'
 * settings are Marrow's (`addTwoBoneIK`, `setIKTarget`, …).
 */
export interface IKComponent {
  /** Number of chains, for reading. */
  readonly chainCount: Uint8Array;
}

/** The IK's public store, typed: the hot paths read it by name, not through `store`. */
type IKStore = StoreOf<typeof IK>;

/** @internal The IK's definition. */
export const IK = defineComponent({
  name: "IK",
  needs: [SKELETON, JOINT_MAT],
  shape: { chainCount: Uint8Array },
  record: { ik: objects<IKChain[]>() },
  addedBy: "addTwoBoneIK",
  addWith: "addTwoBoneIK or addAimIK",
  has: (state: WorldBase, eid: number): boolean => IK.recordOf(state).ik[eid] !== undefined,
  allocate(state: WorldBase, eid: number, chain: IKChain | undefined): void {
    IK.recordOf(state).ik[eid] = [chain!];
    (state.components.IK as IKStore).chainCount[eid] = 1;
  },
  release(resources, eid): void {
    IK.recordOf(resources).ik[eid] = undefined;
  },
});

/** A joint: its index in the skeleton, or its name. */
export type JointRef = number | string;

/** Settings of a two-bone chain the game may change every frame ({@linkcode updateIKChain}). */
export interface TwoBoneIKSettings {
  /** Where the end joint goes, model space. Default: none (the chain does nothing). */
  readonly target?: Vector3;
  /**
   * Where the mid joint (knee, elbow) points, model space. Default none:
   * the chain's plane turns as little as it can.
   */
  readonly poleVector?: Vector3;
  /**
   * The mid joint's hinge axis in its own space (normalized), as ozz's
   * `mid_axis`: the joint turns about it, exact only when it is
   * perpendicular to both bones in the pose being solved. Default: none,
   * the bend plane of the pose being solved (its normal, recomputed every
   * frame), so that a reachable target is reached whatever the animation
   * did to the joint, which keeps bending the way it bends in that pose;
   * when the limb is straight there, the plane the bones make in the rest
   * pose (or `(0, 0, 1)` when that is straight too). `null` in
   * {@linkcode updateIKChain}: back to that default.
   */
  readonly midAxis?: Vector3 | null;
  /** 0 (no IK) to 1 (full). Default 1. */
  readonly weight?: number;
  /**
   * Beyond this ratio of the chain's length (0 to 1) the target is
   * approached smoothly instead of snapping straight. Default 1 (off).
   */
  readonly soften?: number;
  /** Rotation of the chain's plane around the start-to-target axis, radians. Default 0. */
  readonly twistAngle?: number;
}

/** A two-bone chain: its joints (mid a descendant of start, end of mid) and settings. */
export interface TwoBoneIKChain extends TwoBoneIKSettings {
  /** The first joint (hip, shoulder). */
  readonly start: JointRef;
  /** The joint that bends (knee, elbow). */
  readonly mid: JointRef;
  /** The joint that reaches the target (ankle, wrist). */
  readonly end: JointRef;
}

/** Settings of an aim chain the game may change every frame ({@linkcode updateIKChain}). */
export interface AimIKSettings {
  /** What to aim at, model space. Default: none (the chain does nothing). */
  readonly target?: Vector3;
  /** The joint's axis that aims, in its own space (normalized). Default `(1, 0, 0)`. */
  readonly forward?: Vector3;
  /** The joint's axis turned toward the pole vector, in its own space. Default `(0, 1, 0)`. */
  readonly up?: Vector3;
  /** Where `up` points, model space. Default none: the joint rolls as little as it can. */
  readonly poleVector?: Vector3;
  /** Where the aiming ray starts, in the joint's space (the eyes of a head). Default 0. */
  readonly offset?: Vector3;
  /** 0 (no IK) to 1 (full). Default 1. */
  readonly weight?: number;
  /** Rotation around the aiming axis, radians. Default 0. */
  readonly twistAngle?: number;
}

/** An aim chain: the joint that aims, and its settings. */
export interface AimIKChain extends AimIKSettings {
  /** The joint that turns (head, neck, a gun's hand). */
  readonly joint: JointRef;
}

const NO_POLE: Vector3 = [0, 0, 0];

/**
 * Adds a two-bone IK chain to entity `eid` (and the IK component if it has
 * none); returns the chain's index. Needs Skeleton and JointMat
 * ({@linkcode ComponentError} otherwise); a joint that is not in the
 * skeleton or not a descendant of the one before, or a setting that is
 * not finite, is an `IKError`, and nothing is added.
 */
export function addTwoBoneIK(world: object, eid: number, chain: TwoBoneIKChain): number {
  return addChain(world, eid, "addTwoBoneIK", chain, (check, skeleton) => {
    const start = check.joint("start", chain.start, skeleton);
    const mid = check.joint("mid", chain.mid, skeleton);
    const end = check.joint("end", chain.end, skeleton);
    const parents = skeleton.parentIndices;
    check.ancestry("start", parents, start, mid, "mid");
    check.ancestry("mid", parents, mid, end, "end");
    // The straight limb's bend; a given midAxis replaces it in `settings`.
    const axis = chain.midAxis == null ? restHingeAxis(skeleton, start, mid, end) : NO_POLE;
    return { aim: false, start, mid, end, axis };
  });
}

/**
 * Adds an aim IK chain to entity `eid` (and the IK component if it has
 * none); returns the chain's index. Errors as {@linkcode addTwoBoneIK}.
 */
export function addAimIK(world: object, eid: number, chain: AimIKChain): number {
  return addChain(world, eid, "addAimIK", chain, (check, skeleton) => {
    const joint = check.joint("joint", chain.joint, skeleton);
    return { aim: true, start: joint, mid: joint, end: joint, axis: [1, 0, 0] };
  });
}

/**
 * Sets the target (model space) of entity `eid`'s chain `chain`. A target
 * that is not three finite numbers is an `IKError`, and nothing changes.
 */
export function setIKTarget(world: object, eid: number, chain: number, target: Vector3): void {
  const record = chainOf(world, eid, chain, "setIKTarget");
  const [x, y, z] = record.target = new ChainChecker(eid, chain).vector("target", target);
  record.row[IKField.TARGET] = x;
  record.row[IKField.TARGET + 1] = y;
  record.row[IKField.TARGET + 2] = z;
}

/**
 * Changes settings of entity `eid`'s chain `chain` (those of its kind:
 * {@linkcode TwoBoneIKSettings} or {@linkcode AimIKSettings}); the others
 * stay. All are checked before any is changed: a bad value, or a key that
 * is not a setting of the chain's kind, is an `IKError`.
 */
export function updateIKChain(
  world: object,
  eid: number,
  chain: number,
  changes: TwoBoneIKSettings | AimIKSettings,
): void {
  const record = chainOf(world, eid, chain, "updateIKChain");
  const check = new ChainChecker(eid, chain);
  if (changes === null || typeof changes !== "object") {
    throw check.error("changes", "expected an object");
  }
  Object.assign(record, settings(check, record, changes));
  encodeChain(record);
}

/**
 * Whether entity `eid`'s chain `chain` reached its target in the last IK
 * system run: whether {@linkcode getIKDistance} is within
 * {@linkcode IK_REACH_TOLERANCE} of the chain's length (two-bone: the sum
 * of its bones' lengths; aim: the distance from the aiming ray's origin to
 * the target, so a ratio of 1e-5 is about 1e-5 rad). A measurement, not a
 * precondition: a target out of reach, a weight below 1 or a soften below
 * 1 that leaves the end joint short of the target is not reached. False
 * when the chain did not run (no target, weight 0).
 */
export function getIKReached(world: object, eid: number, chain: number): boolean {
  return chainOf(world, eid, chain, "getIKReached").reached;
}

/**
 * How far from its target entity `eid`'s chain `chain` ended in the last
 * IK system run, model space: for two-bone IK the end joint's distance to
 * the target, for aim IK the target's distance to the corrected aiming
 * ray. Computed in f64 from the corrections applied, before the matrices
 * are rounded to f32. NaN when the chain did not run (no target, weight 0).
 */
export function getIKDistance(world: object, eid: number, chain: number): number {
  return chainOf(world, eid, chain, "getIKDistance").distance;
}

/** Removes entity `eid`'s IK component and all its chains. */
export function removeIK(world: object, eid: number): void {
  removeOwn(world, "removeIK", IK, eid);
}

/** Largest number of chains per entity (the store's counter is a byte). */
const MAX_CHAINS = 255;

function prerequisites(world: object, state: WorldBase, eid: number): SkeletonAsset {
  checkEntity(world, eid, "IK");
  if (!SKELETON.has(state, eid)) {
    throw new ComponentError(eid, "IK", "the entity needs a Skeleton first (addSkeleton)");
  }
  if (!JOINT_MAT.has(state, eid)) {
    throw new ComponentError(eid, "IK", "the entity needs a JointMat first (addJointMat)");
  }
  if ((IK.recordOf(state).ik[eid]?.length ?? 0) >= MAX_CHAINS) {
    throw new ComponentError(eid, "IK", `an entity has at most ${MAX_CHAINS} chains`);
  }
  return checkedSkeleton(state, eid);
}

/** The joints and default axis of a chain being added, checked. */
type ChainJoints = Pick<IKChain, "aim" | "start" | "mid" | "end" | "axis">;

/** Checks and adds a chain; `joints` resolves and checks its joints. */
function addChain(
  world: object,
  eid: number,
  caller: string,
  chain: TwoBoneIKSettings & AimIKSettings,
  joints: (check: ChainChecker, skeleton: SkeletonAsset) => ChainJoints,
): number {
  const state = stateOf(world, caller, eid);
  const skeleton = prerequisites(world, state, eid);
  const check = new ChainChecker(eid, IK.recordOf(state).ik[eid]?.length ?? 0);
  if (chain === null || typeof chain !== "object") throw check.error("chain", "expected an object");
  const { aim, start, mid, end, axis } = joints(check, skeleton);
  const record: IKChain = {
    aim,
    skeleton,
    start,
    mid,
    end,
    last: subtreeLast(skeleton.parentIndices, start),
    target: undefined,
    poleVector: NO_POLE,
    axis,
    up: [0, 1, 0],
    offset: [0, 0, 0],
    weight: 1,
    soften: 1,
    twistAngle: 0,
    givenAxis: false,
    reached: false,
    distance: NaN,
    row: chainRow(),
  };
  Object.assign(record, settings(check, record, chain));
  encodeChain(record);
  const chains = IK.recordOf(state).ik[eid];
  if (chains) {
    chains.push(record);
    (state.components.IK as IKStore).chainCount[eid] = chains.length;
    return chains.length - 1;
  }
  addWithData(world, state, IK, eid, record);
  return 0;
}

function chainOf(world: object, eid: number, chain: number, caller: string): IKChain {
  const state = stateOf(world, caller, eid);
  checkEntity(world, eid, "IK");
  const chains = IK.recordOf(state).ik[eid];
  if (!chains) throw new ComponentError(eid, "IK", "the entity has no IK (addTwoBoneIK, addAimIK)");
  if (!Number.isInteger(chain) || chain < 0 || chain >= chains.length) {
    throw new ComponentError(
      eid,
      "IK",
      `chain ${describeValue(chain)} is not in 0..${chains.length - 1}`,
    );
  }
  return chains[chain];
}

const TWO_BONE_SETTINGS = new Set(
  ["target", "poleVector", "midAxis", "weight", "soften", "twistAngle"],
);
const AIM_SETTINGS = new Set(
  ["target", "forward", "up", "poleVector", "offset", "weight", "twistAngle"],
);

/**
 * The checked settings of `changes` for `record`'s kind; a key that is no
 * setting of that kind (a typo, `soften` on an aim chain) is an `IKError`.
 */
function settings(
  check: ChainChecker,
  record: IKChain,
  changes: TwoBoneIKSettings & AimIKSettings,
): Partial<IKChain> {
  const allowed = record.aim ? AIM_SETTINGS : TWO_BONE_SETTINGS;
  for (const key of Object.keys(changes)) {
    if (!allowed.has(key) && key !== "start" && key !== "mid" && key !== "end" && key !== "joint") {
      throw check.error(key, `not a setting of ${record.aim ? "an aim" : "a two-bone"} chain`);
    }
  }
  const out: { -readonly [K in keyof IKChain]?: IKChain[K] } = {};
  if (changes.target !== undefined) out.target = check.vector("target", changes.target);
  if (changes.poleVector !== undefined) {
    out.poleVector = check.vector("poleVector", changes.poleVector);
  }
  if (changes.weight !== undefined) out.weight = check.scalar("weight", changes.weight);
  if (changes.twistAngle !== undefined) {
    out.twistAngle = check.scalar("twistAngle", changes.twistAngle);
  }
  if (record.aim) {
    if (changes.forward !== undefined) out.axis = check.direction("forward", changes.forward);
    if (changes.up !== undefined) out.up = check.vector("up", changes.up);
    if (changes.offset !== undefined) out.offset = check.vector("offset", changes.offset);
  } else {
    if (changes.midAxis === null) {
      out.axis = restHingeAxis(record.skeleton, record.start, record.mid, record.end);
      out.givenAxis = false;
    } else if (changes.midAxis !== undefined) {
      out.axis = check.direction("midAxis", changes.midAxis);
      out.givenAxis = true;
    }
    if (changes.soften !== undefined) out.soften = check.scalar("soften", changes.soften);
  }
  return out;
}
