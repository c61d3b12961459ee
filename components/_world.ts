/**
 * Per-world state of the ECS layer: the public component stores, Marrow's
 * private record of what each entity owns in the core, the systems' job
 * tables, and the world's lifetime.
 *
 * The stores (`Skeleton.jointCount[eid]`, `JointMat.modelByteOffset[eid]`,
 * …) are bitecs components: plain objects of typed arrays indexed by
 * entity, which systems read every frame. Every field the core trusts is
 * checked against the ownership record (`_access.ts`) before each use: a
 * field changed by game code is a `ComponentError`, never a wild pointer.
 *
 * @module
 */

import type { AnimationComponents } from "./world.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import type { CompactClip } from "../animation/compact_clip.ts";
import type { ClipSampler } from "../animation/clip_sampler.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";
import type { Clip, WrapMode } from "../animation/clip.ts";
import type { IKChain } from "./_ik_chain.ts";
import type { Core } from "../simd/core.ts";
import { coreKernels, coreMemory } from "../simd/_instance.ts";
import type { CoreKernels } from "../simd/_abi.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import { clearEntity, createStore, growStore, type Store } from "./_stores.ts";
import { type LayerStack, releaseStack } from "./_layers.ts";
import type { MarkerHits } from "../animation/markers.ts";
import type { RootMotionState } from "./root_motion.ts";
import { FaultLog } from "./_faults.ts";

/** Shapes of the public stores. */
const SHAPES = {
  Skeleton: { asset: "objects", jointCount: Uint16Array },
  JointQuat: { byteOffset: Uint32Array },
  JointMat: { modelByteOffset: Uint32Array, paletteByteOffset: Uint32Array },
  Skin: {
    asset: "objects",
    vertexCount: Uint32Array,
    positionsByteOffset: Uint32Array,
    normalsByteOffset: Uint32Array,
    tangentsByteOffset: Uint32Array,
    maxInfluences: Uint8Array,
  },
  ClipPlayer: { clipName: "objects", time: Float64Array, speed: Float32Array },
  IK: { chainCount: Uint8Array },
} as const;

/** @internal */
export type ComponentName = keyof AnimationComponents;

/** @internal Removal order: dependents before what they need. */
export const COMPONENT_NAMES: readonly ComponentName[] = [
  "IK",
  "ClipPlayer",
  "Skin",
  "JointQuat",
  "JointMat",
  "Skeleton",
];

/**
 * @internal One clip being played. For the clip playing, the ClipPlayer
 * store's `time` and `speed` are the truth; these are the fading-in clip's.
 */
export interface Playback {
  // Not readonly: a player's playbacks are recycled (`components/_playbacks.ts`).
  clip: Clip;
  compact: CompactClip;
  /** Its sampler (cache in the core), from when the playback starts until it stops. */
  sampler?: ClipSampler;
  wrap: WrapMode;
  time: number;
  speed: number;
}

/** @internal An entity's players: the clip playing, and the one faded to. */
export interface PlayerState {
  current: Playback;
  next: Playback | undefined;
  /** Weight of `next`, always within [0, 1]. */
  fade: number;
  fadeDuration: number;
  /** Byte offset of a second pose in the core, to sample `next` into. */
  readonly scratch: number;
  /** Layers beyond the one `current` and `next` play (`components/layers.ts`). */
  stack?: LayerStack;
  /** Extensions of the player (markers crossed, root motion), freed with it. */
  extras?: PlayerExtras;
  /**
   * Playbacks it stopped, their samplers detached but keeping their cache
   * blocks: the next `playClip`/`crossFadeTo` reuses one instead of
   * allocating (`components/_playbacks.ts`); freed with the player.
   */
  spares?: (Playback | undefined)[];
}

/** @internal Per-frame outputs of a player, written by the sample clips system. */
export interface PlayerExtras {
  /** Markers crossed in the last frame, in order. */
  readonly hits: MarkerHits;
  /** Root motion extraction settings and the last frame's delta. */
  rootMotion?: RootMotionState;
}

const OWNED = {
  skeleton: "objects",
  pose: Uint32Array,
  matrices: Uint32Array,
  skin: "objects",
  skinBlock: Uint32Array,
  skinNormals: Uint32Array,
  skinTangents: Uint32Array,
  /**
   * Byte offset of the skinning kernel's scratch for the entity's palette
   * transposed, at the end of its skin block (0 for dual-quaternion skins).
   */
  skinColumns: Uint32Array,
  player: "objects",
  ik: "objects",
  /** Marks entities already listed in the current system call. */
  stamp: Uint32Array,
  /** `Quarantine` flags: what the systems skip until the entity's data is good again. */
  quarantine: Uint8Array,
  /**
   * Bumped whenever the entity's Skeleton, JointMat or Skin is released: a
   * copy of its palette taken before (a task-parallel pipeline's snapshot)
   * is then not its palette any more. Float64: exact far beyond any run.
   */
  generation: Float64Array,
} as const;

