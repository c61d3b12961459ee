/**
 * The lifecycle as the code above the components (systems, layers, views)
 * uses it: the world's state, every component's store and record typed by
 * the registry. The machinery itself (`_machinery.ts`) runs below the
 * components and knows none of them.
 *
 * @module
 */

import { stateOf as machineryStateOf } from "./_machinery.ts";
import type { WorldState } from "./registry.ts";

/**
 * @internal The state of `world`, or a TypeError naming `caller`; notices a
 * `resetWorld` or `deleteWorld` (`_machinery.ts`).
 */
export const stateOf = machineryStateOf as (
  world: object,
  caller: string,
  eid?: unknown,
) => WorldState;
