/**
 * Fuzzing the loader: seeded mutants of every freely licensed fixture, and
 * of the synthetic morph-target document (`_gltf_morph.ts`: dense, sparse
 * and normal-only targets, weights channels of each interpolation), which
 * no fixture has on a skinned primitive; every other mutant is imported
 * with `attachedMeshes` (bytes of the JSON changed, JSON numbers replaced by hostile values, GLB
 * header bytes flipped, truncations, and some binary-chunk flips), each
 * parsed with parseGltf and, when it loads, run through one frame of the
 * ECS pipeline. Every mutant must end in a successful load-and-frame or a
 * GltfImportError (nothing else, no hang), and the process's memory must
 * stay bounded. A share of the mutants must load and frame (overall, of the
 * kinds that keep a file mostly whole, and of every fixture): a loader that
 * refused every file would pass the rest. The seed, counts, time and peak
 * memory are printed.
 */

import "../scalar.ts";
import { assert, assertLess } from "@std/assert";
import { GltfImportError, parseGltf } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { frameModel } from "./_gltf_frame.ts";
import { random } from "./_scene.ts";
import { writeGlb } from "./_gltf_rig.ts";
import { morphDocument } from "./_gltf_morph.ts";
import { runs } from "./_arbitrary_numbers.ts";

const SEED = Number(Deno.env.get("MARROW_FUZZ_SEED") ?? 20261124);
const MUTANTS_PER_FIXTURE = runs(180, 36);
/**
 * Least shares of mutants that must load and frame: overall, and of the
 * kinds that keep a file mostly whole (seed 20261124: 24% overall, 40% of
 * JSON-number and 80% of binary-chunk mutants).
 */
const MIN_LOADED = { all: 0.15, "json-number": 0.25, "bin-bytes": 0.5 } as const;
/** Generous: the suite's own process with every fixture loaded stays well under it. */
const MAX_RSS = 1536 * 2 ** 20;

const FIXTURES = new URL("./fixtures/gltf/", import.meta.url);
/** Name of the synthetic morph document among the fixtures' names. */
const MORPH_FILE = "morph-targets.glb (synthetic)";
const FILES = [
  ...[...Deno.readDirSync(FIXTURES)]
    .filter((e) => e.isFile && /\.(glb|gltf)$/.test(e.name))
    .map((e) => e.name)
    .sort(),
  MORPH_FILE,
];
const morphBytes = await writeGlb(morphDocument());

/** Where the JSON text sits in the file (the whole file for .gltf). */
function jsonRange(bytes: Uint8Array): [number, number] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0x46546c67) return [0, bytes.length];
  return [20, 20 + view.getUint32(12, true)];
}

const HOSTILE_NUMBERS = [
  "0",
  "-1",
  "1",
  "3",
  "255",
  "65536",
  "16777216",
  "2147483648",
  "1e300",
  "-0.5",
  "null",
  '"x"',
  "[]",
  "{}",
];

/** One mutant of `bytes`, and a word for the kind of change. */
function mutate(bytes: Uint8Array, next: () => number): [Uint8Array, string] {
  const pick = (n: number) => Math.floor(next() * n);
  const [jsonStart, jsonEnd] = jsonRange(bytes);
  const kind = next();
  if (kind < 0.35) {
    // Replace one JSON number with a hostile value (keeps the GLB lengths valid by padding).
    const text = new TextDecoder().decode(bytes.subarray(jsonStart, jsonEnd));
    const numbers = [...text.matchAll(/-?\d+(\.\d+)?(e[-+]?\d+)?/gi)];
    if (numbers.length) {
      const match = numbers[pick(numbers.length)];
      const value = HOSTILE_NUMBERS[pick(HOSTILE_NUMBERS.length)];
      const changed = text.slice(0, match.index) + value +
        text.slice(match.index! + match[0].length);
      return [replaceJson(bytes, jsonStart, jsonEnd, changed), "json-number"];
    }
  }
  const out = bytes.slice();
  if (kind < 0.7) {
    for (let i = 1 + pick(3); i > 0; i--) out[jsonStart + pick(jsonEnd - jsonStart)] = pick(256);
    return [out, "json-bytes"];
  }
  if (kind < 0.8 && jsonStart > 0) {
    out[pick(20)] ^= 1 << pick(8);
    return [out, "header"];
  }
  if (kind < 0.9) return [bytes.slice(0, pick(bytes.length)), "truncation"];
  for (let i = 1 + pick(8); i > 0; i--) {
    const at = jsonEnd + pick(Math.max(1, bytes.length - jsonEnd));
    if (at < out.length) out[at] ^= 1 << pick(8);
  }
  return [out, "bin-bytes"];
}

