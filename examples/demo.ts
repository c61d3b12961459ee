/**
 * Marrow's main job: `deno task demo [file.gltf|file.glb] [--clip NAME]
 * [--count N] [--frames N]`.
 *
 * With no file it animates a crowd of generated skinned cylinders (64 of
 * 2,048 vertices on 30 joints, as in the demo of the Intel skinning paper);
 * with a glTF file it plays that character's first clip (or `--clip NAME`)
 * on `--count` instances. Each scene runs through the full pipeline on the
 * fastest core build and on the scalar path, and the demo prints time per
 * frame for each system.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationSystem,
  Core,
  type CoreBuild,
  createAnimation,
  createAnimationPipeline,
  getPose,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
import { createCylinder, wavePose } from "./cylinder.ts";
import { loadCharacter } from "./_gltf_character.ts";

/** What a demo scene is made of, independent of the core it runs on. */
export interface DemoCharacter {
  readonly name: string;
  readonly skeleton: SkeletonDefinition;
  /** All of the character's skinned primitives, merged into one skin. */
  readonly skin: SkinDefinition;
  /** Number of primitives merged into `skin`. */
  readonly primitives: number;
  /** Writes poses procedurally before the pipeline each frame, if given. */
  readonly animate?: (world: object, entities: readonly number[], time: number) => void;
  /** Extra per-entity setup (clip playback state) once the entities exist. */
  readonly setup?: (world: object, entities: readonly number[]) => void;
  /** Frame rate the animation is sampled at. */
  readonly fps: number;
}

/** The demo's own pose code: timed, but not part of Marrow's frame. */
const PROCEDURAL = "procedural poses (demo)";

interface Timings {
  readonly build: CoreBuild;
  readonly perSystem: Map<string, number>;
  readonly total: number;
}

function run(character: DemoCharacter, count: number, frames: number, build: CoreBuild): Timings {
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const skin = new SkinAsset(skeleton, character.skin);
  const entities: number[] = [];
  for (let i = 0; i < count; i++) {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    entities.push(eid);
  }
  character.setup?.(world, entities);
  const pipeline = createAnimationPipeline();
  let time = 0;
  const animate = character.animate;
  const systems: { name: string; run: AnimationSystem }[] = [
    ...(animate ? [{ name: PROCEDURAL, run: (w: object) => animate(w, entities, time) }] : []),
    ...pipeline.systems,
  ];
  const perSystem = new Map(systems.map((s) => [s.name, 0]));
  const warmup = Math.min(10, frames);
  for (let frame = -warmup; frame < frames; frame++) {
    time = Math.max(0, frame) / character.fps;
    for (const system of systems) {
      const start = performance.now();
      system.run(world, 1 / character.fps);
      if (frame >= 0) {
        perSystem.set(system.name, perSystem.get(system.name)! + performance.now() - start);
      }
    }
  }
  let total = 0;
  for (const [name, ms] of perSystem) {
    perSystem.set(name, ms / frames);
    if (name !== PROCEDURAL) total += ms / frames;
  }
  return { build, perSystem, total };
}

function cylinderCrowd(): DemoCharacter {
  const { skeleton, skin } = createCylinder({ joints: 30, segments: 32, rings: 64 });
  return {
    name: "generated cylinders (30 joints, 2,048 vertices, 1-4 influences)",
    skeleton,
    skin,
    primitives: 1,
    fps: 60,
    animate: (world, entities, time) => {
      entities.forEach((eid, i) => wavePose(getPose(world, eid), 30, time, i * 0.37));
    },
  };
}

function format(ms: number): string {
  return ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(1)} µs`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    allowPositionals: true,
    options: {
      clip: { type: "string" },
      count: { type: "string" },
      frames: { type: "string" },
    },
  });
  const path = positionals[0];
  const count = Number(values.count ?? (path ? 16 : 64));
  const frames = Number(values.frames ?? 300);
  for (const [name, value] of [["--count", count], ["--frames", frames]] as const) {
    if (!Number.isInteger(value) || value < 1) {
      console.error(`${name}: expected a whole number >= 1, got ${value}`);
      Deno.exit(2);
    }
  }
  let character: DemoCharacter;
  try {
    character = path ? await loadCharacter(path, values.clip) : cylinderCrowd();
  } catch (error) {
    console.error(`demo: ${error instanceof Error ? error.message : error}`);
    Deno.exit(1);
  }
  const vertices = character.skin.vertexCount;
  const influences = character.skin.joints.length;
  const jointCount = character.skeleton.parents.length;
  console.log(`Marrow demo: ${character.name}`);
  console.log(
    `scene: ${count} entities × ${jointCount} joints × ${vertices.toLocaleString("en")} vertices ` +
      `(${
        (influences / Math.max(1, vertices)).toFixed(2)
      } influences per vertex, ${character.primitives} primitive(s)); ` +
      `${frames} frames`,
  );
  const best = Core.default.build;
  console.log(`core build: ${best} (fastest this runtime supports)\n`);
  const results = [
    run(character, count, frames, best),
    run(character, count, Math.min(frames, 30), "scalar"),
  ];
  const names = [...results[0].perSystem.keys()];
  const rows = [
    ["system", ...results.map((r) => r.build), "speed-up"],
    ...names.map((name) => [
      name,
      ...results.map((r) => format(r.perSystem.get(name)!)),
      `${
        (results[1].perSystem.get(name)! / Math.max(1e-9, results[0].perSystem.get(name)!)).toFixed(
          1,
        )
      }x`,
    ]),
    [
      "Marrow frame total",
      ...results.map((r) => format(r.total)),
      `${(results[1].total / results[0].total).toFixed(1)}x`,
    ],
  ];
  const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
  for (const row of rows) {
    console.log(
      row.map((cell, c) => c ? cell.padStart(widths[c]) : cell.padEnd(widths[c])).join("  "),
    );
  }
  const perSecond = (r: Timings) => (count * vertices) / (r.total / 1000);
  console.log(
    `\nvertices skinned per second: ${
      results.map((r) => `${(perSecond(r) / 1e6).toFixed(1)} M (${r.build})`).join(", ")
    }`,
  );
}

if (import.meta.main) await main();
