/**
 * Per-world state of the ECS layer, as the lifecycle machinery keeps it for
 * any set of components: the public component stores, Marrow's private
 * record of what each entity owns in the core, the systems' job tables,
 * and the world's lifetime. It names no component: each component's
 * definition ({@linkcode ComponentDefinition}, in the component's own file)
 * says what it stores, owns, allocates, releases and checks, and the
 * registry (`registry.ts`) lists them; `createAnimation` hands the list in.
 *
 * The stores (`Skeleton.jointCount[eid]`, `JointMat.modelByteOffset[eid]`,
 * …) are bitecs components: plain objects of typed arrays indexed by
 * entity, which systems read every frame. Every field the core trusts is
 * checked against the ownership record (each definition's `check`) before
 * each use: a field changed by game code is a `ComponentError`, never a
 * wild pointer.
 *
 * @module
 */

import type { Core } from "../simd/memory/core.ts";
import { coreKernels, coreMemory } from "../simd/memory/internal.ts";
import type { CoreKernels } from "../simd/abi.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import { clearEntity, createStore, growStore, type Store, type StoreShape } from "./_stores.ts";
import { FaultLog } from "./_faults.ts";
import { JobTable } from "./_job_table.ts";

/**
 * @internal A component as the lifecycle machinery sees it. Written once, in
 * the component's own file, with `defineComponent` (`_component.ts`).
 */
export interface ComponentDefinition {
  /** The component's name: its key among the world's components, and in messages. */
  readonly name: string;
  /**
   * The components an entity must have first, in the order a missing one
   * is reported. Removing one of them removes this one.
   */
  readonly needs: readonly ComponentDefinition[];
  /** The fields of its public store (the bitecs component games query). */
  readonly shape: StoreShape;
  /** The fields of Marrow's private record of what an entity owns for it. */
  readonly record: StoreShape;
  /** The function that adds it, named in "needs a … first (…)" messages. */
  readonly addedBy: string;
  /**
   * For a component whose add function hands its add observer data: the
   * call to name when it is added without (bitecs' own `addComponent`).
   */
  readonly addWith?: string;
  /** Whether entity `eid` owns this component's data (its record says so). */
  has(state: WorldBase, eid: number): boolean;
  /**
   * Allocates entity `eid`'s data from what its add function handed over
   * (undefined when bitecs added it), or throws a `ComponentError`.
   */
  allocate(state: WorldBase, eid: number, data: unknown): void;
  /** Frees what entity `eid` holds for it; idempotent. */
  release(resources: WorldResources, eid: number): void;
  /**
   * Checks the public store fields the core would use against the record,
   * or throws a `ComponentError` naming the field; nothing for an entity
   * without the component. Called before a frame writes anything.
   */
  check?(state: WorldBase, eid: number): void;
}

/** The machinery's own per-entity fields of the private record. */
const MACHINERY_RECORD = {
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

/** @internal The machinery's part of the private record; components add theirs. */
export type MachineryRecord = Store<typeof MACHINERY_RECORD>;

/**
 * @internal Everything the world holds in the core. It references no
 * world, so that the world's finalization can release it.
 */
export class WorldResources {
  readonly memory: CoreMemory;
  /** The private record: the machinery's fields and every component's. */
  readonly owned: MachineryRecord;
  capacity = 0;
  /**
   * Clip players with layers (`player.stack`), counted as their stacks are
   * made and released: while none has, the sample clips system counts no
   * player's rows (two at most each).
   */
  layerStacks = 0;
  /**
   * Whether the inverse-bind multiply's last call put a palette back
   * (`Quarantine.Palette`): its next call lifts the flags.
   */
  palettesPutBack = false;
  /** Job table blocks of the systems. */
  readonly tables = new Set<JobTable>();
  /** The components, dependents before what they need: the order of removals and resets. */
  readonly removalOrder: readonly ComponentDefinition[];

  constructor(memory: CoreMemory, components: readonly ComponentDefinition[]) {
    this.memory = memory;
    let shape: StoreShape = MACHINERY_RECORD;
    for (const component of components) shape = { ...shape, ...component.record };
    this.owned = createStore(shape, 0) as MachineryRecord;
    this.removalOrder = [...components].reverse();
  }

  /** Frees everything every entity holds, and the job tables. */
  releaseAll(): void {
    for (let eid = 0; eid < this.capacity; eid++) {
      for (const component of this.removalOrder) component.release(this, eid);
    }
    for (const table of this.tables) table.free();
    this.tables.clear();
  }
}

/** @internal Everything Marrow keeps for one world, for any registry of components. */
export class WorldBase {
  readonly core: Core;
  /** The registry: the components in dependency order (`registry.ts`). */
  readonly definitions: readonly ComponentDefinition[];
  /** The components that need each component, by its name. */
  readonly dependents: ReadonlyMap<string, readonly ComponentDefinition[]>;
  /** The components with up-front checks, in dependency order. */
  readonly checked: readonly ComponentDefinition[];
  /** The public stores, by component name. */
  readonly components: Readonly<Record<string, object>>;
  readonly resources: WorldResources;
  /** bitecs' entity index when the observers were registered (a reset replaces it). */
  entityIndex: unknown;
  /** Unsubscribes the observers. */
  unobserve: (() => void)[] = [];
  /** What an add function hands to the add observer of its component, by name. */
  readonly pending: Record<string, unknown> = {};
  /** bitecs queries of the systems, by their terms; a world reset drops them. */
  readonly queries = new Map<string, { readonly dense: ArrayLike<number> }>();
  /** Per-entity problems the systems found, the fault mode and its callback. */
  readonly faults: FaultLog = new FaultLog();
  #stamp = 0;
  readonly #tables = new Map<string, JobTable>();

  constructor(core: Core, definitions: readonly ComponentDefinition[]) {
    definitions.forEach((component, at) => {
      for (const need of component.needs) {
        const needAt = definitions.indexOf(need);
        if (needAt < 0 || needAt > at) {
          throw new Error(`registry: ${component.name} needs ${need.name}, listed after it or not`);
        }
      }
    });
    this.core = core;
    this.definitions = definitions;
    this.dependents = new Map(
      definitions.map((d) => [d.name, definitions.filter((x) => x.needs.includes(d))]),
    );
    this.checked = definitions.filter((d) => d.check);
    this.resources = new WorldResources(coreMemory(core), definitions);
    const stores: Record<string, object> = {};
    for (const d of definitions) stores[d.name] = createStore(d.shape, 0);
    this.components = stores;
  }

  get owned(): MachineryRecord {
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
    for (const store of Object.values(this.components)) {
      growStore(store as Record<string, unknown>, capacity);
    }
    growStore(r.owned, capacity);
    r.capacity = capacity;
  }

  /** Clears entity `eid`'s fields of the store of component `name`. */
  clearStore(name: string, eid: number): void {
    if (eid < this.resources.capacity) {
      clearEntity(this.components[name] as Record<string, unknown>, eid);
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
