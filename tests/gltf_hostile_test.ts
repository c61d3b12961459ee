/**
 * Hostile files, one class at a time: budgets (sizes against the bytes that
 * back them, limits), validation (indices, node graphs, skins, animations),
 * extensions, and the errors' form (GltfImportError, JSON pointer, one
 * sentence, whole counts). Files are the fixtures' one-triangle model,
 * changed in memory; parseGltf reads nothing else.
 */

import { assert, assertEquals, assertGreater, assertInstanceOf, fail } from "@std/assert";
import { GltfImportError, parseGltf } from "../gltf/import.ts";
import { glb, triangle } from "./_gltf_frame.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

/** Parses the triangle changed by `change`; expects a GltfImportError at `pointer`. */
async function refused(
  change: (json: Json, bin: Uint8Array) => Uint8Array | void,
  pointer: string,
  ...includes: string[]
): Promise<GltfImportError> {
  const { json, bin } = triangle();
  const replaced = change(json, bin);
  try {
    await parseGltf(glb(json, replaced ?? bin), { name: "hostile.glb" });
  } catch (e) {
    assertInstanceOf(e, GltfImportError);
    assertEquals(e.pointer, pointer, e.message);
    assertEquals(e.file, "hostile.glb");
    assert(e.message.startsWith(`hostile.glb${pointer ? ` at ${pointer}` : ""}: `), e.message);
    assert(!e.message.includes("\n"), "one line");
    assert(
      !/\d\.\d+ (vertices|elements|joints|keys|bytes)/.test(e.message),
      `whole counts: ${e.message}`,
    );
    for (const text of includes) assert(e.message.includes(text), `"${e.message}" lacks "${text}"`);
    return e;
  }
  fail(`expected a GltfImportError at ${pointer}`);
}

/** For `.then(loaded, rejection)`: the rejection, or a failure if it loaded. */
function loaded(): never {
  fail("expected a GltfImportError, the file loaded");
}
function rejection(e: unknown): GltfImportError {
  assertInstanceOf(e, GltfImportError);
  return e;
}

async function loads(change: (json: Json, bin: Uint8Array) => Uint8Array | void) {
  const { json, bin } = triangle();
  const replaced = change(json, bin);
  return await parseGltf(glb(json, replaced ?? bin));
}

Deno.test("the unchanged triangle loads", async () => {
  const model = await loads(() => {});
  assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 3);
  assertEquals(model.skeletons[0].clips[0].name, "animation_0");
});

Deno.test("budgets: bufferless accessors of 2^24 elements are refused before allocation", async () => {
  // The 1.7 KB file of the report: three bufferless accessors of 2^24 elements.
  const json = {
    asset: { version: "2.0" },
    accessors: [0, 1, 2].map(() => ({ componentType: 5126, count: 2 ** 24, type: "VEC3" })),
    meshes: [{ primitives: [{ attributes: { POSITION: 0, NORMAL: 1, TANGENT: 2 } }] }],
  };
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  assert(bytes.length < 1700);
  const before = Deno.memoryUsage().rss;
  const e = await parseGltf(bytes).then(loaded, rejection);
  assertInstanceOf(e, GltfImportError);
  assertEquals(e.pointer, "/accessors/0");
  assert(e.message.includes("limits.maxValues"), e.message);
  assert(Deno.memoryUsage().rss - before < 64 * 2 ** 20, "nothing large was allocated");
  // Raising the limit is the caller's decision; a small one refuses small files too.
  const small = triangle();
  await parseGltf(glb(small.json, small.bin), { limits: { maxValues: 10_000 } });
  const tooSmall = await parseGltf(glb(small.json, small.bin), { limits: { maxValues: 20 } })
    .then(loaded, rejection);
  assertInstanceOf(tooSmall, GltfImportError);
});

