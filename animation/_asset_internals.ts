/**
 * What the library's own layers need inside its public assets (skeletons,
 * skins, compact clips): blocks of the core, their lifetimes, templates. It
 * lives in this module's WeakMaps, not on the objects, so that no public
 * object leads to it: a getter tagged `@internal` let a game free a skin's
 * mesh under the entities wearing it. The values never reference their
 * asset, so that the asset stays collectable.
 *
 * @module
 */

import type { SkinMesh } from "../simd/memory/immutable.ts";
import type { PreparedMorph } from "./_morph_prepare.ts";
import { type Lifetime, lifetimeOf } from "./_lifetime.ts";
import { privateSlot } from "./_private_slot.ts";

/** A skeleton's blocks in the core and its rest pose (never handed out). */
interface SkeletonInternals {
  /** Byte offset of the parent indices. */
  readonly parentsByteOffset: number;
  /** Byte offset of the inverse bind matrices. */
  readonly inverseBindByteOffset: number;
  /** The rest pose (SoA×4), rotations normalized. */
  readonly restPose: Float32Array;
}

/** A skin's collapsed-palette mesh in the core and its joints' bind-space boxes. */
interface SkinInternals {
  /** The mesh the skinning kernels read. */
  readonly mesh: SkinMesh;
  /** 6 floats per joint (min xyz, max xyz); see `SkinAsset.jointBounds`. */
  readonly jointBoxes: Float32Array;
  /** The morph targets in output order, if the skin has any. */
  readonly morph: PreparedMorph | undefined;
}

/** A compact clip's block in the core and what its players share. */
interface CompactClipInternals {
  /** Byte offset of the clip in the core. */
  readonly byteOffset: number;
  /** A playback's cache before its first sample: rest pose and held values. */
  readonly cacheTemplate: Uint8Array;
  /**
   * Whether a channel holds STEP keys: its samplers pass the time rounded
   * down to float32 (`floorToFloat32`) so that a key switches exactly at
   * its time; others round to nearest, half the time error.
   */
  readonly steps: boolean;
}

/** An asset's internals and its lifetime, read together on every frame's hot path. */
interface Entry<T> {
  readonly internals: T;
  readonly lifetime: Lifetime;
}

const skeletons = new WeakMap<object, Entry<SkeletonInternals>>();
const skins = new WeakMap<object, Entry<SkinInternals>>();
/** A slot, not a WeakMap: a loaded clip's entry outlived it in the young generation (`_private_slot.ts`). */
const compactClips = privateSlot<CompactClipInternals>();

/** Records what `asset` (a SkeletonAsset) keeps out of reach. */
export function setSkeletonInternals(asset: object, internals: SkeletonInternals): void {
  skeletons.set(asset, { internals, lifetime: lifetimeOf(asset) });
}

/** Records what `asset` (a SkinAsset) keeps out of reach. */
export function setSkinInternals(asset: object, internals: SkinInternals): void {
  skins.set(asset, { internals, lifetime: lifetimeOf(asset) });
}

/** The compact clips built since the outermost {@linkcode guardBuilds} (none outside one). */
const builtDuringCalls: object[] = [];
let guardDepth = 0;

/** Records what `clip` (a CompactClip, just built) keeps out of reach. */
export function setCompactClipInternals(clip: object, internals: CompactClipInternals): void {
  compactClips.set(clip, internals);
  if (guardDepth > 0) builtDuringCalls.push(clip);
}

/**
 * Begins a game's call that may build compact clips; returns the mark that
 * {@linkcode settleBuilds} takes when the call ends. A failing call gives
 * back the compact clips it built that no player took, so that it keeps no
 * core memory (a failing `addLocomotionLayer` kept its points' clips, 352
 * to 1,504 bytes a call, until the clips were collected). A mark and a
 * flag, not a callback: a replayed clip's `playClip` allocates nothing.
 */
export function guardBuilds(): number {
  guardDepth++;
  return builtDuringCalls.length;
}

/** Ends the call begun at `mark`; when it `failed`, disposes the clips it built and nobody uses. */
export function settleBuilds(mark: number, failed: boolean): void {
  if (failed) {
    for (let i = mark; i < builtDuringCalls.length; i++) {
      const lifetime = lifetimeOf(builtDuringCalls[i]);
      if (lifetime.users === 0) lifetime.dispose();
    }
    builtDuringCalls.length = mark;
  }
  // The clips a call built that succeeded belong to the call around it, if any.
  if (--guardDepth === 0) builtDuringCalls.length = 0;
}

// The frames' lookup (per entity, per system): kept as small as it was.
function live<T>(map: WeakMap<object, Entry<T>>, asset: object, name: string): T {
  const entry = map.get(asset);
  if (!entry) throw new TypeError(`expected a ${name}`);
  if (entry.lifetime.released) throw new TypeError(`${name}: it was disposed`);
  return entry.internals;
}

/** The blocks of a live skeleton, or a TypeError once its memory is gone. */
export function skeletonInternals(asset: object): SkeletonInternals {
  return live(skeletons, asset, "SkeletonAsset");
}

/**
 * A `TypeError` naming `argument` (as `"compactClip: skeleton"`) unless
 * `asset` is a live skeleton: a call's check of its argument (a WeakMap
 * answers undefined for a value that is not an object).
 */
export function checkSkeletonArgument(asset: unknown, argument: string): void {
  const entry = skeletons.get(asset as object);
  if (!entry) throw new TypeError(`${argument}: expected a SkeletonAsset`);
  if (entry.lifetime.released) throw new TypeError(`${argument}: the SkeletonAsset was disposed`);
}

/** The mesh and boxes of a live skin, or a TypeError once its memory is gone. */
export function skinInternals(asset: object): SkinInternals {
  return live(skins, asset, "SkinAsset");
}

/** What a compact clip's players share (`lifetimeOf(clip)` says whether it is live). */
export function compactClipInternals(clip: object): CompactClipInternals {
  const internals = compactClips.get(clip);
  if (!internals) throw new TypeError("expected a CompactClip");
  return internals;
}
