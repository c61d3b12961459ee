/**
 * The systems one by one, a command of `ecs_programs_test.ts`'s programs
 * (`_ecs_program_commands.ts` has the others): a frame as a game without
 * the pipeline calls it, each system with its own tables and checks (the
 * skinning systems' palette scans, kept with their rows, among them),
 * compared with the model like the pipeline's frame.
 *
 * @module
 */

import fc from "fast-check";
import {
  ikSystem,
  multiplyInverseBindSystem,
  quatToMatSystem,
  sampleClipsSystem,
  skinSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import type { Harness } from "./_ecs_programs.ts";
import { frame, type Step } from "./_ecs_program_commands.ts";

function systemsOneByOne(world: object, dt: number): void {
  sampleClipsSystem(world, dt);
  quatToMatSystem(world);
  transformSkeletonSystem(world);
  ikSystem(world);
  multiplyInverseBindSystem(world);
  skinSystem(world);
  skinWithTangentsSystem(world);
}

export const systemSteps: fc.Arbitrary<[string, Step]>[] = [
  fc.double({ min: 0, max: 0.1, noNaN: true }).map((dt) => [
    `systems one by one ${dt}`,
    (h: Harness) => frame(h, null, dt, systemsOneByOne),
  ]),
];
