/**
 * {@linkcode CoreAsset}: what Marrow's assets that hold core memory
 * ({@linkcode SkeletonAsset}, {@linkcode SkinAsset}) have in common: an
 * explicit `dispose()`, also through `using`, deferred while the asset is
 * in use, and release when it is garbage collected.
 *
 * @module
 */

import { attachLifetime, type Lifetime, type Release } from "./_lifetime.ts";

/** Marrow's asset classes: a core asset is one of them, or of a subclass of one. */
const assetClasses: (abstract new (...args: never[]) => CoreAsset)[] = [];

/** @internal Makes `assetClass` (and its subclasses) core assets; once per class, at its module's load. */
export function registerCoreAssetClass(
  assetClass: abstract new (...args: never[]) => CoreAsset,
): void {
  assetClasses.push(assetClass);
}

/**
 * An asset holding core memory. `dispose()` gives the memory back to the
 * core, now or, while entities (or skins) use the asset, when the last one
 * lets go; a disposed asset cannot be given to a new user. An asset dropped
 * without `dispose()` is released when garbage collected.
 */
export abstract class CoreAsset {
  readonly #lifetime: Lifetime;

  /**
   * `release` frees the asset's blocks; it runs once, when they go. Only
   * Marrow's assets are made this way (a `TypeError` for any other class):
   * the release runs when the asset is collected, where no caller could
   * catch what it throws.
   */
  protected constructor(release: Release) {
    const own = assetClasses.some((c) => new.target === c || new.target.prototype instanceof c);
    if (!own || typeof release !== "function") {
      throw new TypeError(
        "CoreAsset: only Marrow's assets (SkeletonAsset, SkinAsset) are made with a release",
      );
    }
    this.#lifetime = attachLifetime(this, release);
  }

  /** Whether `dispose()` was called. */
  get disposed(): boolean {
    return this.#lifetime.disposed;
  }

  /**
   * Gives the asset's memory back to its core, now or, while it is in use,
   * when the last user lets go.
   */
  dispose(): void {
    this.#lifetime.dispose();
  }

  /** `dispose()`, for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }

  /** Throws a `TypeError` naming `name` if the memory is gone. */
  protected checkLive(name: string): void {
    if (this.#lifetime.released) throw new TypeError(`${name}: it was disposed`);
  }
}
