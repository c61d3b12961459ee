/**
 * A world's fault log: where the systems put a per-entity problem (a
 * non-finite pose, an overflowing palette, a non-finite clip time) instead
 * of throwing, and the quarantine flags that keep the entity's outputs at
 * their last good values for the frame. Allocates only when a fault
 * happens.
 *
 * @module
 */

import { ComponentError, DualQuaternionError } from "./errors.ts";

/** How a world's systems treat a problem in one entity's data. */
export type FaultMode = "isolate" | "throw";

/**
 * A problem in one entity's data that a system found: the entity was
 * skipped (its outputs keep their last good values), and `error` is what
 * the system throws in the `"throw"` fault mode.
 */
export interface Fault {
  /** The entity at fault. */
  readonly entity: number;
  /** The system that found it, by function name (`"quatToMatSystem"`). */
  readonly system: string;
  /** The component holding the bad value (`"JointQuat"`, `"JointMat"`, `"ClipPlayer"`). */
  readonly component: string;
  /** The field at fault (`"qx"`, `"m03"`, `"time"`, …), as the error names it. */
  readonly field: string;
  /** The typed error the system throws in the `"throw"` mode, naming the entity. */
  readonly error: Error;
  /** System calls that found it since it was recorded (retried every call). */
  readonly count: number;
}

/** A fault as the log keeps it: its error and count move on. */
interface FaultRecord {
  entity: number;
  system: string;
  component: string;
  field: string;
  error: Error;
  count: number;
}

/** Quarantine flags of an entity (`Owned.quarantine`). */
export const enum Quarantine {
  /** Its pose is not finite: quat→mat, transform, IK, inverse bind and the skinning skip it. */
  Pose = 1,
  /** Its ClipPlayer time or speed is not finite: the sample clips system skips it. */
  Clip = 2,
  /**
   * Its palette was put back to its last good values by the last call of
   * the inverse-bind multiply (an entry not finite or beyond ±1e18): the
   * skinning systems skip it until that system's next call.
   */
  Palette = 4,
}

/** @internal A world's faults, its fault mode, and its callback. */
export class FaultLog {
  mode: FaultMode = "isolate";
  onFault: ((fault: Fault) => void) | undefined = undefined;
  /** Frames under way: callbacks wait until the outermost one ends. */
  depth = 0;
  readonly #records: FaultRecord[] = [];
  #unsent: FaultRecord[] = [];

  /** Whether problems are recorded (else thrown). */
  get isolates(): boolean {
    return this.mode === "isolate";
  }

  /**
   * Records `error` for entity `eid` found by `system`, or throws it in
   * the `"throw"` mode. One record per entity and system: a repeat
   * updates it.
   */
  report(eid: number, system: string, component: string, field: string, error: Error): void {
    if (this.mode === "throw") throw error;
    for (const record of this.#records) {
      if (record.entity === eid && record.system === system) {
        record.component = component, record.field = field, record.error = error;
        record.count++;
        return;
      }
    }
    const record = { entity: eid, system, component, field, error, count: 1 };
    this.#records.push(record);
    if (this.onFault) this.#unsent.push(record);
  }

  /**
   * Records `error`, thrown while `system` checked or converted entity
   * `eid`'s data, when it is a per-entity fault (a store field changed by
   * game code, a dual-quaternion palette that is not a rigid motion) and
   * the mode isolates; else throws it.
   */
  isolate(eid: number, system: string, error: unknown): void {
    if (this.mode === "throw") throw error;
    if (error instanceof ComponentError && error.entity === eid) {
      this.report(eid, system, error.component, error.field, error);
    } else if (error instanceof DualQuaternionError && error.entity === eid) {
      this.report(eid, system, "JointMat", `palette[${error.joint}]`, error);
    } else {
      throw error;
    }
  }

  /** Copies of the records, oldest first. */
  list(): Fault[] {
    return this.#records.map((record) => ({ ...record }));
  }

  /** Forgets every record, or entity `eid`'s. */
  clear(eid?: number): void {
    for (let i = this.#records.length - 1; i >= 0; i--) {
      if (eid === undefined || this.#records[i].entity === eid) this.#records.splice(i, 1);
    }
  }

  /**
   * Calls the callback for the records made since the last call, unless a
   * frame is still under way (the pipeline calls it when its frame ends).
   */
  notify(): void {
    if (this.depth > 0 || this.#unsent.length === 0) return;
    const unsent = this.#unsent;
    this.#unsent = [];
    for (const record of unsent) this.onFault?.({ ...record });
  }
}