/** @internal What each entity owns: the truth the stores are checked against. */
export type Owned = Store<typeof OWNED> & {
  skeleton: (SkeletonAsset | undefined)[];
  skin: (SkinAsset | undefined)[];
  player: (PlayerState | undefined)[];
  ik: (IKChain[] | undefined)[];
};

/**
 * @internal Everything the world holds in the core. It references no
 * world, so that the world's finalization can release it.
 */
export class WorldResources {
  readonly memory: CoreMemory;
  owned: Owned;
  capacity = 0;
  /** Job table blocks of the systems. */
  readonly tables = new Set<JobTable>();

  constructor(memory: CoreMemory) {
    this.memory = memory;
    this.owned = createStore(OWNED, 0) as Owned;
  }

  /** Frees what entity `eid` holds for `name`; idempotent. */
  release(name: ComponentName, eid: number): void {
    const o = this.owned;
    if (eid >= this.capacity) return;
    if (name === "Skeleton" || name === "JointMat" || name === "Skin") o.generation[eid]++;
    switch (name) {
      case "Skeleton":
        if (o.skeleton[eid]) lifetimeOf(o.skeleton[eid]!).release();
        o.skeleton[eid] = undefined;
        break;
      case "JointQuat":
        if (o.pose[eid]) this.memory.free(o.pose[eid]);
        o.pose[eid] = 0;
        o.quarantine[eid] = 0;
        break;
      case "JointMat":
        if (o.matrices[eid]) this.memory.free(o.matrices[eid]);
        o.matrices[eid] = 0;
        break;
      case "Skin":
        if (o.skinBlock[eid]) this.memory.free(o.skinBlock[eid]);
        if (o.skin[eid]) lifetimeOf(o.skin[eid]!).release();
        o.skinBlock[eid] =
          o.skinNormals[eid] =
          o.skinTangents[eid] =
          o.skinColumns[eid] =
            0;
        o.skin[eid] = undefined;
        break;
      case "IK":
        o.ik[eid] = undefined;
        break;
      case "ClipPlayer": {
        const player = o.player[eid];
        if (!player) break;
        this.memory.free(player.scratch);
        if (player.stack) releaseStack(this.memory, player.stack);
        player.current.sampler!.release();
        player.next?.sampler?.release();
        for (const spare of player.spares ?? []) spare?.sampler?.release();
        o.player[eid] = undefined;
        break;
      }
    }
  }

  /** Frees everything every entity holds, and the job tables. */
  releaseAll(): void {
    for (let eid = 0; eid < this.capacity; eid++) {
      for (const name of COMPONENT_NAMES) this.release(name, eid);
    }
    for (const table of this.tables) table.free();
    this.tables.clear();
  }
}

/** @internal Everything Marrow keeps for one world. */
export class WorldState {
  readonly core: Core;
  readonly components: AnimationComponents;
  readonly resources: WorldResources;
  /** bitecs' entity index when the observers were registered (a reset replaces it). */
  entityIndex: unknown;
  /** Unsubscribes the observers. */
  unobserve: (() => void)[] = [];
  /** What an add function hands to the add observer of its component. */
  pending: {
    Skeleton?: SkeletonAsset;
    Skin?: SkinPending;
    ClipPlayer?: Playback;
    IK?: IKChain;
  } = {};
  /** bitecs queries of the systems, by their terms; a world reset drops them. */
  readonly queries = new Map<string, { readonly dense: ArrayLike<number> }>();
  /** Per-entity problems the systems found, the fault mode and its callback. */
  readonly faults: FaultLog = new FaultLog();
  #stamp = 0;
  readonly #tables = new Map<string, JobTable>();

  constructor(core: Core) {
    this.core = core;
    this.resources = new WorldResources(coreMemory(core));
    const stores: Record<string, unknown> = {};
    for (const [name, shape] of Object.entries(SHAPES)) stores[name] = createStore(shape, 0);
    this.components = stores as unknown as AnimationComponents;
  }

  get owned(): Owned {
    return this.resources.owned;
  }

  get memory(): CoreMemory {
    return this.resources.memory.views();
  }

  get kernels(): CoreKernels {
    return coreKernels(this.core);
  }

