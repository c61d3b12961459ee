/**
 * Every function and class of every checked public entry, called with
 * hostile arguments in its first positions (after a world, an entity, a
 * clip, assets or buffers where it takes them): a symbol, a bigint, an
 * object whose conversion to a primitive throws, one without a prototype,
 * a function, NaN, -1, 1.5, 2^31, arrays of NaN, of values past float32
 * and with a symbol, and an options object (or array-like) whose every
 * field is one of these. A refused call must leave the core's bytes and a
 * character's pose, clip, time and layers as they were. Each call
 * must return, or throw an error of its own: not a message of the
 * runtime's ("Cannot read properties of undefined", "Cannot convert a
 * Symbol value to a string"), which names neither the argument nor the
 * function, and not the caller's own conversion error, which means a
 * check or a message ran the caller's code. Nothing it made may throw
 * later, from the collector's finalization.
 *
 * The errors' classes are left out: they are exported for `instanceof`,
 * and Marrow makes them.
 */

import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import * as main from "../mod.ts";
import { collectUntil } from "./_collect.ts";
import { RUN_LEVEL } from "./_run_level.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";
import { addLayer, getLayers } from "../layers.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { addTwoBoneIK } from "../ik.ts";
import { setLevelOfDetailByDistance } from "../lod.ts";
import { importGltf } from "../gltf/mod.ts";
import { Core, MatrixBuffer, ParentIndices, PoseBuffer } from "../kernels.ts";

/** A glTF model's skeleton (clips, primitives) for the importer's functions. */
const fox = (await importGltf(new URL("fixtures/gltf/Fox.glb", import.meta.url))).skeletons[0];

const ENTRIES: Record<string, () => Promise<Record<string, unknown>>> = {
  "mod.ts": () => import("../mod.ts"),
  "gltf/mod.ts": () => import("../gltf/mod.ts"),
  "layers.ts": () => import("../layers.ts"),
  "ik.ts": () => import("../ik.ts"),
  "lod.ts": () => import("../lod.ts"),
  "clips.ts": () => import("../clips.ts"),
  "retarget.ts": () => import("../retarget.ts"),
  "morph.ts": () => import("../morph.ts"),
  "kernels.ts": () => import("../kernels.ts"),
  "procedural/cylinder.ts": () => import("../procedural/cylinder.ts"),
};

/** What the runtime says when code reads or converts a value it did not check. */
const RUNTIME_MESSAGES = [
  /Cannot read propert/,
  /Cannot set propert/,
  /Cannot create property/,
  /Cannot assign to read only/,
  /not extensible/,
  /Cannot define property/,
  /Cannot destructure/,
  /is not a function/,
  /is not iterable/,
  /is not a constructor/,
  /Cannot convert/,
  /Cannot mix BigInt/,
  /Invalid array length/,
  /Invalid typed array length/,
  /out of bounds/,
  /Maximum call stack/,
  /unreachable/,
];

/** Thrown by the hostile values' conversions: a call that throws it ran the caller's code. */
const CONVERTED = "hostile value converted";

function convertedToPrimitive(): never {
  throw new Error(CONVERTED);
}

/** An object whose every conversion to a primitive throws. */
const unconvertible = {
  toString: convertedToPrimitive,
  valueOf: convertedToPrimitive,
  [Symbol.toPrimitive]: convertedToPrimitive,
};

const ALL_HOSTILE: readonly [string, unknown][] = [
  ["a symbol", Symbol("hostile")],
  ["a bigint", 7n],
  ["an object that cannot be converted", unconvertible],
  ["an object without a prototype", Object.create(null)],
  ["a function", convertedToPrimitive],
  ["NaN", NaN],
  ["-1", -1],
  ["1.5", 1.5],
  ["2 ** 31", 2 ** 31],
  ["an array with a symbol", [0, 0, Symbol("hostile"), 1]],
  ["an array of NaN", [NaN, NaN, NaN, NaN]],
  ["an array past float32", [1e39, -1e39, 1e39, 1]],
];

/**
 * The values tried: at the fast level (`deno task test`), one of each kind
 * (about half the time); every one at the others (CI runs thorough).
 */
const HOSTILE = RUN_LEVEL === "fast"
  ? ALL_HOSTILE.filter(([given]) =>
    ["a symbol", "an object that cannot be converted", "2 ** 31", "-1", "an array with a symbol"]
      .includes(given)
  )
  : ALL_HOSTILE;

/** Options (or any object) whose every field is `value`. */
function everyField(value: unknown): object {
  return new Proxy({}, { get: (_target, key) => key === "then" ? undefined : value });
}

/**
 * The argument lists tried with `value`: first, and after a world, an
 * entity, a clip, a skeleton and a skin; the entity is bare, or a
 * character that plays a clip with a layer and an IK chain (so that calls
 * pass their first checks and reach the later arguments).
 */
