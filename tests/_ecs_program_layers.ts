/**
 * The layer and root-motion commands of `ecs_programs_test.ts`'s programs
 * (`_ecs_program_commands.ts` adds and removes plain layers): locomotion
 * layers and their parameter, layer weights (with fades), masks and times,
 * good and bad, and root motion turned on and off. Each is refused, naming
 * the entity and holding no core memory, where the model says it must be
 * (no ClipPlayer, no such layer, a bad argument); where the model does not
 * know (a layer's time or parameter: whether it is a locomotion layer),
 * either outcome is accepted, a refusal checked the same way.
 *
 * @module
 */

import fc from "fast-check";
import { disableRootMotion, enableRootMotion } from "../clips.ts";
import {
  addLocomotionLayer,
  getLayers,
  MAX_LAYERS,
  setLayerMask,
  setLayerTime,
  setLayerWeight,
  setLocomotionParameter,
} from "../layers.ts";
import { entity, type Step } from "./_ecs_program_commands.ts";
import { attempt, call, expectFailure, type Harness } from "./_ecs_programs.ts";

/** The entity's layer count (0: it plays no clip). */
function layerCount(h: Harness, eid: number): number {
  return h.entities.get(eid)?.player ? getLayers(h.world, eid).length : 0;
}

export const layerSteps: fc.Arbitrary<[string, Step]>[] = [
  fc.nat().map((pick) => [`locomotion ${pick}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const clips = h.kinds[m.kind ?? 0].clips;
    const run = () =>
      addLocomotionLayer(h.world, eid, [{ clip: clips[0], at: 0 }, { clip: clips[1], at: 1 }], {
        weight: 0.7,
      });
    const layers = layerCount(h, eid);
    if (!m.player || layers >= MAX_LAYERS) return expectFailure(h, run, eid);
    call(h, run);
  }]),
  fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(0, 0.4, 1, 2), fc.constantFrom(0, 0.2, -1)).map((
    [pick, layer, weight, fade],
  ) => [`setLayerWeight ${pick} ${layer} ${weight} ${fade}`, (h: Harness) => {
    const eid = entity(h, pick);
    if (!h.entities.has(eid)) return;
    const run = () => setLayerWeight(h.world, eid, layer, weight, fade);
    if (layer >= layerCount(h, eid) || weight > 1 || fade < 0) return expectFailure(h, run, eid);
    call(h, run);
  }]),
  fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom("half", "none", "short")).map((
    [pick, layer, how],
  ) => [`setLayerMask ${pick} ${layer} ${how}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const joints = h.kinds[m.kind ?? 0].skeleton.jointCount;
    const mask = how === "none"
      ? undefined
      : new Float32Array(how === "half" ? joints : 1).fill(0.5);
    const run = () => setLayerMask(h.world, eid, layer, mask);
    if (layer >= layerCount(h, eid) || how === "short") return expectFailure(h, run, eid);
    call(h, run);
  }]),
  fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(0.25, NaN)).map(([pick, layer, time]) => [
    `setLayerTime ${pick} ${layer} ${time}`,
    (h: Harness) => {
      const eid = entity(h, pick);
      if (!h.entities.has(eid)) return;
      const run = () => setLayerTime(h.world, eid, layer, time, 1.5);
      // Layer 0's time is the ClipPlayer's; a locomotion layer has no clip time of its own.
      if (layer === 0 || layer >= layerCount(h, eid) || time !== time) {
        return expectFailure(h, run, eid);
      }
      attempt(h, run, eid);
    },
  ]),
  fc.tuple(fc.nat(), fc.nat(3), fc.constantFrom(0.5, Infinity)).map(([pick, layer, value]) => [
    `setLocomotionParameter ${pick} ${layer} ${value}`,
    (h: Harness) => {
      const eid = entity(h, pick);
      if (!h.entities.has(eid)) return;
      const run = () => setLocomotionParameter(h.world, eid, layer, value);
      if (layer === 0 || layer >= layerCount(h, eid) || value === Infinity) {
        return expectFailure(h, run, eid);
      }
      attempt(h, run, eid);
    },
  ]),
  fc.tuple(fc.nat(), fc.boolean()).map(([pick, on]) => [
    `rootMotion ${pick} ${on}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m) return;
      const run = on ? () => enableRootMotion(h.world, eid) : () => disableRootMotion(h.world, eid);
      if (!m.player) return expectFailure(h, run, eid);
      call(h, run);
    },
  ]),
];