  /** Makes every store and record hold entity `eid`. */
  ensureCapacity(eid: number): void {
    const r = this.resources;
    if (eid < r.capacity) return;
    const capacity = Math.max(64, 2 ** Math.ceil(Math.log2(eid + 1)));
    for (const store of Object.values(this.components)) growStore(store, capacity);
    growStore(r.owned, capacity);
    r.capacity = capacity;
  }

  /** Clears entity `eid`'s fields of store `name`. */
  clearStore(name: ComponentName, eid: number): void {
    if (eid < this.resources.capacity) {
      clearEntity(this.components[name] as unknown as Record<string, unknown>, eid);
    }
  }

  /** A new stamp for marking the entities of one system call. */
  nextStamp(): number {
    if (++this.#stamp === 2 ** 32) {
      this.resources.owned.stamp.fill(0);
      this.#stamp = 1;
    }
    return this.#stamp;
  }

  /** The job table of system `name`. */
  jobs(name: string): JobTable {
    let table = this.#tables.get(name);
    if (!table) {
      this.#tables.set(name, table = new JobTable(this.resources.memory));
      this.resources.tables.add(table);
    }
    return table;
  }

  /** Forgets the job tables (after `releaseAll` freed them) and the queries. */
  forgetJobs(): void {
    this.#tables.clear();
    this.queries.clear();
  }
}

/** @internal What addSkin hands to the Skin observer. */
export interface SkinPending {
  readonly asset: SkinAsset;
  readonly normals: boolean;
  readonly tangents: boolean;
}

/** @internal A table of batch jobs in the core's memory, refilled every call. */
export class JobTable {
  ptr = 0;
  count = 0;
  #capacity = 0;
  #staged = new Uint32Array(0);
  #stagedPrefix: Uint32Array | undefined;
  #stagedFloats: Float32Array | undefined;
  #tableView: Uint32Array | undefined;
  #tableViewOf: Uint32Array | undefined;
  readonly #memory: CoreMemory;

  constructor(memory: CoreMemory) {
    this.#memory = memory;
  }

  /** Makes room for `rows` rows of `words` words and empties the table. */
  begin(rows: number, words: number): void {
    this.count = 0;
    const bytes = rows * words * 4;
    if (bytes <= this.#capacity) return;
    if (this.ptr) this.#memory.free(this.ptr);
    this.#capacity = Math.max(bytes, this.#capacity * 2, 256);
    this.ptr = this.#memory.alloc(this.#capacity);
  }

  /**
   * A plain array of at least `words` words to write rows into before
   * {@linkcode commit} copies them into the table at once: an element
   * access to the core's memory (a resizable buffer) costs more than one to
   * a plain array, and the copy less than the difference.
   */
  staging(words: number): Uint32Array {
    if (this.#staged.length < words) {
      this.#staged = new Uint32Array(Math.max(words, this.#staged.length * 2));
    }
    return this.#staged;
  }

  /** Copies the first `words` staged words into the table. */
  commit(words: number): void {
    const u32 = this.#memory.views().u32;
    if (words === this.#staged.length) u32.set(this.#staged, this.ptr >> 2);
    else u32.set(this.#stagedView(words), this.ptr >> 2);
  }

  /** The table's first `words` words (what a kernel wrote), copied into the staging array. */
  readBack(words: number): Uint32Array {
    const staged = this.staging(words), u32 = this.#memory.views().u32, from = this.ptr >> 2;
    // The view of the table is kept while the table and the core's views stay: no garbage a frame.
    let view = this.#tableView;
    if (
      view === undefined || this.#tableViewOf !== u32 || view.byteOffset !== this.ptr ||
      view.length !== words
    ) {
      view = this.#tableView = u32.subarray(from, from + words);
      this.#tableViewOf = u32;
    }
    staged.set(view);
    return staged;
  }

  /** {@linkcode readBack} read as floats (the same staging array). */
  readBackFloats(words: number): Float32Array {
    const staged = this.readBack(words);
    if (this.#stagedFloats?.buffer !== staged.buffer) {
      this.#stagedFloats = new Float32Array(staged.buffer);
    }
    return this.#stagedFloats;
  }

  /** The first `words` staged words, a view kept while their count stays. */
  #stagedView(words: number): Uint32Array {
    let view = this.#stagedPrefix;
    if (view === undefined || view.buffer !== this.#staged.buffer || view.length !== words) {
      view = this.#stagedPrefix = this.#staged.subarray(0, words);
    }
    return view;
  }

  free(): void {
    if (this.ptr) this.#memory.free(this.ptr);
    this.ptr = this.#capacity = this.count = 0;
    this.#staged = new Uint32Array(0);
    this.#stagedPrefix =
      this.#stagedFloats =
      this.#tableView =
      this.#tableViewOf =
        undefined;
  }
}
