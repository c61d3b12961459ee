/**
 * Sparse accessors: the indices must increase strictly and stay below the
 * accessor's count (glTF 2.0, 3.6.2.3). Repeated and decreasing indices
 * are refused at the accessor's `sparse/indices`, for every index type;
 * the same file with increasing indices loads, so the refusal is the
 * order's.
 */

import { assertEquals, assertInstanceOf } from "@std/assert";
import { GltfImportError, parseGltf } from "../gltf/import.ts";
import { glb, triangle } from "./_gltf_frame.ts";

/** The triangle with a sparse override of 2 of its 3 positions at `indices` (of `componentType`). */
function withSparse(indices: readonly number[], componentType: 5121 | 5123 | 5125): Uint8Array {
  const { json, bin } = triangle();
  const size = componentType === 5121 ? 1 : componentType === 5123 ? 2 : 4;
  const indexBytes = Math.ceil((indices.length * size) / 4) * 4;
  const out = new Uint8Array(bin.length + indexBytes + 24);
  out.set(bin);
  const view = new DataView(out.buffer, bin.length);
  indices.forEach((index, k) => {
    if (size === 1) view.setUint8(k, index);
    else if (size === 2) view.setUint16(2 * k, index, true);
    else view.setUint32(4 * k, index, true);
  });
  new Float32Array(out.buffer, bin.length + indexBytes, 6).set([0.5, 0.5, 0, 0.25, 0.25, 0]);
  json.buffers[0].byteLength = out.length;
  const views = json.bufferViews.length;
  json.bufferViews.push(
    { buffer: 0, byteOffset: bin.length, byteLength: indexBytes },
    { buffer: 0, byteOffset: bin.length + indexBytes, byteLength: 24 },
  );
  json.accessors[0].sparse = {
    count: indices.length,
    indices: { bufferView: views, componentType },
    values: { bufferView: views + 1 },
  };
  // Bounds must hold the overridden positions too.
  json.accessors[0].min = [0, 0, 0];
  json.accessors[0].max = [1, 1, 0];
  return glb(json, out);
}

for (const componentType of [5121, 5123, 5125] as const) {
  Deno.test(`sparse indices (component type ${componentType}): repeated or decreasing are refused`, async () => {
    const model = await parseGltf(withSparse([0, 2], componentType));
    assertEquals(model.skeletons.length, 1);
    for (const [indices, k, v] of [[[1, 1], 1, 1], [[2, 1], 1, 1], [[2, 0], 1, 0]] as const) {
      const error = await parseGltf(withSparse(indices, componentType)).then(
        () => undefined,
        (e) => e,
      );
      assertInstanceOf(error, GltfImportError, `indices ${indices}`);
      assertEquals(error.pointer, "/accessors/0/sparse/indices");
      assertEquals(
        error.message.includes(`sparse index ${k} is ${v}, but indices must increase`),
        true,
        error.message,
      );
    }
  });
}
