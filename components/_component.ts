/**
 * How a component is written: {@linkcode defineComponent} makes its
 * definition (name, dependencies, public store, private record, allocate,
 * release, check, messages) in the component's own file, typed by its
 * fields; the lifecycle machinery (`_lifecycle.ts`) runs any definition the
 * registry (`registry.ts`) lists. Also what every component's add, remove
 * and check functions share: the add with data, the remove, and the
 * messages of a missing or tampered component.
 *
 * @module
 */

import { addComponent, hasComponent, removeComponent } from "bitecs";
import type { Store, StoreShape } from "./_stores.ts";
import { ComponentError } from "./errors.ts";
import type { ComponentDefinition, WorldBase } from "./_world.ts";
import { checkEntity, stateOf } from "./_machinery.ts";
import { describeValue } from "../simd/memory/internal.ts";

/**
 * @internal A component's definition, typed by its name `N`, its public
 * store's fields `S`, its private record's fields `R` and the data `D` its
 * add function hands to its add observer.
 */
interface Component<N extends string, S extends StoreShape, R extends StoreShape, D>
  extends ComponentDefinition {
  readonly name: N;
  readonly shape: S;
  readonly record: R;
  allocate(state: WorldBase, eid: number, data: D | undefined): void;
  /** The private record of `holder` (a world's state or resources), its fields typed. */
  recordOf(holder: { readonly owned: object }): Store<R>;
}

/**
 * @internal The public store of a component's definition `C`, its fields
 * typed; read by its constant name (`state.components.Skin as
 * StoreOf<typeof SKIN>`), which is faster in a frame than a lookup by a
 * name one shared function is given.
 */
export type StoreOf<C> = C extends Component<string, infer S, StoreShape, never> ? Store<S> : never;

/** @internal What a component's file writes; {@linkcode defineComponent} adds the accessors. */
type ComponentSpec<N extends string, S extends StoreShape, R extends StoreShape, D> = Omit<
  Component<N, S, R, D>,
  "recordOf"
>;

/** @internal The definition of a component, with typed access to its record. */
export function defineComponent<
  N extends string,
  S extends StoreShape,
  R extends StoreShape,
  D = never,
>(spec: ComponentSpec<N, S, R, D>): Component<N, S, R, D> {
  return {
    ...spec,
    recordOf: (holder) => holder.owned as Store<R>,
  };
}

/**
 * @internal Adds `component` to entity `eid`, handing `data` to its add
 * observer (which allocates from it); the caller checked everything else.
 */
export function addWithData<D>(
  world: object,
  state: WorldBase,
  component: Component<string, StoreShape, StoreShape, D>,
  eid: number,
  data: D,
): void {
  state.pending[component.name] = data;
  try {
    addComponent(world, eid, state.components[component.name]);
  } finally {
    state.pending[component.name] = undefined;
  }
}

/** @internal Adds `component`, which takes no data, to entity `eid` of `world` (`caller`). */
export function addPlain(
  world: object,
  caller: string,
  component: ComponentDefinition,
  eid: number,
): void {
  addComponent(world, eid, storeChecked(world, caller, component, eid, false));
}

/**
 * @internal Removes `component` from entity `eid` of `world` (`caller`), and
 * with it the components that need it; a `ComponentError` if it has none.
 */
export function removeOwn(
  world: object,
  caller: string,
  component: ComponentDefinition,
  eid: number,
): void {
  removeComponent(world, eid, storeChecked(world, caller, component, eid, true));
}

/**
 * The store of `component` in `world`, once entity `eid` is checked to
 * exist and to have the component (`present`) or not.
 */
function storeChecked(
  world: object,
  caller: string,
  component: ComponentDefinition,
  eid: number,
  present: boolean,
): object {
  const state = stateOf(world, caller, eid), name = component.name;
  checkEntity(world, eid, name);
  const store = state.components[name];
  if (hasComponent(world, eid, store) !== present) {
    throw new ComponentError(
      eid,
      name,
      present ? `the entity has no ${name} (removed twice?)` : `the entity already has a ${name}`,
    );
  }
  return store;
}

/** A store value as a message shows it: assets by kind and size, not `[object Object]`. */
function shown(value: unknown): string {
  if (value === null || typeof value !== "object") return describeValue(value);
  const size = value as { jointCount?: number; vertexCount?: number };
  if (typeof size.vertexCount === "number") return `another skin (${size.vertexCount} vertices)`;
  if (typeof size.jointCount === "number") return `another skeleton (${size.jointCount} joints)`;
  return `an object that is not Marrow's (${value.constructor?.name ?? "no constructor"})`;
}

/** @internal The error of a store field game code changed. */
export function tampered(
  eid: number,
  component: string,
  field: string,
  value: unknown,
  expected: unknown,
): ComponentError {
  return new ComponentError(
    eid,
    component,
    `${field} is ${
      shown(value)
    }, but Marrow set it to ${expected}: the fields the core uses are read-only (remove and add the component to change them)`,
    field,
  );
}

/** @internal The error of a component the entity does not have. */
export function missing(eid: number, component: string): ComponentError {
  return new ComponentError(eid, component, `the entity has no ${component}`);
}