Deno.test("budgets: every size is checked against the bytes that back it", async () => {
  await refused(
    (j) => void (j.accessors[0].count = 4),
    "/accessors/0",
    "4 elements of 12 bytes need 48 bytes of buffer view 0, which has 36 (room for 3 elements)",
  );
  await refused((j) => void (j.accessors[0].byteOffset = 4), "/accessors/0", "buffer view 0");
  await refused(
    (j) => void (j.bufferViews[2].byteLength = 4000),
    "/bufferViews/2",
    "ends at byte 4048, but buffer 0 has 136 bytes",
  );
  await refused(
    (j) => void (j.buffers[0].byteLength = 1000),
    "/buffers/0",
    "declares 1000 bytes, but its data has 136",
  );
  await refused(
    (j) => void (j.buffers[0].byteLength = 2 ** 40),
    "/buffers/0",
    "beyond limits.maxFileBytes",
  );
  await refused(
    (j) => void (j.bufferViews[0].byteStride = 6),
    "/bufferViews/0/byteStride",
    "not a multiple of 4",
  );
  await refused((j) => void (j.accessors[0].count = 2 ** 40), "/accessors/0/count", "whole number");
  await refused((j) => void (j.accessors[0].count = 1.5), "/accessors/0/count", "whole number");
  // Sparse indices read as uint32 from float data: 0x3f800000 is 1.0.
  const sparse = (count: number, bufferView: number) => (j: Json) =>
    void (j.accessors[1].sparse = {
      count,
      indices: { bufferView, componentType: 5125 },
      values: { bufferView: 1 },
    });
  await refused(sparse(1, 2), "/accessors/1/sparse/indices", "sparse index 0 is 1065353216");
  await refused(sparse(2, 3), "/accessors/1/sparse/indices", "below the accessor's 3 elements");
  const truncated = triangle();
  const file = glb(truncated.json, truncated.bin);
  for (const size of [0, 7, 19, 100, file.length - 4]) {
    const e = await parseGltf(file.subarray(0, size)).then(loaded, rejection);
    assertInstanceOf(e, GltfImportError);
    assertEquals(e.pointer, "");
  }
});

Deno.test("validation: node graphs that are not trees are refused at the node", async () => {
  await refused(
    (j) => void (j.nodes[1].children = [0], j.nodes[0].children = [1]),
    "/nodes/0",
    "own ancestor",
    "cycle",
  );
  await refused((j) => void (j.nodes[1].children = [1]), "/nodes/1/children/0", "lists itself");
  await refused(
    (j) => {
      j.nodes.push({ children: [1] }, { children: [1] });
    },
    "/nodes/3/children/0",
    "node 1 is a child of both node 2 and node 3",
  );
  await refused((j) => void (j.nodes[0].children = [1, 1]), "/nodes/0/children/1", "twice");
  await refused(
    (j) => void (j.nodes[0].children = [9]),
    "/nodes/0/children/0",
    "refers to node 9, but the file has 2 (0..1)",
  );
  await refused((j) => void (j.nodes[1].rotation = [0, 0, 0, 0]), "/nodes/1", "not a rotation");
  await refused((j) => void (j.nodes[1].translation = [1e300, 0, 0]), "/nodes/1", "beyond ±1e18");
  await refused((j) => void (j.nodes[1].scale = [1, "x", 1]), "/nodes/1/scale", "3 finite numbers");
});

Deno.test("validation: skins, meshes and animations name the offending entry", async () => {
  await refused((j) => void (j.skins[0].joints = [1, 1]), "/skins/0/joints/1", "listed twice");
  await refused((j) => void (j.skins[0].joints = [5]), "/skins/0/joints/0", "refers to node 5");
  await refused((j) => void (j.skins[0].joints = []), "/skins/0/joints", "at least one joint");
  await refused(
    (j) => void (j.skins[0].inverseBindMatrices = 0),
    "/skins/0/inverseBindMatrices",
    "MAT4",
  );
  await refused(
    (j) => void (j.meshes[0].primitives[0].attributes.POSITION = 7),
    "/meshes/0/primitives/0/attributes/POSITION",
    "refers to accessor 7",
  );
  await refused(
    (j) => void (j.meshes[0].primitives[0].indices = 2),
    "/meshes/0/primitives/0/indices",
    "SCALAR",
  );
  await refused(
    (j) => void (j.meshes[0].primitives[0].mode = 9),
    "/meshes/0/primitives/0/mode",
    "0..6",
  );
  await refused(
    (j) => void (j.animations[0].samplers[0].interpolation = "SMOOTH"),
    "/animations/0/samplers/0/interpolation",
    'unknown interpolation "SMOOTH"',
  );
  await refused(
    (j) => void (j.animations[0].channels[0].target.path = "color"),
    "/animations/0/channels/0/target/path",
    'unknown animation path "color"',
  );
  await refused(
    (j) => void (j.animations[0].samplers[0].input = 4),
    "/animations/0/samplers/0/input",
    "float SCALAR",
  );
  await refused(
    (_j, bin) => {
      const out = bin.slice();
      new DataView(out.buffer).setFloat32(100, 0, true); // times 0, 0
      return out;
    },
    "/animations/0/samplers/0/input",
    "strictly increasing",
    "key 1 is at 0 after 0",
  );
  await refused(
    (_j, bin) => {
      const out = bin.slice();
      new DataView(out.buffer).setFloat32(104, NaN, true);
      return out;
    },
    "/animations/0/samplers/0/output",
    "value 0 is not finite",
  );
  await refused(
    (_j, bin) => {
      const out = bin.slice();
      out[36 + 4] = 7; // vertex 1's first joint
      return out;
    },
    "/meshes/0/primitives/0/attributes/JOINTS_0",
    "vertex 1 is weighted to joint 7, but the skin has 1 joints",
  );
  await refused((j) => void (j.asset.version = "1.0"), "/asset/version", "only 2.x");
  await refused((j) => void (j.accessors = "x"), "/accessors", "expected an array");
  await refused((j) => void (j.nodes[0].name = 5), "/nodes/0/name", "expected a string");
});