function argumentLists(
  value: unknown,
): { lists: unknown[][]; observed: () => string; dispose: () => void } {
  const world = createWorld();
  main.createAnimation(world);
  const bare = addEntity(world);
  const cylinder = createCylinder({ joints: 4, segments: 4, rings: 4 });
  const skeleton = new main.SkeletonAsset(cylinder.skeleton);
  const skin = new main.SkinAsset(skeleton, cylinder.skin);
  const clip = waveClip(4, { keys: 4 });
  const character = addEntity(world);
  main.addCharacter(world, character, skeleton, skin);
  main.playClip(world, character, clip);
  addLayer(world, character, clip, { weight: 0.5 });
  addTwoBoneIK(world, character, { start: 1, mid: 2, end: 3, target: [0, 1, 0] });
  const options = everyField(value);
  const lists: unknown[][] = [[value], [options], [value, value], [clip, value], [clip, options]];
  const pose = new PoseBuffer(4), matrices = new MatrixBuffer(4);
  const parents = new ParentIndices([-1, 0, 1, 2]);
  for (
    const before of [
      [skeleton],
      [skeleton, skin],
      [skin],
      [clip, skeleton],
      [fox],
      [fox.primitives[0]],
      [pose],
      [pose, matrices],
      [matrices, matrices, parents],
    ]
  ) {
    lists.push([...before, value], [...before, options], [...before, value, value]);
  }
  for (const eid of [bare, character]) {
    lists.push(
      [world, value],
      [world, options],
      [world, eid, value],
      [world, eid, options],
      [world, eid, 0, value],
      [world, eid, 1, value],
      [world, eid, 0, options],
      [world, eid, clip, value],
      [world, eid, clip, options],
      [world, eid, skeleton, value],
      [world, eid, skeleton, skin, value],
      [world, eid, clip, 0.5, value],
      [world, eid, 1, 0.5, value],
      [world, eid, 0, [0, 0, 0], value],
      [world, eid, 0, [0, 0, 0], [0, 0, 0, 1], value],
    );
  }
  // What a refused call must leave as it was: the core's bytes, and what the
  // character shows (its pose, clip, time, layers).
  const observed = () => {
    const bytes = coreMemory(Core.default).allocatedBytes;
    try {
      const playback = main.getPlayback(world, character);
      const layers = getLayers(world, character).map((l) => [l.clip.name, l.weight, l.time]);
      const pose = Array.from(main.getPose(world, character));
      return JSON.stringify([bytes, playback.clip.name, playback.time, layers, pose]);
    } catch (e) {
      return JSON.stringify([bytes, `unavailable: ${e}`]);
    }
  };
  // What the calls left is given back (a call may have disposed some already).
  const dispose = () => {
    const steps = [
      () => main.disposeAnimation(world),
      () => skin.dispose(),
      () => skeleton.dispose(),
      () => pose.free(),
      () => matrices.free(),
      () => parents.free(),
    ];
    for (const step of steps) {
      try {
        step();
      } catch {
        // Already given back by a call.
      }
    }
  };
  return { lists, observed, dispose };
}

function isClass(value: unknown): boolean {
  return typeof value === "function" && /^class\b/.test(Function.prototype.toString.call(value));
}

function isErrorClass(value: unknown): boolean {
  return typeof value === "function" && value.prototype instanceof Error;
}

/** The calls' failures that are not Marrow's own errors, by entry, export and message. */
async function runtimeFailures(): Promise<string[]> {
  const found = new Set<string>();
  const check = (where: string, given: string, error: unknown) => {
    const message = error instanceof Error ? error.message : `a ${typeof error} was thrown`;
    if (
      !(error instanceof Error) || message === CONVERTED ||
      RUNTIME_MESSAGES.some((pattern) => pattern.test(message))
    ) found.add(`${where} with ${given}: ${message}`);
  };
  for (const [entry, load] of Object.entries(ENTRIES)) {
    for (const [name, value] of Object.entries(await load())) {
      if (typeof value !== "function" || isErrorClass(value)) continue;
      const construct = isClass(value);
      for (const [given, hostile] of HOSTILE) {
        const { lists, observed, dispose } = argumentLists(hostile);
        for (const args of lists) {
          const where = `${entry} ${name}(${args.length} arguments)`;
          const before = observed();
          const refused = (e: unknown) => {
            check(where, given, e);
            const after = observed();
            if (after !== before) {
              found.add(`${where} with ${given}: refused, but changed ${before} to ${after}`);
            }
          };
          try {
            const result = construct
              ? Reflect.construct(value, args)
              : Reflect.apply(value, undefined, args);
            if (result instanceof Promise) await result.catch(refused);
          } catch (e) {
            refused(e);
          }
        }
        dispose();
      }
    }
  }
  return [...found].sort();
}

