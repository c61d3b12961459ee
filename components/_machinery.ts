/**
 * The lifecycle of Marrow's components in a bitecs world: one add observer
 * per component allocates an entity's data (whichever function added it),
 * one remove observer frees it and removes the components that need it
 * (whichever function removed it: Marrow's, bitecs' `removeComponent` or
 * `removeEntity`), and every entry point notices a `resetWorld` or
 * `deleteWorld` and releases what the world held.
 *
 * It names no component: it runs the definitions of the registry the world
 * was created with (`WorldBase.definitions`), whose `needs` it enforces: an
 * add whose prerequisites are missing is undone and throws a
 * `ComponentError`; removing a prerequisite removes its dependents.
 *
 * @module
 */

import { entityExists, observe, onAdd, onRemove, query, removeComponent } from "bitecs";
import { ComponentError } from "./errors.ts";
import type { ComponentDefinition, WorldBase, WorldResources } from "./_world.ts";
import { describeValue } from "../simd/memory/internal.ts";

const BITECS_INTERNAL = Symbol.for("bitecs_internal");

/** bitecs 0.4's per-world context; `resetWorld` replaces its entity index. */
function bitecsContext(world: object): { entityIndex: unknown } | undefined {
  const context = (world as Record<symbol, unknown>)[BITECS_INTERNAL];
  // An object answering every key (a proxy) is no world: bitecs reads these maps.
  if (
    typeof context !== "object" || context === null ||
    !((context as { componentMap?: unknown }).componentMap instanceof Map) ||
    !((context as { entityComponents?: unknown }).entityComponents instanceof Map)
  ) return undefined;
  return context as { entityIndex: unknown };
}

const states = new WeakMap<object, WorldBase>();
/** Releases a collected world's core memory. */
const collectedWorlds = new FinalizationRegistry<WorldResources>((resources) =>
  resources.releaseAll()
);

/** @internal Registers `world`'s new state and observes it. */
export function registerWorld(world: object, state: WorldBase): void {
  states.set(world, state);
  collectedWorlds.register(world, state.resources, state);
  observeWorld(world, state);
}

/** @internal The state of `world` if it has one, without checks. */
export function existingState(world: object): WorldBase | undefined {
  return states.get(world);
}

/** @internal Whether bitecs still knows `world` as `state` observed it. */
export function isObserved(world: object, state: WorldBase): boolean {
  return bitecsContext(world)?.entityIndex === state.entityIndex;
}

/** @internal Whether `world` is a live bitecs world. */
export function isBitecsWorld(world: object): boolean {
  return !!bitecsContext(world);
}

/** @internal Stops observing `world` and releases everything it held. */
export function forget(world: object, state: WorldBase): void {
  for (const unobserve of state.unobserve) unobserve();
  state.unobserve = [];
  state.resources.releaseAll();
  state.forgetJobs();
  collectedWorlds.unregister(state);
  states.delete(world);
}

/**
 * @internal The state of `world`, or a TypeError naming `caller`. Notices
 * a `deleteWorld` (releases everything, then throws) and a `resetWorld`
 * (releases everything, observes the fresh world, and removes components
 * bitecs let code add while nobody was observing). With `eid`, a
 * TypeError when it is neither a number nor undefined: stores are indexed
 * by it, and indexing by an object runs its conversion to a key.
 */
export function stateOf(world: object, caller: string, eid?: unknown): WorldBase {
  if (eid !== undefined && typeof eid !== "number") {
    throw new TypeError(`${caller}: entity: expected a number, got ${describeValue(eid)}`);
  }
  const state = states.get(world);
  if (!state) {
    throw new TypeError(`${caller}: the world has no animation: call createAnimation(world) first`);
  }
  const context = bitecsContext(world);
  if (!context) {
    forget(world, state);
    throw new TypeError(`${caller}: the world was deleted (deleteWorld)`);
  }
  if (context.entityIndex !== state.entityIndex) {
    for (const unobserve of state.unobserve) unobserve();
    state.resources.releaseAll();
    state.forgetJobs();
    // The entities the faults name are gone with the reset.
    state.faults.clear();
    const removalOrder = state.resources.removalOrder;
    for (const { name } of removalOrder) {
      for (let eid = 0; eid < state.resources.capacity; eid++) state.clearStore(name, eid);
    }
    observeWorld(world, state);
    for (const { name } of removalOrder) {
      const component = state.components[name];
      for (const eid of Array.from(query(world, [component]))) {
        removeComponent(world, eid, component);
      }
    }
  }
  return state;
}

function observeWorld(world: object, state: WorldBase): void {
  state.entityIndex = bitecsContext(world)!.entityIndex;
  state.unobserve = state.resources.removalOrder.flatMap((definition) => {
    const component = state.components[definition.name];
    const dependents = state.dependents.get(definition.name)!;
    return [
      observe(world, onAdd(component), (eid: number) => {
        dropKeptRows(state);
        try {
          state.ensureCapacity(eid);
          allocate(state, definition, eid);
        } catch (error) {
          removeComponent(world, eid, component);
          throw error;
        }
      }),
      observe(world, onRemove(component), (eid: number) => {
        dropKeptRows(state);
        for (const dependent of dependents) {
          removeComponent(world, eid, state.components[dependent.name]);
        }
        release(state.resources, definition, eid);
        state.clearStore(definition.name, eid);
      }),
    ];
  });
}

/**
 * Drops every kept job row of the world: a component added or removed
 * changes what an entity owns (its blocks, its skeleton, its skin) and the
 * entities of the systems' queries.
 */
function dropKeptRows(state: WorldBase): void {
  for (const table of state.resources.tables) table.drop();
}

/**
 * Allocates entity `eid`'s data for `definition`, or throws a
 * ComponentError: its first need is checked before its data (the
 * Skeleton, which every add function checks first), the others after.
 */
function allocate(state: WorldBase, definition: ComponentDefinition, eid: number): void {
  const { name, needs } = definition;
  const data = state.pending[name];
  state.pending[name] = undefined;
  if (needs.length > 0) checkNeed(state, definition, needs[0], eid);
  if (definition.addWith !== undefined && data === undefined) {
    throw new ComponentError(
      eid,
      name,
      `add it with ${definition.addWith}, which gives it its data`,
    );
  }
  for (let i = 1; i < needs.length; i++) checkNeed(state, definition, needs[i], eid);
  definition.allocate(state, eid, data);
}

function checkNeed(
  state: WorldBase,
  definition: ComponentDefinition,
  need: ComponentDefinition,
  eid: number,
): void {
  if (!need.has(state, eid)) {
    throw new ComponentError(
      eid,
      definition.name,
      `the entity needs a ${need.name} first (${need.addedBy})`,
    );
  }
}

/** Frees what entity `eid` holds for `definition`. */
function release(resources: WorldResources, definition: ComponentDefinition, eid: number): void {
  if (eid < resources.capacity) definition.release(resources, eid);
}

/** @internal Checks the entity exists in `world`, or a ComponentError. */
export function checkEntity(world: object, eid: number, component: string): void {
  if (!Number.isInteger(eid) || eid < 0 || !entityExists(world, eid)) {
    throw new ComponentError(eid, component, "the entity does not exist in this world");
  }
}
