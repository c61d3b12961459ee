/**
 * The clips of one loaded compact clip file, as one group: their images
 * are copied into blocks of the core, one per clip, and the group, not
 * each clip, is watched by the garbage collector and tied to the skeleton
 * they were loaded for. A finalization registration, a weak reference and
 * a skeleton registration per clip cost more than reading a small clip.
 *
 * Lifetimes stay per clip: a disposed clip's block goes back as soon as no
 * player uses it (and the clip can no longer be played), and the
 * skeleton's release disposes every clip of the group. What is never
 * disposed goes when the group is collected: every clip and compact form
 * of it references the group, so no player can still use a block then.
 *
 * @module
 */

import type { Clip, ClipChannel } from "./clip.ts";
import type { SkeletonAsset } from "./skeleton_asset.ts";
import { type ClipFileEntry, keepClipParts, type KeptParts } from "./_clip_file_read.ts";
import { KeptExtras } from "./_clip_file_extras.ts";
import { adoptCompactClip, CompactClip } from "./compact_clip.ts";
import { attachLifetime, lifetimeOf } from "./_lifetime.ts";
import { setCompactClipInternals } from "./_asset_internals.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { describeKeylessClip } from "./_keyless_clip.ts";
import { setClipMarkers } from "./markers.ts";
import { cacheTemplate, pad4 } from "./_clip_file_format.ts";
import { type CoreMemory, coreMemory } from "../simd/memory/internal.ts";

/** A loaded clip's channels: none (its keys are in the core), one frozen array for all. */
const NO_CHANNELS: readonly ClipChannel[] = Object.freeze([]);

/**
 * The blocks of a group's clips: what its finalization frees (it must not
 * reference the group, its target).
 */
/** A core's clip budget (`budgetOf`). */
type ClipBudget = ReturnType<typeof budgetOf>;

class GroupBlocks {
  readonly #memory: CoreMemory;
  readonly #budget: ClipBudget;
  readonly #blocks: Uint32Array;
  readonly #sizes: Uint32Array;
  readonly #released: Uint8Array;
  #live: number;
  /** Cancels the skeleton's registration, once every block is back. */
  cancel: (() => void) | undefined;

  constructor(memory: CoreMemory, budget: ClipBudget, blocks: Uint32Array, sizes: Uint32Array) {
    this.#memory = memory;
    this.#budget = budget;
    this.#blocks = blocks;
    this.#sizes = sizes;
    this.#released = new Uint8Array(blocks.length);
    this.#live = blocks.length;
  }

  /** Byte offset of clip `i`'s image in the core. */
  blockOf(i: number): number {
    return this.#blocks[i];
  }

