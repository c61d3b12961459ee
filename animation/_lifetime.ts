/**
 * Lifetimes of what lives in a core's memory on behalf of an asset: a
 * count of users, an explicit `dispose()` that is deferred until the last
 * user lets go, and the garbage collector's finalization as the safety net
 * for assets that are dropped without one.
 *
 * @module
 */

import { privateSlot } from "./_private_slot.ts";

/** Frees blocks of a core; runs exactly once. */
export type Release = () => void;

const collected = new FinalizationRegistry<Lifetime>((lifetime) => lifetime.collect());

/**
 * The lifetime of one asset's core memory. The asset object is the
 * finalization target; this object must not reference it, so that the
 * asset can be collected.
 */
export class Lifetime {
  #users = 0;
  #disposed = false;
  #released = false;
  readonly #release: Release | undefined;
  /** The unregister token while the target is watched. */
  #token: object | undefined;
  /** Made on the first `onRelease`: most lifetimes never get one. */
  #dependents: Set<Release> | undefined;

  /**
   * Runs `release` too when the memory goes (for what was made for this
   * asset, like clips built for a skeleton); returns a function that
   * cancels it.
   */
  onRelease(release: Release): () => void {
    const dependents = this.#dependents ??= new Set();
    dependents.add(release);
    return () => dependents.delete(release);
  }

  /**
   * Watches `target`: when it is collected, the memory is released. Not
   * watched (`watched` false) when something that outlives the target is
   * (the clips of one loaded file: their file's group), which saves a
   * registration per asset. Without `release`, a subclass gives the
   * memory back in {@linkcode releaseMemory}.
   */
  constructor(target: object, release: Release | undefined, watched = true) {
    this.#release = release;
    if (watched) collected.register(target, this, this.#token = {});
  }

  /** Whether `dispose()` was called. */
  get disposed(): boolean {
    return this.#disposed;
  }

  /** Whether the memory was given back. */
  get released(): boolean {
    return this.#released;
  }

  /** Number of current users. */
  get users(): number {
    return this.#users;
  }

  /** One more user; the caller checked `disposed` first. */
  acquire(): void {
    if (this.#disposed) throw new TypeError("acquire: the asset was disposed");
    this.#users++;
  }

  /** One user fewer; the memory goes when disposed and unused. */
  release(): void {
    if (this.#users <= 0) throw new TypeError("release: the asset has no user");
    this.#users--;
    if (this.#disposed && this.#users === 0) this.#free();
  }

  /** No new users from now on; the memory goes now, or with the last user. */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (this.#users === 0) this.#free();
  }

  /** The target was collected: no user can remain. */
  collect(): void {
    this.#disposed = true;
    this.#free();
  }

  /**
   * Gives the memory back (once): the `release` given. A subclass may do it
   * itself instead: one object per asset where a closure made two more.
   */
  protected releaseMemory(): void {
    this.#release!();
  }

  #free(): void {
    if (this.#released) return;
    this.#released = true;
    if (this.#token) collected.unregister(this.#token);
    this.releaseMemory();
    const dependents = this.#dependents;
    if (!dependents) return;
    for (const release of dependents) release();
    dependents.clear();
  }
}

const lifetimes = privateSlot<Lifetime>();

/**
 * Gives `asset` a lifetime that runs `release` when its memory goes (also
 * on its collection, unless `watched` is false: see {@linkcode Lifetime}),
 * or the lifetime `release` (made unwatched, of a subclass).
 */
export function attachLifetime(
  asset: object,
  release: Release | Lifetime,
  watched = true,
): Lifetime {
  const lifetime = release instanceof Lifetime ? release : new Lifetime(asset, release, watched);
  lifetimes.set(asset, lifetime);
  return lifetime;
}

/** The lifetime of an asset's core memory (the users of the asset acquire it). */
export function lifetimeOf(asset: object): Lifetime {
  const lifetime = lifetimes.get(asset);
  if (!lifetime) throw new TypeError("expected an asset of Marrow's");
  return lifetime;
}