Deno.test("weights channels of nodes without morph targets are skipped but count in the clip's time range", async () => {
  const model = await loads((j) => {
    j.accessors.push({ bufferView: 3, componentType: 5126, count: 2, type: "SCALAR" });
    j.animations[0].samplers.push({ input: 3, output: 5 });
    j.animations[0].channels.push({ sampler: 1, target: { node: 0, path: "weights" } });
    j.animations.push({
      samplers: [{ input: 3, output: 5 }],
      channels: [{ sampler: 0, target: { node: 1, path: "weights" } }],
    });
  });
  const [clip, weightsOnly] = model.skeletons[0].clips;
  assertEquals(clip.channels.map((c) => c.path), ["rotation"]);
  assertEquals(weightsOnly.channels, []);
  assertEquals(weightsOnly.duration, 1);
  assertEquals(weightsOnly.name, "animation_1");
  assertEquals(clip.morphChannels, undefined);
  assert(model.warnings.some((w) => w.includes("no mesh with morph targets")));
});

Deno.test("extensions: KHR_mesh_quantization loads; others Marrow cannot honour are named", async () => {
  // Positions as normalized shorts and as unnormalized bytes, both as the extension allows.
  for (
    const [componentType, normalized, scale] of [[5122, true, 32767], [5121, false, 1]] as const
  ) {
    const model = await loads((j, bin) => {
      j.extensionsUsed = j.extensionsRequired = ["KHR_mesh_quantization"];
      const size = componentType === 5122 ? 2 : 1, stride = 4 * size;
      const positions = new Uint8Array(3 * stride);
      const view = new DataView(positions.buffer);
      [0, 0, 0, 1, 0, 0, 0, 1, 0].forEach((v, i) => {
        const at = Math.floor(i / 3) * stride + (i % 3) * size;
        if (size === 2) view.setInt16(at, v * scale, true);
        else view.setUint8(at, v * scale);
      });
      j.bufferViews.push({
        buffer: 0,
        byteOffset: bin.length,
        byteLength: positions.length,
        byteStride: stride,
      });
      j.accessors[0] = { bufferView: 5, componentType, normalized, count: 3, type: "VEC3" };
      j.buffers[0].byteLength = bin.length + positions.length;
      const out = new Uint8Array(bin.length + positions.length);
      out.set(bin);
      out.set(positions, bin.length);
      return out;
    });
    const positions = model.skeletons[0].primitives[0].skin.positions;
    assertEquals(Array.from(positions.subarray(4, 8)), [1, 0, 0, 1]);
  }
  await refused(
    (j) => void (j.extensionsRequired = ["KHR_draco_mesh_compression"]),
    "/extensionsRequired/0",
    '"KHR_draco_mesh_compression", which Marrow cannot honour',
  );
  await refused(
    (j) => void (j.extensionsRequired = ["KHR_mesh_quantization", "EXT_meshopt_compression"]),
    "/extensionsRequired/1",
    "EXT_meshopt_compression",
  );
  const appearance = await loads((j) =>
    void (j.extensionsRequired = ["KHR_materials_emissive_strength", "KHR_texture_transform"])
  );
  assertEquals(appearance.skeletons.length, 1);
});

Deno.test("container errors have no pointer and one sentence", async () => {
  for (
    const [bytes, text] of [
      [new Uint8Array(0), "empty"],
      [new TextEncoder().encode("PK\u0003\u0004"), "neither a GLB"],
      [new TextEncoder().encode('{"asset": '), "does not parse"],
      [new TextEncoder().encode('{"a": ' + "[".repeat(200_000)), "does not parse"],
      [new TextEncoder().encode("[1]"), "neither a GLB"],
      [new TextEncoder().encode("{}"), "expected a JSON object"],
    ] as const
  ) {
    const e = await parseGltf(bytes, { name: "c.gltf" }).then(loaded, rejection);
    assertInstanceOf(e, GltfImportError);
    assert(e.message.includes(text), e.message);
    assert(!e.message.includes("\n"), e.message);
  }
  const e = await parseGltf(new TextEncoder().encode("{}"), { name: "c.gltf" }).then(
    loaded,
    rejection,
  );
  assertEquals(e.pointer, "/asset");
  assertGreater(e.message.length, 10);
});

