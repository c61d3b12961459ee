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
import { keptAnimated, keptMotion } from "./_clip_file_extras.ts";
import { loadedMorphChannels, loadedMorphKeys } from "./_clip_file_morph.ts";
import type { FileViews } from "./_clip_file_scan.ts";
import { adoptCompactClip, CompactClip, type LoadedForm, structureKey } from "./compact_clip.ts";
import { attachLifetime, Lifetime, lifetimeOf } from "./_lifetime.ts";
import { setCompactClipInternals } from "./_asset_internals.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { type AnimatedProperty, describeKeylessClip } from "./_keyless_clip.ts";
import { setClipMarkers } from "./markers.ts";
import { cacheTemplate, pad4 } from "./_clip_file_format.ts";
import { type CoreMemory, coreMemory } from "../simd/memory/internal.ts";

/** A loaded clip's channels: none (its keys are in the core), one frozen array for all. */
const NO_CHANNELS: readonly ClipChannel[] = Object.freeze([]);

/** A core's clip budget (`budgetOf`). */
type ClipBudget = ReturnType<typeof budgetOf>;

/**
 * The blocks of a group's clips and their lifetimes: what its
 * finalization frees and the skeleton's release disposes (neither may
 * reference the group, or it would never be collected).
 */
class GroupBlocks {
  readonly #memory: CoreMemory;
  readonly #budget: ClipBudget;
  /** Per clip, its block's offset and size; the size is 0 once the block is back. */
  readonly #blocks: Uint32Array;
  #live: number;
  /** The clips' lifetimes (which reference these blocks, not the group). */
  readonly lifetimes: Lifetime[] = [];
  /** The groups of the skeleton loaded for, which its release disposes, while a block is out. */
  #tie: SkeletonGroups | undefined;
  /** Its index in `#tie.live`. */
  tieIndex = -1;

  constructor(memory: CoreMemory, budget: ClipBudget, blocks: Uint32Array) {
    this.#memory = memory;
    this.#budget = budget;
    this.#blocks = blocks;
    this.#live = blocks.length >> 1;
  }

  /** Byte offset of clip `i`'s image in the core. */
  blockOf(i: number): number {
    return this.#blocks[i * 2];
  }

  /** Gives back the block of clip `i`, once. */
  release(i: number): void {
    const size = this.#blocks[i * 2 + 1];
    if (size === 0) return;
    this.#blocks[i * 2 + 1] = 0;
    this.#memory.free(this.#blocks[i * 2]);
    this.#budget.used -= size;
    if (--this.#live === 0) {
      groups.unregister(this);
      this.#tie?.remove(this);
    }
  }

  /** Disposes the clips of these blocks when `tie`'s skeleton's memory goes. */
  tieTo(tie: SkeletonGroups): void {
    this.#tie = tie;
    tie.add(this);
  }

  /** Disposes every clip of these blocks (their lifetimes). */
  disposeAll(): void {
    for (const lifetime of this.lifetimes) lifetime.dispose();
  }

