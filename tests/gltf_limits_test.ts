/**
 * The glTF loader's count limits bound a parse's time and memory: JSON
 * bytes and values, nodes, accessors, and every other list the loader reads
 * (`DEFAULT_GLTF_LIMITS`). A file one past a limit is refused with a
 * `GltfImportError` naming the limit at the list's JSON pointer, before the
 * work: the JSON limits before the text is parsed (text that would not
 * parse gets the limit's error, not the parse's), the list limits before
 * any entry is read (a list whose entries are all bad gets the limit's
 * error, not the first entry's). A file at every limit at once is accepted.
 * A 62 MB file of 1.1 million empty nodes and accessors used to take 60 s
 * and 4.35 GB to parse.
 *
 * No timing is asserted: what runs after the limits is linear in the
 * counts (the value scan is checked against a recursive count of the
 * parsed JSON, an independent count; the README gives the measured worst
 * case).
 */

import fc from "fast-check";
import { assertEquals, assertRejects } from "@std/assert";
import { DEFAULT_GLTF_LIMITS, GltfImportError, type GltfLimits, parseGltf } from "../gltf/mod.ts";
import { countJsonValues } from "../gltf/_container.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const { maxNodes, maxAccessors, maxObjects, maxJsonValues, maxJsonBytes } = DEFAULT_GLTF_LIMITS;

/** A file of `nodes` empty nodes, `accessors` one-element bufferless accessors, and `rest` more. */
function gltf(nodes: number, accessors: number, rest: Record<string, unknown> = {}): string {
  return JSON.stringify({
    asset: { version: "2.0" },
    nodes: Array.from({ length: nodes }, () => ({})),
    accessors: Array.from({ length: accessors }, () => ({
      componentType: 5126,
      count: 1,
      type: "SCALAR",
    })),
    ...rest,
  });
}

/** Parsing `text` fails at `pointer` naming `limit`. */
async function assertRefused(
  text: string | Uint8Array,
  limit: keyof GltfLimits,
  pointer: string,
  limits?: GltfLimits,
): Promise<void> {
  const bytes = typeof text === "string" ? encode(text) : text;
  const error = await assertRejects(() => parseGltf(bytes, { limits }), GltfImportError);
  assertEquals(error.pointer, pointer, error.message);
  assertEquals(error.message.includes(`limits.${limit}`), true, error.message);
}

Deno.test("one node, accessor or other object past its limit is refused at its list", async () => {
  await assertRefused(gltf(maxNodes + 1, 1), "maxNodes", "/nodes");
  await assertRefused(gltf(1, maxAccessors + 1), "maxAccessors", "/accessors");
  const views = (n: number) => Array.from({ length: n }, () => ({ buffer: 0, byteLength: 4 }));
  await assertRefused(
    gltf(1, 1, {
      buffers: [{ byteLength: 4, uri: "data:;base64,AAAAAA==" }],
      bufferViews: views(maxObjects),
    }),
    "maxObjects",
    "/bufferViews",
  );
  // The other lists count together: meshes and their primitives with buffer views.
  const primitive = { attributes: { POSITION: 0 } };
  await assertRefused(
    gltf(1, 1, {
      buffers: [{ byteLength: 4, uri: "data:;base64,AAAAAA==" }],
      bufferViews: views(maxObjects / 2),
      meshes: [{ primitives: Array.from({ length: maxObjects / 2 }, () => primitive) }],
    }),
    "maxObjects",
    "/meshes/0/primitives",
  );
});

Deno.test("a list past its limit is refused before any entry is read", async () => {
  // Every entry is bad: reading the first would fail at /nodes/0 instead.
  const text = JSON.stringify({
    asset: { version: "2.0" },
    nodes: new Array(maxNodes + 1).fill(7),
  });
  await assertRefused(text, "maxNodes", "/nodes");
  await assertRefused(gltf(0, 2), "maxAccessors", "/accessors", { maxAccessors: 1 });
});

Deno.test("JSON past its byte or value limit is refused before it is parsed", async () => {
  // Not JSON at all past the limit: the parse would say so, the limit speaks first.
  const long = `{"asset":{"version":"2.0"},"extras":"${"x".repeat(maxJsonBytes)}"`;
  await assertRefused(long, "maxJsonBytes", "");
  const many = `{"asset":{"version":"2.0"},"extras":[${"0,".repeat(maxJsonValues)}`;
  await assertRefused(many, "maxJsonValues", "");
  // A GLB's JSON chunk too.
  const json = encode(`{"asset":{"version":"2.0"},"extras":[${"0,".repeat(99)}0]}  `.slice(0, 208));
  const glb = new Uint8Array(20 + json.length);
  const view = new DataView(glb.buffer);
  view.setUint32(0, 0x46546c67, true), view.setUint32(4, 2, true);
  view.setUint32(8, glb.length, true), view.setUint32(12, json.length, true);
  view.setUint32(16, 0x4e4f534a, true);
  glb.set(json, 20);
  await assertRefused(glb, "maxJsonBytes", "", { maxJsonBytes: 100 });
  await assertRefused(glb, "maxJsonValues", "", { maxJsonValues: 50 });
});

Deno.test("the 62 MB file's shape (1.1 million nodes and accessors) is refused, limit by limit", async () => {
  // 57 MB of JSON: refused before it is decoded; with that limit raised,
  // before it is parsed (the list limits: the first test).
  const text = gltf(1_100_000, 1_100_000);
  await assertRefused(text, "maxJsonBytes", "");
  await assertRefused(text, "maxJsonValues", "", { maxJsonBytes: 2 ** 27 });
});

Deno.test("a file at every count limit at once is accepted", async () => {
  const primitives = maxObjects - 3; // the buffer, the view and the mesh count too
  const text = JSON.stringify({
    asset: { version: "2.0" },
    nodes: Array.from({ length: maxNodes }, () => ({})),
    buffers: [{ byteLength: 12, uri: "data:;base64,AAAAAAAAAAAAAAAA" }],
    bufferViews: [{ buffer: 0, byteLength: 12 }],
    accessors: Array.from({ length: maxAccessors }, () => ({
      bufferView: 0,
      componentType: 5126,
      count: 1,
      type: "VEC3",
      min: [0, 0, 0],
      max: [0, 0, 0],
    })),
    meshes: [{
      primitives: Array.from({ length: primitives }, (_, i) => ({ attributes: { POSITION: i } })),
    }],
  });
  const filler = maxJsonValues - countJsonValues(text) - 1;
  const full = `${text.slice(0, -1)},"extras":[${"{},".repeat(filler - 1)}{}]}`;
  assertEquals(countJsonValues(full), maxJsonValues);
  const model = await parseGltf(encode(full));
  assertEquals(model.skeletons.length, 0);
});

/** Values of a parsed JSON value, recursively (an independent count). */
function countParsed(value: unknown): number {
  if (Array.isArray(value)) return 1 + value.reduce((n: number, v) => n + countParsed(v), 0);
  if (value !== null && typeof value === "object") {
    return 1 + Object.values(value).reduce((n: number, v) => n + countParsed(v), 0);
  }
  return 1;
}

Deno.test("the JSON value scan counts what JSON.parse builds", () => {
  fc.assert(
    fc.property(fc.jsonValue(), fc.boolean(), (value, pretty) => {
      const text = JSON.stringify(value, null, pretty ? 2 : undefined);
      assertEquals(countJsonValues(text), countParsed(JSON.parse(text)), text);
    }),
    { numRuns: 2000 },
  );
});
