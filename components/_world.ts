/**
 * Per-world state of the ECS layer: the core, the entities' blocks in its
 * memory, and the batch job tables of the systems.
 *
 * The component objects the game sees are bitecs-style plain objects of
 * arrays; their offset fields mirror this state for reading (for example to
 * upload skinned output straight from the core's buffer). Systems never read
 * them: they use the offsets recorded here, so nothing written into a
 * component array can make the core touch memory outside its blocks.
 *
 * @module
 */

import { entityExists, observe, onAdd, onRemove, removeComponent } from "bitecs";
import type { CoreKernels } from "../simd/_abi.ts";
import { JOB_WORDS } from "../simd/_abi.ts";
import type { CoreMemory } from "../simd/_memory.ts";
import { Core } from "../simd/core.ts";
import { ComponentError } from "./errors.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";

/** The Skeleton component: which shared skeleton an entity animates. */
export interface SkeletonComponent {
  /** The entity's skeleton. */
  readonly asset: (SkeletonAsset | undefined)[];
  /** Its joint count. */
  readonly jointCount: number[];
}

/** The JointQuat component: the entity's local pose (SoA×4) in the core. */
export interface JointQuatComponent {
  /** Byte offset of the pose in the core's memory (informational). */
  readonly byteOffset: number[];
}

/**
 * The JointMat component: the entity's model-space matrices and skinning
 * palette (3x4 each) in the core. Between the quat→mat and the
 * multiply-inverse-bind systems the palette holds the local matrices.
 */
export interface JointMatComponent {
  /** Byte offset of the model-space matrices (informational). */
  readonly modelByteOffset: number[];
  /** Byte offset of the skinning palette (informational). */
  readonly paletteByteOffset: number[];
}

/** The Skin component: the entity's shared mesh and its skinned output. */
export interface SkinComponent {
  /** The entity's skinned mesh. */
  readonly asset: (SkinAsset | undefined)[];
  /** Byte offset of the skinned positions (informational). */
  readonly positionsByteOffset: number[];
  /** Byte offset of the skinned normals, 0 when not skinned (informational). */
  readonly normalsByteOffset: number[];
  /** Byte offset of the skinned tangents, 0 when not skinned (informational). */
  readonly tangentsByteOffset: number[];
}

/** The ClipPlayer component: an entity plays animation clips into its JointQuat. */
export interface ClipPlayerComponent {
  /** Name of the clip playing (the one faded to, during a cross-fade). */
  readonly clipName: (string | undefined)[];
}

/** Marrow's components for one world. */
export interface AnimationComponents {
  /** Shared skeleton of an entity. */
  readonly Skeleton: SkeletonComponent;
  /** Local pose: translation, rotation quaternion, scale per joint. */
  readonly JointQuat: JointQuatComponent;
  /** Model-space matrices and skinning palette. */
  readonly JointMat: JointMatComponent;
  /** Shared skinned mesh and per-entity skinned output. */
  readonly Skin: SkinComponent;
  /** Clip playback state. */
  readonly ClipPlayer: ClipPlayerComponent;
}

/** Options of {@linkcode createAnimation}. */
export interface AnimationOptions {
  /** The core whose memory holds the entities' data. Default: `Core.default`. */
  readonly core?: Core;
}

/** @internal A skinned entity's output blocks. */
export interface SkinRecord {
  readonly asset: SkinAsset;
  readonly block: number;
  readonly positions: number;
  readonly normals: number;
  readonly tangents: number;
}

/** @internal */
export type ComponentName = keyof AnimationComponents;

/** @internal Everything Marrow keeps for one world. */
export class WorldState {
  readonly world: object;
  readonly core: Core;
  readonly components: AnimationComponents;
  readonly skeletons: Map<number, SkeletonAsset> = new Map();
  /** Entity → byte offset of its pose. */
  readonly poses: Map<number, number> = new Map();
  /** Entity → byte offset of its model matrices (the palette follows them). */
  readonly matrices: Map<number, number> = new Map();
  readonly skins: Map<number, SkinRecord> = new Map();
  /** Entity → its clip playback, owned by `components/clip_player.ts`. */
  readonly players: Map<number, unknown> = new Map();
  /** Bumped whenever an entity gains or loses a Marrow component. */
  version = 0;
  /** The component one of our add functions is adding, for the observers. */
  adding: ComponentName | null = null;
  readonly #tables = new Map<string, JobTable>();

  constructor(world: object, core: Core) {
    this.world = world;
    this.core = core;
    this.components = {
      Skeleton: { asset: [], jointCount: [] },
      JointQuat: { byteOffset: [] },
      JointMat: { modelByteOffset: [], paletteByteOffset: [] },
      Skin: {
        asset: [],
        positionsByteOffset: [],
        normalsByteOffset: [],
        tangentsByteOffset: [],
      },
      ClipPlayer: { clipName: [] },
    };
  }

  get memory(): CoreMemory {
    return Core.memoryOf(this.core).views();
  }

  get kernels(): CoreKernels {
    return Core.kernelsOf(this.core);
  }

  /** A job table that its system refills every frame. */
  frameJobs(name: string): JobTable {
    let table = this.#tables.get(name);
    if (!table) this.#tables.set(name, table = new JobTable(Core.memoryOf(this.core)));
    return table;
  }

  /** The job table `name`, rebuilt by `fill` when the entities changed. */
  jobs(name: string, fill: (rows: JobRows) => void): JobTable {
    let table = this.#tables.get(name);
    if (!table) this.#tables.set(name, table = new JobTable(Core.memoryOf(this.core)));
    if (table.version !== this.version) {
      table.rebuild(fill);
      table.version = this.version;
    }
    return table;
  }
}

