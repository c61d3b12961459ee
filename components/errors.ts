/**
 * Errors of the ECS layer. Each names the entity and the component or field
 * at fault; when one is thrown, nothing has been written.
 *
 * @module
 */

import { describeValue } from "../simd/memory/internal.ts";

/** A component was added, removed or used in a way its lifecycle forbids. */
export class ComponentError extends TypeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The component involved, by name. */
  readonly component: string;
  /** The store field at fault (`"jointCount"`, `"modelByteOffset"`, …), or `""` for none. */
  readonly field: string;

  /** Creates the error; the message is prefixed with entity and component. */
  constructor(entity: number, component: string, message: string, field = "") {
    super(`entity ${describeValue(entity)}: ${component}: ${message}`);
    this.name = "ComponentError";
    // A caller's bad argument (a symbol, an object) is in the message only.
    this.entity = typeof entity === "number" ? entity : NaN;
    this.component = component;
    this.field = field;
  }
}

/**
 * A value that would make skinned output non-finite: a non-finite value in
 * an entity's local pose (JointQuat), or a skinning palette entry (JointMat)
 * that is not finite or beyond ±1e18, which an overflowing pose (a scale of
 * 1e38) produces. Found by the system that would consume it, before it
 * writes anything: in the world's default `"isolate"` fault mode it is
 * recorded in the world's faults (`getFaults`) and the entity skipped; in
 * the `"throw"` mode (`createAnimation`'s `faults` option) it is thrown.
 */
export class PoseError extends RangeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The joint at fault. */
  readonly joint: number;
  /**
   * The field at fault: `tx`, `ty`, `tz`, `qx` … `qw`, `sx` … `sz` for a
   * pose, `m00` … `m23` (row, column) for a palette matrix.
   */
  readonly field: string;
  /** The component holding the value: `"JointQuat"` or `"JointMat"`. */
  readonly component: string;

  /** Creates the error for `entity`'s `joint` and `field` holding `value`. */
  constructor(
    entity: number,
    joint: number,
    field: string,
    value: number,
    component = "JointQuat",
  ) {
    const what = component === "JointQuat" ? "JointQuat" : `${component} palette`;
    super(
      `entity ${entity}: ${what} joint ${joint} ${field} is ${value}${
        Number.isFinite(value) ? " (beyond ±1e18: the pose overflows)" : ""
      }`,
    );
    this.name = "PoseError";
    this.entity = entity;
    this.joint = joint;
    this.field = field;
    this.component = component;
  }
}

/**
 * A joint whose skinning palette matrix is not a rotation times a uniform
 * positive scale (non-uniform scale, shear, a mirror or a zero scale), on
 * an entity whose skin uses dual-quaternion skinning. Raised by the
 * skinning systems before they write anything.
 */
export class DualQuaternionError extends RangeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The joint at fault. */
  readonly joint: number;

  /** Creates the error for `entity`'s `joint`. */
  constructor(entity: number, joint: number) {
    super(
      `entity ${entity}: JointMat palette joint ${joint} is not a rotation times a uniform scale, which dual-quaternion skinning needs`,
    );
    this.name = "DualQuaternionError";
    this.entity = entity;
    this.joint = joint;
  }
}
