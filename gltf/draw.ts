/**
 * Drawing imported primitives: skinned output is in Marrow's vertex order
 * (vertices grouped by influence count, so that the core runs one loop per
 * count). The importer gives the index buffer, UVs and colours in that
 * order already (`GltfDrawAttributes`); this module reorders any
 * other per-vertex attribute the same way.
 *
 * @example Reordering an attribute a game reads itself
 * ```ts
 * import { parseGltf, reorderVertexAttribute } from "@marrow/anim/gltf";
 *
 * const url = new URL("../tests/fixtures/gltf/SimpleSkin.gltf", import.meta.url);
 * const bytes = new Uint8Array(await (await fetch(url)).arrayBuffer());
 * const [character] = (await parseGltf(bytes)).skeletons;
 * const primitive = character.primitives[0];
 * // One float per vertex, in the file's order (e.g. a custom attribute).
 * const heat = new Float32Array(primitive.skin.vertexCount).map((_, v) => v);
 * const drawn = reorderVertexAttribute(primitive, heat, 1);
 * console.log(drawn[0] === primitive.draw.vertexOrder[0]); // true
 * ```
 * @module
 */

import type { GltfSkinnedPrimitive } from "./types.ts";
import { describeValue } from "../animation/internal.ts";

/**
 * Reorders a per-vertex attribute of `primitive` (`itemSize` values per
 * vertex, in the file's vertex order) into Marrow's output order, so that
 * it draws with the skinned streams and `primitive.draw.indices`. Returns a
 * new array of the same type. Throws a `RangeError` when `itemSize` is not a
 * whole number >= 1 or `values` is not `vertexCount * itemSize` long.
 */
export function reorderVertexAttribute<
  T extends Float32Array | Int8Array | Uint8Array | Int16Array | Uint16Array | Uint32Array,
>(primitive: GltfSkinnedPrimitive, values: T, itemSize: number): T {
  const order = primitive?.draw?.vertexOrder;
  if (!(order instanceof Uint32Array)) {
    throw new TypeError(
      `reorderVertexAttribute: primitive: expected a skinned primitive of importGltf's, got ${
        describeValue(primitive)
      }`,
    );
  }
  if (!Number.isInteger(itemSize) || itemSize < 1) {
    throw new RangeError(`itemSize: expected a whole number >= 1, got ${describeValue(itemSize)}`);
  }
  if (values?.length !== order.length * itemSize) {
    throw new RangeError(
      `values: expected ${
        order.length * itemSize
      } values (${order.length} vertices of ${itemSize}), got ${describeValue(values?.length)}`,
    );
  }
  const out = new (values.constructor as new (length: number) => T)(values.length);
  for (let i = 0; i < order.length; i++) {
    const from = order[i] * itemSize, to = i * itemSize;
    for (let c = 0; c < itemSize; c++) out[to + c] = values[from + c];
  }
  return out;
}