/** The file with its JSON text replaced (GLB lengths updated). */
function replaceJson(bytes: Uint8Array, start: number, end: number, text: string): Uint8Array {
  let json = new TextEncoder().encode(text);
  if (start === 0) return json;
  const padded = new Uint8Array(Math.ceil(json.length / 4) * 4).fill(0x20);
  padded.set(json);
  json = padded;
  const out = new Uint8Array(bytes.length - (end - start) + json.length);
  out.set(bytes.subarray(0, start));
  out.set(json, start);
  out.set(bytes.subarray(end), start + json.length);
  const view = new DataView(out.buffer);
  view.setUint32(8, out.length, true);
  view.setUint32(12, json.length, true);
  return out;
}

Deno.test("fuzz: every mutant of every fixture loads and frames, or is a GltfImportError", async () => {
  const next = random(SEED);
  const core = Core.create("scalar");
  const outcomes = new Map<string, number>();
  const count = (key: string) => outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  const loadedOf = new Map<string, number>();
  const initial = Deno.memoryUsage().rss;
  let peak = initial, total = 0;
  const started = performance.now();
  for (const file of FILES) {
    const original = file === MORPH_FILE ? morphBytes : Deno.readFileSync(new URL(file, FIXTURES));
    for (let m = 0; m < MUTANTS_PER_FIXTURE; m++, total++) {
      const [bytes, kind] = mutate(original, next);
      const where = `${file} mutant ${m} (${kind}, seed ${SEED})`;
      let model;
      try {
        // Every other mutant also imports rigidly attached meshes.
        model = await parseGltf(bytes, { name: file, attachedMeshes: m % 2 === 1 });
      } catch (e) {
        if (!(e instanceof GltfImportError)) throw new Error(`${where}: ${e}`, { cause: e });
        assert(!e.message.includes("\n") && e.message.startsWith(file), `${where}: ${e.message}`);
        count(`${kind}: refused`);
        continue;
      }
      try {
        frameModel(model, core);
      } catch (e) {
        throw new Error(`${where} loaded but its frame failed: ${e}`, { cause: e });
      }
      count(`${kind}: loaded and framed`);
      loadedOf.set(file, (loadedOf.get(file) ?? 0) + 1);
      if (m % 10 === 0) peak = Math.max(peak, Deno.memoryUsage().rss);
    }
  }
  peak = Math.max(peak, Deno.memoryUsage().rss);
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `  ${total} mutants of ${FILES.length} fixtures in ${seconds.toFixed(1)} s, seed ${SEED}, ` +
      `RSS ${(initial / 2 ** 20).toFixed(0)} MiB before, peak ${
        (peak / 2 ** 20).toFixed(0)
      } MiB, core ${(core.allocatedBytes / 2 ** 20).toFixed(1)} MiB`,
  );
  for (const [key, n] of [...outcomes].sort()) console.log(`    ${key}: ${n}`);
  assert(total >= FILES.length * 36);
  assertLess(peak, MAX_RSS);
  const share = (kind?: string) => {
    let loaded = 0, all = 0;
    for (const [key, n] of outcomes) {
      if (kind && !key.startsWith(`${kind}: `)) continue;
      all += n;
      if (key.endsWith("loaded and framed")) loaded += n;
    }
    return loaded / Math.max(1, all);
  };
  for (const [kind, least] of Object.entries(MIN_LOADED)) {
    const got = share(kind === "all" ? undefined : kind);
    assert(
      got >= least,
      `${kind}: ${(got * 100).toFixed(0)}% of mutants loaded, expected ${least * 100}%`,
    );
  }
  for (const file of FILES) assert((loadedOf.get(file) ?? 0) > 0, `no mutant of ${file} loaded`);
});
