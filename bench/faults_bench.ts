/**
 * What fault isolation costs a healthy frame: the same world in the
 * `"throw"` fault mode (baseline: no last good copy kept) and in the
 * default `"isolate"` mode (the inverse-bind multiply also writes each good
 * entity's model matrices to its last good block, 48 bytes per joint, from
 * the cache as it reads them), on 1,000 characters × 20 joints with small
 * meshes, relaxed SIMD: the multiply-inverse-bind system alone, and the
 * whole frame.
 */
import {
  createAnimation,
  createAnimationPipeline,
  type FaultMode,
  getPose,
  multiplyInverseBindSystem,
} from "../mod.ts";
import { wavePose } from "../procedural/cylinder.ts";
import { createScene } from "../tests/_scene.ts";

const ENTITIES = 1000, JOINTS = 20;

function scene(faults: FaultMode) {
  const { world, entities } = createScene("relaxed-simd", ENTITIES, {
    joints: JOINTS,
    segments: 8,
    rings: 8,
  });
  createAnimation(world, { faults });
  entities.forEach((eid, i) => wavePose(getPose(world, eid), JOINTS, 0.5, i));
  return world;
}

const worlds = { throw: scene("throw"), isolate: scene("isolate") };
const animate = createAnimationPipeline();

for (const mode of ["throw", "isolate"] as const) {
  Deno.bench({
    name: `multiplyInverseBindSystem, fault mode "${mode}"`,
    group: "fault isolation (multiplyInverseBind, 1,000 entities × 20 joints)",
    baseline: mode === "throw",
    fn: () => multiplyInverseBindSystem(worlds[mode]),
  });
  Deno.bench({
    name: `animate, fault mode "${mode}"`,
    group: "fault isolation (frame, 1,000 entities × 20 joints, small meshes)",
    baseline: mode === "throw",
    fn: () => animate(worlds[mode], 0),
  });
}
