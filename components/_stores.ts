/**
 * Per-entity typed arrays that grow with the highest entity id, for the
 * public component stores and Marrow's private ownership records alike.
 *
 * @module
 */

/** A typed array class whose instances can be grown by copying. */
type TypedArrayClass =
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | Uint8ArrayConstructor
  | Uint16ArrayConstructor
  | Uint32ArrayConstructor;

/** A field holding objects of type `T` (object references cannot live in typed arrays). */
type Objects<T> = "objects" & { readonly of?: T };

/** A field of objects of type `T`, for a store shape. */
export function objects<T>(): Objects<T> {
  return "objects" as Objects<T>;
}

/** Fields of `store` that are typed arrays, and their classes. */
export type StoreShape = Record<string, TypedArrayClass | "objects">;

/** A store: each field a typed array (or an object array) indexed by entity. */
export type Store<S extends StoreShape> = {
  [K in keyof S]: S[K] extends Objects<infer T> ? (T | undefined)[]
    : S[K] extends TypedArrayClass ? InstanceType<S[K]>
    : never;
};

/** Creates a store of `capacity` entities. */
export function createStore<S extends StoreShape>(shape: S, capacity: number): Store<S> {
  const store: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(shape)) {
    store[name] = kind === "objects" ? [] : new kind(capacity);
  }
  return store as Store<S>;
}

/**
 * Replaces the typed arrays of `store` with copies of `capacity` entities.
 * Games must read fields through the component object, not keep them.
 */
export function growStore(store: Record<string, unknown>, capacity: number): void {
  for (const [name, array] of Object.entries(store)) {
    if (Array.isArray(array)) {
      // Filled by entity id: without the length, an array whose first
      // entity is a high id turns into a dictionary, and every system's
      // per-entity lookup into a hash probe (measured 1.8x the skin system's
      // frame with 1,000 entities after 20,000 others).
      if (array.length < capacity) array.length = capacity;
      continue;
    }
    const old = array as Uint32Array;
    const grown = new (old.constructor as Uint32ArrayConstructor)(capacity);
    grown.set(old);
    store[name] = grown;
  }
}

/** Zeroes entity `eid` in every field of `store`. */
export function clearEntity(store: Record<string, unknown>, eid: number): void {
  for (const array of Object.values(store)) {
    (array as unknown[] | Uint32Array)[eid] = Array.isArray(array) ? undefined : 0;
  }
}