Deno.test("budgets: work over shared data is counted, not only arrays", async () => {
  // 3,000 skins over one chain of 3,000 nodes (9 million joint visits were
  // it walked per skin, from a 100 KB file): one skeleton, each node once,
  // every skin counted.
  const nodes = Array.from({ length: 3000 }, (_, n) => (n + 1 < 3000 ? { children: [n + 1] } : {}));
  const skins = Array.from({ length: 3000 }, () => ({ joints: [2999] }));
  const file = new TextEncoder().encode(
    JSON.stringify({ asset: { version: "2.0" }, nodes, skins }),
  );
  const model = await parseGltf(file);
  assertEquals(model.skeletons.length, 1);
  assertEquals(model.skeletons[0].nodes.length, 3000);
  assertEquals(model.skeletons[0].skins.length, 3000);
  const deep = await parseGltf(file, { limits: { maxValues: 100_000 } }).then(loaded, rejection);
  assert(deep.pointer.startsWith("/skins/"), deep.pointer);
  assert(deep.message.includes("limits.maxValues"), deep.message);
  // 8,000 channels (within limits.maxObjects) sharing one sampler of 1,000 keys: each would copy the keys.
  const e = await refused(
    (j, bin) => {
      const keys = Float32Array.from({ length: 1000 }, (_, k) => k);
      const out = new Uint8Array(bin.length + 4000);
      out.set(bin);
      out.set(new Uint8Array(keys.buffer), bin.length);
      j.buffers[0].byteLength = out.length;
      j.bufferViews.push({ buffer: 0, byteOffset: bin.length, byteLength: 4000 });
      j.accessors.push({ bufferView: 5, componentType: 5126, count: 1000, type: "SCALAR" });
      j.accessors.push({ componentType: 5126, count: 1000, type: "VEC3" });
      j.animations[0].samplers.push({ input: 5, output: 6, interpolation: "STEP" });
      for (let c = 0; c < 8_000; c++) {
        j.animations[0].channels.push({ sampler: 1, target: { node: 1, path: "translation" } });
      }
      return out;
    },
    "/animations/0/channels/2097",
    "the channel's keys",
  );
  assert(e.message.includes("budget of 8388608 values"), e.message);
});

Deno.test("budgets: bind twins of many skins over one joint are counted and bounded", async () => {
  // Skins over the last of 10 nodes, each with its own inverse bind matrix:
  // a bind twin each after the first, every one counted.
  const skinsOver = (count: number, distinct = true) => {
    const nodes = Array.from({ length: 10 }, (_, n) => (n + 1 < 10 ? { children: [n + 1] } : {}));
    const bin = new Float32Array(count * 16);
    for (let k = 0; k < count; k++) {
      bin.set([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, k, 0, 0, 1], k * 16);
    }
    return glb({
      asset: { version: "2.0" },
      nodes,
      buffers: [{ byteLength: bin.byteLength }],
      bufferViews: [{ buffer: 0, byteLength: bin.byteLength }],
      accessors: Array.from({ length: count }, (_, k) => ({
        bufferView: 0,
        byteOffset: k * 64,
        componentType: 5126,
        count: 1,
        type: "MAT4",
      })),
      skins: Array.from({ length: count }, (_, k) => ({
        joints: [9],
        inverseBindMatrices: distinct ? k : 0,
      })),
    }, new Uint8Array(bin.buffer));
  };
  const model = await parseGltf(skinsOver(300));
  assertEquals(model.skeletons.length, 1);
  const { parents, names } = model.skeletons[0].skeleton;
  assertEquals(parents.length, 10 + 299);
  assert(parents.subarray(10).every((p) => p === 9), "each twin a child of its joint");
  assertEquals(names[10 + 298], "#bind:skin299");
  // The same skins with one matrix have no twin, and fit a budget the twins pass.
  const limits = { maxValues: 12_000 };
  assertEquals((await parseGltf(skinsOver(300, false), { limits })).skeletons[0].nodes.length, 10);
  const e = await parseGltf(skinsOver(300), { limits }).then(loaded, rejection);
  assert(/^\/skins\/\d+(\/inverseBindMatrices)?$/.test(e.pointer), e.pointer);
  assert(e.message.includes("limits.maxValues"), e.message);
});