  /** Gives back every block not given back yet. */
  releaseAll(): void {
    for (let i = 0; i < this.#blocks.length >> 1; i++) this.release(i);
  }
}

const groups = new FinalizationRegistry<GroupBlocks>((blocks) => blocks.releaseAll());

/**
 * One file's clips, as loaded: the target of their finalization, which
 * each of their compact forms references (`LoadedParts`), and so each
 * clip (through its compact form).
 */
class ClipFileGroup {
  constructor(
    readonly blocks: GroupBlocks,
    /** What its clips' compact forms were loaded for (`LoadedForm`). */
    readonly structure: string,
    readonly skeleton: WeakRef<SkeletonAsset>,
  ) {}
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
  const blocks = new Uint32Array(entries.length * 2);
  let made = 0;
  try {
    for (; made < entries.length; made++) {
      const size = blocks[made * 2 + 1] = entries[made].imageBytes;
      blocks[made * 2] = memory.alloc(size);
    }
  } catch (e) {
    for (let i = 0; i < made; i++) memory.free(blocks[i * 2]);
    throw e;
  }
  const u8 = memory.views().u8;
  for (let i = 0; i < entries.length; i++) {
    const { imageAt, imageBytes } = entries[i];
    u8.set(bytes.subarray(imageAt, imageAt + imageBytes), blocks[i * 2]);
  }
  budget.used += total;
  return new GroupBlocks(memory, budget, blocks);
}

/**
 * The clips of the checked file `file` (its `entries`) for `skeleton`:
 * their images copied into the core, what they keep outside it copied out
 * of the file, their compact forms made.
 */
export function loadClipGroup(
  skeleton: SkeletonAsset,
  file: FileViews,
  entries: ClipFileEntry[],
): Clip[] {
  const blocks = allocateImages(skeleton, file.bytes, entries);
  const groupCount = Math.ceil(skeleton.jointCount / 4);
  const kept = keepClipParts(file, entries, groupCount);
  const heldWords = groupCount * 40, laneWords = pad4(groupCount * 2) >> 2;
  const group = new ClipFileGroup(blocks, structureKey(skeleton), weakRefOf(skeleton));
  const morph = loadedMorphKeys(file, entries);
  const clips: Clip[] = [];
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i], from = kept.from[i];
    const held = entry.heldAt >= 0;
    const extras = entry.extras;
    const parts = new LoadedParts(
      group,
      i,
      entry.steps,
      groupCount,
      kept,
      held ? from : -1,
      held ? from + heldWords + laneWords : from,
      extras.motionCount,
    );
    compactForm(entry, groupCount, parts);
    const clip: Clip = {
      name: entry.name,
      animation: entry.animation,
      start: entry.start,
      duration: entry.duration,
      channels: NO_CHANNELS,
      ...(extras.morphCount > 0
        ? { morphChannels: loadedMorphChannels(file, extras.morphAt, extras.morphCount, morph, i) }
        : {}),
    };
    // Before the freeze: they give the clip private fields (`_private_slot.ts`).
    adoptCompactClip(clip, parts);
    describeKeylessClip(clip, parts);
    Object.freeze(clip);
    if (extras.markers.length > 0) setClipMarkers(clip, extras.markers);
    clips.push(clip);
  }
  groups.register(group, blocks, blocks);
  blocks.tieTo(skeletonGroups(skeleton));
  return clips;
}

/**
 * A weak reference to each skeleton files were loaded for, made once: a
 * weak reference made holds its target until the end of the current task,
 * and one per load kept every file's clips alive through a game's loop of
 * loads.
 */
const weakRefs = new WeakMap<SkeletonAsset, WeakRef<SkeletonAsset>>();

function weakRefOf(skeleton: SkeletonAsset): WeakRef<SkeletonAsset> {
  let ref = weakRefs.get(skeleton);
  if (!ref) weakRefs.set(skeleton, ref = new WeakRef(skeleton));
  return ref;
}

/**
 * The groups loaded for one skeleton with a block still out, which the
 * skeleton's release disposes: one registration per skeleton, an array
 * entry per load. A registration per load (two closures and a set entry,
 * deleted as the group went) left about a kilobyte per load that survived
 * the young generation's collections.
 */
class SkeletonGroups {
  readonly live: GroupBlocks[] = [];

  add(blocks: GroupBlocks): void {
    blocks.tieIndex = this.live.length;
    this.live.push(blocks);
  }

  remove(blocks: GroupBlocks): void {
    const last = this.live.pop()!;
    if (last !== blocks) this.live[last.tieIndex = blocks.tieIndex] = last;
    blocks.tieIndex = -1;
  }
}

const tiesOf = new WeakMap<SkeletonAsset, SkeletonGroups>();