  /** Gives back the block of clip `i`, once. */
  release(i: number): void {
    if (this.#released[i]) return;
    this.#released[i] = 1;
    this.#memory.free(this.#blocks[i]);
    this.#budget.used -= this.#sizes[i];
    if (--this.#live === 0) {
      groups.unregister(this);
      this.cancel?.();
    }
  }

  /** Gives back every block not given back yet. */
  releaseAll(): void {
    for (let i = 0; i < this.#blocks.length; i++) this.release(i);
  }
}

const groups = new FinalizationRegistry<GroupBlocks>((blocks) => blocks.releaseAll());

/** One file's clips, as loaded: the target of their finalization. */
class ClipFileGroup {
  constructor(readonly blocks: GroupBlocks, readonly compacts: readonly CompactClip[]) {}
}

/**
 * Blocks of the core for `entries`' images, within the clip budget (a
 * `ClipBudgetError` before anything is allocated), filled from the file.
 */
function allocateImages(skeleton: SkeletonAsset, bytes: Uint8Array, entries: ClipFileEntry[]) {
  let total = 0;
  for (const entry of entries) total += entry.imageBytes;
  const budget = budgetOf(skeleton.core);
  if (total > budget.limit - budget.used) {
    throw new ClipBudgetError(`${entries.length} clips of a file`, skeleton, total, false, budget);
  }
  const memory = coreMemory(skeleton.core);
  const blocks = new Uint32Array(entries.length), sizes = new Uint32Array(entries.length);
  let made = 0;
  try {
    for (; made < entries.length; made++) {
      blocks[made] = memory.alloc(sizes[made] = entries[made].imageBytes);
    }
  } catch (e) {
    for (let i = 0; i < made; i++) memory.free(blocks[i]);
    throw e;
  }
  const u8 = memory.views().u8;
  for (let i = 0; i < entries.length; i++) {
    const { imageAt, imageBytes } = entries[i];
    u8.set(bytes.subarray(imageAt, imageAt + imageBytes), blocks[i]);
  }
  budget.used += total;
  return new GroupBlocks(memory, budget, blocks, sizes);
}

/**
 * The clips of the checked file `bytes` (its `entries`) for `skeleton`:
 * their images copied into the core, what they keep outside it copied out
 * of the file, their compact forms made.
 */
export function loadClipGroup(
  skeleton: SkeletonAsset,
  bytes: Uint8Array,
  entries: ClipFileEntry[],
): Clip[] {
  const blocks = allocateImages(skeleton, bytes, entries);
  const groupCount = Math.ceil(skeleton.jointCount / 4);
  const kept = keepClipParts(bytes, entries, groupCount);
  const heldWords = groupCount * 40, laneWords = pad4(groupCount * 2) >> 2;
  const compacts: CompactClip[] = [];
  const group = new ClipFileGroup(blocks, compacts);
  const skeletonRef = new WeakRef(skeleton);
  const clips: Clip[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i], from = kept.from[i];
    const held = entry.heldAt >= 0;
    const compact = compactForm(
      group,
      i,
      entry,
      groupCount,
      new LoadedInternals(
        blocks.blockOf(i),
        entry.steps,
        groupCount,
        held ? kept : undefined,
        from,
      ),
    );
    compacts.push(compact);
    const clip: Clip = Object.freeze({
      name: entry.name,
      animation: entry.animation,
      start: entry.start,
      duration: entry.duration,
      channels: NO_CHANNELS,
    });
    adoptCompactClip(clip, skeletonRef, compact);
    const extras = entry.extras;
    describeKeylessClip(
      clip,
      new KeptExtras(kept, held ? from + heldWords + laneWords : from, groupCount, extras),
    );
    if (extras.markers.length > 0) setClipMarkers(clip, extras.markers);
    clips.push(clip);
  }
  groups.register(group, blocks, blocks);
  tieToSkeleton(group, skeleton);
  return clips;
}

/**
 * Disposes the clips of `group` when `skeleton`'s memory goes. Made here,
 * not in {@linkcode loadClipGroup}: a closure holds every variable its
 * function's closures capture, and the skeleton's would have held the
 * group, never collected.
 */
function tieToSkeleton(group: ClipFileGroup, skeleton: SkeletonAsset): void {
  const ref = new WeakRef(group), blocks = group.blocks;
  blocks.cancel = lifetimeOf(skeleton).onRelease(() => {
    const live = ref.deref();
    if (!live) return blocks.releaseAll();
    for (const compact of live.compacts) lifetimeOf(compact).dispose();
  });
}

/**
 * What a loaded compact form keeps out of reach (`CompactClipInternals`):
 * its starting cache made on its first play from the file's kept parts (a
 * skeleton's caches can outweigh its clips' bytes). A class, not an object
 * with a getter: the getter's closure was one more object per clip.
 */
class LoadedInternals {
  #template: Uint8Array | undefined;

  constructor(
    readonly byteOffset: number,
    readonly steps: boolean,
    readonly groups: number,
    /** The file's kept parts, this clip's from word `from`; none on a shared timeline. */
    readonly kept: KeptParts | undefined,
    readonly from: number,
  ) {}

  get cacheTemplate(): Uint8Array {
    const kept = this.kept, from = this.from, held = this.groups * 40;
    return this.#template ??= cacheTemplate(
      this.groups,
      kept?.floats,
      from,
      kept?.lanes ?? [],
      (from + held) * 2,
    );
  }
}

/** A compact form's fields, written once as it is made. */
type CompactFields = { -readonly [K in keyof CompactClip]: CompactClip[K] };

/** The compact form of clip `i` of `group`, from its checked `entry`. */
function compactForm(
  group: ClipFileGroup,
  i: number,
  entry: ClipFileEntry,
  groupCount: number,
  internals: LoadedInternals,
): CompactClip {
  const compact: CompactFields = Object.create(CompactClip.prototype);
  compact.name = entry.name;
  compact.duration = entry.duration;
  compact.groupCount = groupCount;
  compact.trackCount = entry.trackCount;
  compact.keyCount = entry.keyCount;
  compact.bytes = entry.imageBytes;
  compact.tolerance = entry.tolerance;
  compact.virtualDistance = entry.virtualDistance;
  compact.maxError = entry.maxError;
  // The release references the group: a compact form a player holds keeps every block.
  attachLifetime(compact, () => group.blocks.release(i), false);
  setCompactClipInternals(compact, internals);
  return compact;
}