/** @internal Appends job rows. */
export type JobRows = (entity: number, ...words: number[]) => void;

/** @internal A table of batch jobs in the core's memory, and their entities. */
export class JobTable {
  version = -1;
  ptr = 0;
  count = 0;
  entities: number[] = [];
  #capacity = 0;
  readonly #memory: CoreMemory;

  constructor(memory: CoreMemory) {
    this.#memory = memory;
  }

  /** Makes room for `rows` rows, keeping none of the old ones. */
  reserve(rows: number): void {
    if (rows <= this.#capacity) return;
    if (this.ptr) this.#memory.free(this.ptr);
    this.#capacity = Math.max(rows, this.#capacity * 2, 8);
    this.ptr = this.#memory.alloc(this.#capacity * JOB_WORDS * 4);
  }

  rebuild(fill: (rows: JobRows) => void): void {
    const rows: number[][] = [];
    const entities: number[] = [];
    fill((entity, ...words) => {
      entities.push(entity);
      rows.push(words);
    });
    this.reserve(rows.length);
    const u32 = this.#memory.views().u32;
    rows.forEach((words, i) => {
      const at = (this.ptr >> 2) + i * JOB_WORDS;
      u32.fill(0, at, at + JOB_WORDS);
      u32.set(words, at);
    });
    this.count = rows.length;
    this.entities = entities;
  }
}

const states = new WeakMap<object, WorldState>();

/**
 * Makes `world` (a bitecs world the game created) animatable and returns
 * Marrow's components for it. Calling it again for the same world returns
 * the same components.
 */
export function createAnimation(
  world: object,
  options: AnimationOptions = {},
): AnimationComponents {
  const existing = states.get(world);
  if (existing) {
    if (options.core && options.core !== existing.core) {
      throw new TypeError("createAnimation: this world already uses another core");
    }
    return existing.components;
  }
  const core = options.core ?? Core.default;
  if (!(core instanceof Core)) {
    throw new TypeError("createAnimation: options.core: expected a Core");
  }
  const state = new WorldState(world, core);
  states.set(world, state);
  for (const name of ["Skeleton", "JointQuat", "JointMat", "Skin", "ClipPlayer"] as const) {
    const component = state.components[name];
    observe(world, onAdd(component), (eid: number) => {
      if (state.adding === name) return;
      // Added with bitecs' own addComponent: no data was allocated, so undo it.
      removeComponent(world, eid, component);
      throw new ComponentError(
        eid,
        name,
        `add it with add${name}(world, eid, …), which allocates its data`,
      );
    });
    observe(world, onRemove(component), (eid: number) => release(state, name, eid));
  }
  return state.components;
}

/** @internal The state of `world`, or a TypeError naming `caller`. */
export function stateOf(world: object, caller: string): WorldState {
  const state = states.get(world);
  if (!state) {
    throw new TypeError(`${caller}: the world has no animation: call createAnimation(world) first`);
  }
  return state;
}

/** @internal Checks the entity exists in the state's world. */
export function checkEntity(state: WorldState, eid: number, component: ComponentName): void {
  if (!Number.isInteger(eid) || eid < 0 || !entityExists(state.world, eid)) {
    throw new ComponentError(eid, component, "the entity does not exist in this world");
  }
}

/** Frees what an entity held for a component and clears its fields. */
function release(state: WorldState, name: ComponentName, eid: number): void {
  const memory = Core.memoryOf(state.core);
  const c = state.components;
  state.version++;
  switch (name) {
    case "Skeleton":
      state.skeletons.delete(eid);
      c.Skeleton.asset[eid] = undefined;
      c.Skeleton.jointCount[eid] = 0;
      break;
    case "JointQuat": {
      const ptr = state.poses.get(eid);
      if (ptr !== undefined) memory.free(ptr);
      state.poses.delete(eid);
      c.JointQuat.byteOffset[eid] = 0;
      break;
    }
    case "JointMat": {
      const ptr = state.matrices.get(eid);
      if (ptr !== undefined) memory.free(ptr);
      state.matrices.delete(eid);
      c.JointMat.modelByteOffset[eid] = c.JointMat.paletteByteOffset[eid] = 0;
      break;
    }
    case "ClipPlayer": {
      const player = state.players.get(eid) as { scratch?: number } | undefined;
      if (player?.scratch) memory.free(player.scratch);
      state.players.delete(eid);
      c.ClipPlayer.clipName[eid] = undefined;
      break;
    }
    case "Skin": {
      const record = state.skins.get(eid);
      if (record) memory.free(record.block);
      state.skins.delete(eid);
      c.Skin.asset[eid] = undefined;
      c.Skin.positionsByteOffset[eid] = 0;
      c.Skin.normalsByteOffset[eid] = c.Skin.tangentsByteOffset[eid] = 0;
      break;
    }
  }
}

/** @internal The entity's skeleton, or a ComponentError naming `component`. */
export function requireSkeleton(state: WorldState, eid: number, component: string): SkeletonAsset {
  const skeleton = state.skeletons.get(eid);
  if (!skeleton) {
    throw new ComponentError(eid, component, "the entity needs a Skeleton first (addSkeleton)");
  }
  return skeleton;
}

/** @internal Runs `add` while the observers know the component is ours. */
export function withAdding(
  state: WorldState,
  name: ComponentName,
  add: () => void,
): void {
  state.adding = name;
  try {
    add();
  } finally {
    state.adding = null;
  }
  state.version++;
}
