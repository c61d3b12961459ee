/**
 * The options of `retargetClip` and the error it throws.
 *
 * @module
 */

import type { SkeletonDefinition } from "./definitions.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";

/** A skeleton to retarget from or to: an asset, or its plain definition. */
export type RetargetSkeleton = SkeletonAsset | SkeletonDefinition;

/** A direction or point in a skeleton's model space: x, y, z. */
export type RetargetVector = readonly [number, number, number];

/** A rotation as a unit quaternion: x, y, z, w. */
export type RetargetRotation = readonly [number, number, number, number];

/** How one target joint is driven, overriding the defaults. */
export interface RetargetJointOverride {
  /**
   * `"model"` (the default for a mapped joint): the source joint's rotation
   * from its rest pose, in model space, applied to the target joint's rest
   * pose in model space. `"local"`: the source joint's local rotation as
   * it is (for joints rigged alike). `"rest"` (the only rule for an
   * unmapped joint): the target's rest rotation.
   */
  readonly rotation?: "model" | "local" | "rest";
  /**
   * `"root"` (the default for the hips): the source joint's model-space
   * motion from its rest position, turned to the target's facing and
   * scaled by {@linkcode RetargetOptions.rootScale}. `"rest"` (the
   * default for the other joints; the only rule for an unmapped one): the
   * target's rest translation, so that the target's bones keep their
   * lengths. `"offset"` (the default for a joint whose rest translation is
   * its source joint's, as in the same rig): the target's rest translation
   * plus the source joint's offset from its own rest translation, turned
   * from the source parent's rest frame to the target parent's and scaled
   * by `rootScale`. `"source"`: the source joint's local translation as it
   * is.
   */
  readonly translation?: "root" | "offset" | "rest" | "source";
  /**
   * A rotation applied after the rule, in the joint's own frame (the
   * right-hand factor of its rotation), as three.js `localOffsets` are: to
   * correct a joint whose rest pose differs from the source's.
   */
  readonly offset?: RetargetRotation;
}

/** The facings of the two characters at rest: horizontal directions in model space. */
export interface RetargetFacing {
  /** Where the source character faces; measured from its hips and feet when left out. */
  readonly source?: RetargetVector;
  /** Where the target character faces; measured from its hips and feet when left out. */
  readonly target?: RetargetVector;
}

/** What `retargetClip` retargets from and to, and how. */
export interface RetargetOptions {
  /** The skeleton the clip was made for (its joint indices are this skeleton's). */
  readonly source: RetargetSkeleton;
  /** The skeleton the retargeted clip is for. */
  readonly target: RetargetSkeleton;
  /**
   * Target joint name → source joint name, or `null` to leave that target
   * joint unmapped; it takes precedence over the name rules. Joints not in
   * the table map to the source joint of the same name, else of the same
   * name after the last `:` (`mixamorig:Hips` and `Hips`, or
   * `mixamorig1:Hips`). A name several joints share (a file may name a
   * bone and the mesh hung on it alike) maps them in joint order where
   * source and target have as many of it, all to the one source joint
   * where the source has one, else nothing. Unmapped joints keep their
   * rest pose.
   */
  readonly jointMap?: Readonly<Record<string, string | null>>;
  /**
   * Name of the target's hips, the joint whose translation moves the
   * character (`"root"`). Default: the mapped joint called `Hips`, `Hip`
   * or `Pelvis` after its prefix (any case), else the first mapped joint.
   */
  readonly hips?: string;
  /** Target joint name → how that joint is driven. */
  readonly overrides?: Readonly<Record<string, RetargetJointOverride>>;
  /**
   * Facings at rest, each measured when left out: +y is up; a character's
   * feet point where it faces. The retargeted clip turns the source's
   * motion about +y from the source's facing to the target's, so that the
   * target faces as it does in its own scene. When a facing can be neither
   * measured nor taken from here, the motion is not turned.
   */
  readonly facing?: RetargetFacing;
  /**
   * Scale of root translations. Default: the hips' rest height above the
   * ground (y = 0, or the lowest joint where it is lower) on the target,
   * over the source's.
   */
  readonly rootScale?: number;
  /**
   * Whether to plant the feet: where the source's toes are on the ground
   * (within 1 % of its hips' height of their rest height, fading out by 3
   * %), the target's thigh and knee are turned by two-bone IK, the foot
   * keeping its model-space rotation, so that the target's toes rest at
   * their rest height too. Legs are found at rest: each subtree of the hips
   * reaching half their height below them, whose ankle, knee and thigh are
   * mapped. Default false.
   */
  readonly plantFeet?: boolean;
  /**
   * Most numbers (key times and values) the build may allocate, and most
   * channel samples and joints it may compute (key times × (channels +
   * target joints)); default {@linkcode DEFAULT_RETARGET_MAX_VALUES}.
   * Checked before allocating or computing.
   */
  readonly maxValues?: number;
}

/** Default of {@linkcode RetargetOptions.maxValues}: 2^24 numbers (64 MiB of floats). */
export const DEFAULT_RETARGET_MAX_VALUES: number = 2 ** 24;

/**
 * A clip that cannot be retargeted as asked: `argument` names the option
 * at fault (`"source"`, `"jointMap"`, `"overrides"`, `"clip"`…) and
 * `joint` the joint, when one is.
 */
export class RetargetError extends RangeError {
  /** The argument or option at fault. */
  readonly argument: string;
  /** Name of the joint at fault, or undefined. */
  readonly joint: string | undefined;

  /** Creates the error; the message starts with the argument and joint. */
  constructor(argument: string, message: string, joint?: string) {
    super(`${argument}${joint === undefined ? "" : ` (joint "${joint}")`}: ${message}`);
    this.name = "RetargetError";
    this.argument = argument;
    this.joint = joint;
  }
}
