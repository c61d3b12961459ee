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
import type { ClipFileEntry } from "./_clip_file_read.ts";
import { adoptCompactClip, CompactClip } from "./compact_clip.ts";
import { attachLifetime, lifetimeOf } from "./_lifetime.ts";
import { setCompactClipInternals } from "./_asset_internals.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { describeKeylessClip } from "./_keyless_clip.ts";
import { setClipMarkers } from "./markers.ts";
import { cacheTemplate } from "./_clip_file_format.ts";
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
 * their images copied into the core, their compact forms made.
 */
export function loadClipGroup(
  skeleton: SkeletonAsset,
  bytes: Uint8Array,
  entries: ClipFileEntry[],
): Clip[] {
  const blocks = allocateImages(skeleton, bytes, entries);
  const groupCount = Math.ceil(skeleton.jointCount / 4);
  const compacts: CompactClip[] = [];
  const group = new ClipFileGroup(blocks, compacts);
  const skeletonRef = new WeakRef(skeleton);
  const clips = entries.map((entry, i) => {
    const compact = compactForm(group, i, entry, groupCount);
    compacts.push(compact);
    const clip: Clip = Object.freeze({
      name: entry.name,
      animation: entry.animation,
      start: entry.start,
      duration: entry.duration,
      channels: NO_CHANNELS,
    });
    adoptCompactClip(clip, skeletonRef, compact);
    describeKeylessClip(clip, entry.extras);
    if (entry.extras.markers.length > 0) setClipMarkers(clip, entry.extras.markers);
    return clip;
  });
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

/** The compact form of clip `i` of `group`, from its checked `entry`. */
function compactForm(
  group: ClipFileGroup,
  i: number,
  entry: ClipFileEntry,
  groupCount: number,
): CompactClip {
  const compact: CompactClip = Object.create(CompactClip.prototype);
  Object.assign(compact, {
    name: entry.name,
    duration: entry.duration,
    groupCount,
    trackCount: entry.trackCount,
    keyCount: entry.keyCount,
    bytes: entry.imageBytes,
    tolerance: entry.tolerance,
    virtualDistance: entry.virtualDistance,
    maxError: entry.maxError,
  });
  // The release references the group: a compact form a player holds keeps every block.
  attachLifetime(compact, () => group.blocks.release(i), false);
  const { held, keyed } = entry;
  // Made on the first play: a skeleton's caches can outweigh its clips' bytes.
  let template: Uint8Array | undefined;
  setCompactClipInternals(compact, {
    byteOffset: group.blocks.blockOf(i),
    get cacheTemplate() {
      return template ??= cacheTemplate(groupCount, held, keyed ?? []);
    },
    steps: entry.steps,
  });
  return compact;
}
