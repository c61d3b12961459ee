/**
 * A value kept on an object where only its slot's holder can read it: a
 * private class field added to the object from outside its class (a base
 * class whose constructor returns the object). A WeakMap does the same,
 * but V8's young-generation collector keeps a WeakMap's values alive
 * whatever their keys (it treats them as roots), so that every value set
 * for a short-lived object survived a collection and was promoted: a
 * loaded clip's four entries made its file's load spend more time in the
 * collector than in its checks. A slot's value dies with its object, and
 * no proxy or reflection reaches it.
 *
 * @module
 */

/** Reads and writes one private field of objects (see the module). */
interface PrivateSlot<T> {
  /** Gives `target` the value `value` (replacing any it had). */
  set(target: object, value: T): void;
  /** The value of `target`, or undefined when it has none (or is not an object). */
  get(target: unknown): T | undefined;
}

/** A new slot: each has a field of its own, which no other slot reads. */
export function privateSlot<T>(): PrivateSlot<T> {
  class Through {
    constructor(target: object) {
      // Returning an object from a base constructor makes it the derived class's `this`.
      return target;
    }
  }
  class Slot extends Through {
    #value: T;
    constructor(target: object, value: T) {
      super(target);
      this.#value = value;
    }

    static set(target: object, value: T): void {
      if (#value in target) (target as Slot).#value = value;
      else new Slot(target, value);
    }

    static get(target: unknown): T | undefined {
      if (target === null || (typeof target !== "object" && typeof target !== "function")) {
        return undefined;
      }
      return #value in target ? (target as Slot).#value : undefined;
    }
  }
  return { set: Slot.set, get: Slot.get };
}