Deno.test("hostile arguments to every public function get Marrow's own errors", async () => {
  assertEquals(await runtimeFailures(), []);
});

Deno.test("CoreAsset makes only Marrow's assets, and nothing throws when collected", async () => {
  const uncaught: unknown[] = [];
  const onError = (event: ErrorEvent) => {
    uncaught.push(event.error);
    event.preventDefault();
  };
  globalThis.addEventListener("error", onError);
  let made = 0, collected = 0;
  const watch = new FinalizationRegistry(() => collected++);
  try {
    const refused: string[] = [];
    const release = () => {};
    const calls: [string, unknown[]][] = [
      ...HOSTILE.map(([given, hostile]): [string, unknown[]] => [given, [hostile]]),
      ["a release function", [release]],
    ];
    for (const [given, args] of calls) {
      try {
        watch.register(Reflect.construct(main.CoreAsset, args), 0);
        made++;
      } catch (e) {
        if (e instanceof TypeError && /CoreAsset: only Marrow's assets/.test(e.message)) {
          refused.push(given);
        }
      }
    }
    await collectUntil(() => collected === made);
    await new Promise((resolve) => setTimeout(resolve, 10));
    // A subclass of the game's own is refused too: its release would run unguarded.
    class GameAsset extends main.CoreAsset {
      constructor() {
        super(release);
      }
    }
    try {
      watch.register(new GameAsset(), 0);
      made++;
    } catch (e) {
      if (e instanceof TypeError) refused.push("a subclass");
    }
    assertEquals(refused.length, calls.length + 1, `refused: ${refused.join(", ")}`);
  } finally {
    globalThis.removeEventListener("error", onError);
  }
  assertEquals(uncaught, []);
});

Deno.test("a list of entities past the bound is refused before an id is read", () => {
  const world = createWorld();
  main.createAnimation(world);
  let reads = 0;
  // Ids past the world's entities are skipped, not refused: a list that
  // makes them up for ever kept a call looping.
  const endless = new Proxy({ length: 2 ** 31 }, {
    get: (target, key) => {
      if (key === "length") return target.length;
      if (++reads > 1000) throw new Error("read past the bound");
      return 2 ** 30 + reads;
    },
  }) as unknown as ArrayLike<number>;
  const systems: [string, () => void][] = [
    ["sampleClipsSystem", () => main.sampleClipsSystem(world, 1 / 60, endless)],
    ["ikSystem", () => main.ikSystem(world, endless)],
    ["skinSystem", () => main.skinSystem(world, { entities: endless })],
    ["animate", () => main.createAnimationPipeline(world)(world, 1 / 60, endless)],
    [
      "setLevelOfDetailByDistance",
      () => setLevelOfDetailByDistance(world, endless, [0, 0, 0], [{ maxDistance: 1 }]),
    ],
  ];
  for (const [name, run] of systems) {
    reads = 0;
    const error = assertThrows(run, RangeError);
    assertEquals([name, reads], [name, 0], (error as Error).message);
  }
});

Deno.test("setLevelOfDetailByDistance reads each listed id once: its checks and writes see one list", () => {
  const world = createWorld();
  main.createAnimation(world);
  const cylinder = createCylinder({ joints: 4, segments: 4, rings: 4 });
  const skeleton = new main.SkeletonAsset(cylinder.skeleton);
  const skin = new main.SkinAsset(skeleton, cylinder.skin);
  const crowd = [addEntity(world), addEntity(world)];
  for (const eid of crowd) main.addCharacter(world, eid, skeleton, skin);
  main.createAnimationPipeline(world)(world, 1 / 60);
  let reads = 0;
  const list = new Proxy(crowd, {
    get: (target, key) => {
      if (typeof key === "string" && /^\d+$/.test(key)) reads++;
      return Reflect.get(target, key);
    },
  });
  setLevelOfDetailByDistance(world, list, [0, 0, 0], [{ maxDistance: 1e6, updateRate: 2 }]);
  assertEquals(reads, crowd.length);
});

Deno.test("a clip whose channel has a hostile field gets a ClipError naming the channel", () => {
  const channel = {
    joint: 0,
    path: "translation",
    interpolation: "LINEAR",
    times: new Float32Array([0, 1]),
    values: new Float32Array(6),
  };
  const failures: string[] = [];
  for (const field of ["joint", "path", "interpolation", "times", "values"]) {
    for (const [given, hostile] of ALL_HOSTILE) {
      const channels = [{ ...channel, [field]: hostile }] as unknown as main.ClipChannel[];
      try {
        main.createClip({ name: "hostile", channels });
        failures.push(`${field} = ${given}: accepted`);
      } catch (e) {
        if (!(e instanceof main.ClipError) || !/channel 0/.test(e.message)) {
          failures.push(`${field} = ${given}: ${e}`);
        }
      }
    }
  }
  assertEquals(failures, []);
});
