/**
 * Errors of the ECS layer. Each names the entity and the component or field
 * at fault; when one is thrown, nothing has been written.
 *
 * @module
 */

/** A component was added, removed or used in a way its lifecycle forbids. */
export class ComponentError extends TypeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The component involved, by name. */
  readonly component: string;

  /** Creates the error; the message is prefixed with entity and component. */
  constructor(entity: number, component: string, message: string) {
    super(`entity ${entity}: ${component}: ${message}`);
    this.name = "ComponentError";
    this.entity = entity;
    this.component = component;
  }
}

/** A non-finite value in an entity's local pose reached a system. */
export class PoseError extends RangeError {
  /** The entity at fault. */
  readonly entity: number;
  /** The joint at fault. */
  readonly joint: number;
  /** The pose field at fault: `tx`, `ty`, `tz`, `qx` … `qw`, `sx` … `sz`. */
  readonly field: string;

  /** Creates the error for `entity`'s `joint` and `field` holding `value`. */
  constructor(entity: number, joint: number, field: string, value: number) {
    super(`entity ${entity}: JointQuat joint ${joint} ${field} is ${value}`);
    this.name = "PoseError";
    this.entity = entity;
    this.joint = joint;
    this.field = field;
  }
}
