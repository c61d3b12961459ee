/**
 * The level-of-detail commands of `ecs_programs_test.ts`'s programs
 * (`_ecs_program_commands.ts` has the others): a random update rate,
 * culling and pause set on an entity (refused, naming it, without a
 * Skeleton), and the component removed (refused without one). The frame
 * check takes an entity with a level of detail as skinned from its pose
 * or as it was before the frame.
 *
 * @module
 */

import fc from "fast-check";
import { removeLevelOfDetail, setLevelOfDetail } from "../lod.ts";
import { entity, type Step } from "./_ecs_program_commands.ts";
import { call, expectFailure, type Harness } from "./_ecs_programs.ts";

export const lodSteps: fc.Arbitrary<[string, Step]>[] = [
  fc.tuple(
    fc.integer({ min: -1, max: 50 }),
    fc.integer({ min: 1, max: 4 }),
    fc.boolean(),
    fc.boolean(),
  )
    .map(([pick, rate, visible, paused]) => [
      `setLevelOfDetail ${pick} ${rate} ${visible} ${paused}`,
      (h: Harness) => {
        const eid = entity(h, pick), m = h.entities.get(eid);
        const run = () =>
          setLevelOfDetail(h.world, eid, { updateRate: rate, visible, pausedWhenCulled: paused });
        if (!m || m.kind === undefined) return expectFailure(h, run, eid);
        call(h, run);
        m.lod = true;
      },
    ]),
  fc.nat().map((pick) => [`removeLevelOfDetail ${pick}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const run = () => removeLevelOfDetail(h.world, eid);
    if (!m.lod) return expectFailure(h, run, eid);
    call(h, run);
    m.lod = false;
  }]),
];