/**
 * The groups of `skeleton`, registered with its release once. The
 * release's closure is made here, not in {@linkcode loadClipGroup}: a
 * closure holds every variable its function's closures capture, and the
 * skeleton's would have held a group, never collected.
 */
function skeletonGroups(skeleton: SkeletonAsset): SkeletonGroups {
  let tie = tiesOf.get(skeleton);
  if (tie) return tie;
  const made = tie = new SkeletonGroups();
  tiesOf.set(skeleton, made);
  lifetimeOf(skeleton).onRelease(() => {
    // A copy: a group whose blocks all go back leaves the list.
    for (const blocks of made.live.slice()) blocks.disposeAll();
  });
  return made;
}

/**
 * What a loaded clip keeps out of reach, for its compact form
 * (`CompactClipInternals`: its block, and its starting cache) and for the
 * clip (`KeylessParts` of `_keyless_clip.ts`: its animated properties and
 * root motion channels), all made when first used (a first play, a
 * layer's mask, root motion) from the file's kept parts: a skeleton's
 * caches can outweigh its clips' bytes, and an object per part and clip
 * was much of a small file's load. It references the group: a compact
 * form a player holds keeps every block of its file. A class, not an
 * object with getters: their closures were more objects per clip.
 */
class LoadedParts implements LoadedForm {
  #template: Uint8Array | undefined;
  #animated: readonly AnimatedProperty[] | undefined;
  #motion: readonly ClipChannel[] | undefined;
  readonly byteOffset: number;
  /** Its compact form, made from these (`compactForm`). */
  compact!: CompactClip;

  constructor(
    readonly group: ClipFileGroup,
    /** The clip's index in its file. */
    readonly index: number,
    readonly steps: boolean,
    readonly groups: number,
    readonly kept: KeptParts,
    /** Word of the kept parts of its held values, or -1 on a shared timeline. */
    readonly heldFrom: number,
    /** Word of the kept parts of its animated lanes (the motion channels follow). */
    readonly animatedFrom: number,
    readonly motionCount: number,
  ) {
    this.byteOffset = group.blocks.blockOf(index);
  }

  get structure(): string {
    return this.group.structure;
  }

  get skeleton(): WeakRef<SkeletonAsset> {
    return this.group.skeleton;
  }

  get cacheTemplate(): Uint8Array {
    if (this.#template) return this.#template;
    const kept = this.kept, from = this.heldFrom, held = this.groups * 40;
    return this.#template = from < 0
      ? cacheTemplate(this.groups, undefined, 0, [], 0)
      : cacheTemplate(this.groups, kept.floats, from, kept.lanes, (from + held) * 2);
  }

  get animated(): readonly AnimatedProperty[] {
    return this.#animated ??= keptAnimated(this.kept, this.animatedFrom, this.groups);
  }

  get motion(): readonly ClipChannel[] {
    const from = this.animatedFrom + (pad4(this.groups * 2) >> 2);
    return this.#motion ??= keptMotion(this.kept, from, this.motionCount);
  }
}

/** A compact form's fields, written once as it is made. */
type CompactFields = { -readonly [K in keyof CompactClip]: CompactClip[K] };

/** The compact form of a clip of a group (`internals.compact`), from its checked `entry`. */
function compactForm(entry: ClipFileEntry, groupCount: number, internals: LoadedParts): void {
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
  const blocks = internals.group.blocks;
  blocks.lifetimes.push(attachLifetime(compact, new BlockLifetime(blocks, internals.index)));
  setCompactClipInternals(compact, internals);
  internals.compact = compact;
}

/**
 * The lifetime of clip `i`'s block, which it gives back itself (not
 * through a closure: two objects more per clip). It references the
 * blocks, not the group: the skeleton's release reaches it, and must not
 * keep the group.
 */
class BlockLifetime extends Lifetime {
  constructor(readonly blocks: GroupBlocks, readonly index: number) {
    super(blocks, undefined, false);
  }

  protected override releaseMemory(): void {
    this.blocks.release(this.index);
  }
}
