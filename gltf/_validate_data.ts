/**
 * Validation of the file's data layer (buffers, buffer views, accessors)
 * against the bytes that will back it and the import's budget, before any
 * buffer is read or any array allocated.
 *
 * @module
 */

import type { ImportContext } from "./_context.ts";
import { index, integer, type JsonObject, object, objects, string } from "./_json.ts";

/** Bytes per component of each glTF component type. */
export const COMPONENT_BYTES: Readonly<Record<number, number>> = {
  5120: 1,
  5121: 1,
  5122: 2,
  5123: 2,
  5125: 4,
  5126: 4,
};
/** Components per element of each glTF accessor type. */
export const TYPE_COMPONENTS: Readonly<Record<string, number>> = {
  SCALAR: 1,
  VEC2: 2,
  VEC3: 3,
  VEC4: 4,
  MAT2: 4,
  MAT3: 9,
  MAT4: 16,
};

/** A buffer to load, as the file declares it. */
interface BufferDecl {
  readonly pointer: string;
  readonly uri?: string;
  readonly byteLength: number;
}

/** A sparse accessor's indices, to check once the buffers are loaded. */
interface SparseIndices {
  readonly pointer: string;
  /** Elements of the accessor: every sparse index must be below it. */
  readonly count: number;
  readonly bufferView: number;
  readonly byteOffset: number;
  readonly componentType: number;
  readonly sparseCount: number;
}

/** A checked accessor, as later stages need it. */
export interface AccessorInfo {
  readonly componentType: number;
  readonly type: string;
  readonly count: number;
  readonly normalized: boolean;
}

/** The validated data layer, copied to plain JSON for the parser. */
interface DataLayer {
  readonly buffers: BufferDecl[];
  readonly bufferViews: JsonObject[];
  readonly accessors: JsonObject[];
  readonly accessorInfo: AccessorInfo[];
  readonly sparse: SparseIndices[];
}

const MAX_COUNT = 2 ** 31 - 1;

/** Validates buffers, buffer views and accessors, spending the budget on every accessor. */
export function validateData(
  ctx: ImportContext,
  root: JsonObject,
  maxFileBytes: number,
  hasBin: boolean,
): DataLayer {
  const buffers = objects(ctx, root, "buffers", "").map((b, i): BufferDecl => {
    const pointer = `/buffers/${i}`;
    const byteLength = integer(
      ctx,
      b.byteLength,
      `${pointer}/byteLength`,
      1,
      Number.MAX_SAFE_INTEGER,
    );
    if (byteLength > maxFileBytes) {
      ctx.fail(
        pointer,
        `the buffer declares ${byteLength} bytes, beyond limits.maxFileBytes (${maxFileBytes})`,
      );
    }
    if (b.uri === undefined) {
      if (i !== 0 || !hasBin) {
        ctx.fail(pointer, "the buffer has no uri and is not the GLB binary chunk");
      }
      return { pointer, byteLength };
    }
    return { pointer, uri: string(ctx, b.uri, `${pointer}/uri`), byteLength };
  });
  const bufferViews = objects(ctx, root, "bufferViews", "").map((v, i) => {
    const pointer = `/bufferViews/${i}`;
    const buffer = index(ctx, v.buffer, `${pointer}/buffer`, buffers.length, "buffer");
    const byteOffset = integer(ctx, v.byteOffset, `${pointer}/byteOffset`, 0, MAX_COUNT, 0);
    const byteLength = integer(ctx, v.byteLength, `${pointer}/byteLength`, 1, MAX_COUNT);
    const available = buffers[buffer].byteLength;
    if (byteOffset + byteLength > available) {
      ctx.fail(
        pointer,
        `the buffer view ends at byte ${
          byteOffset + byteLength
        }, but buffer ${buffer} has ${available} bytes`,
      );
    }
    const out: Record<string, unknown> = { buffer, byteOffset, byteLength };
    if (v.byteStride !== undefined) {
      const stride = integer(ctx, v.byteStride, `${pointer}/byteStride`, 4, 252);
      if (stride % 4 !== 0) {
        ctx.fail(`${pointer}/byteStride`, `a byte stride of ${stride} is not a multiple of 4`);
      }
      out.byteStride = stride;
    }
    return out;
  });
  const sparse: SparseIndices[] = [];
  const accessorInfo: AccessorInfo[] = [];
  const accessors = objects(ctx, root, "accessors", "").map((a, i) => {
    const pointer = `/accessors/${i}`;
    const componentType = a.componentType as number;
    if (typeof componentType !== "number" || !Object.hasOwn(COMPONENT_BYTES, componentType)) {
      ctx.fail(`${pointer}/componentType`, `unknown component type ${String(componentType)}`);
    }
    const type = a.type as string;
    if (typeof type !== "string" || !Object.hasOwn(TYPE_COMPONENTS, type)) {
      ctx.fail(`${pointer}/type`, `unknown accessor type ${JSON.stringify(type)}`);
    }
    const count = integer(ctx, a.count, `${pointer}/count`, 1, MAX_COUNT);
    const components = TYPE_COMPONENTS[type];
    ctx.spend(count * components, pointer, `the accessor's ${count} ${type} elements`);
    const normalized = a.normalized ?? false;
    if (typeof normalized !== "boolean" || (normalized && componentType === 5126)) {
      ctx.fail(`${pointer}/normalized`, "normalized must be false for float components");
    }
    const elementBytes = components * COMPONENT_BYTES[componentType];
    const out: Record<string, unknown> = { componentType, type, count, normalized };
    if (a.bufferView !== undefined) {
      const view = index(
        ctx,
        a.bufferView,
        `${pointer}/bufferView`,
        bufferViews.length,
        "buffer view",
      );
      const byteOffset = integer(ctx, a.byteOffset, `${pointer}/byteOffset`, 0, MAX_COUNT, 0);
      checkRange(ctx, pointer, bufferViews[view], view, byteOffset, count, elementBytes, true);
      out.bufferView = view;
      out.byteOffset = byteOffset;
    } else if (a.byteOffset !== undefined && a.byteOffset !== 0) {
      ctx.fail(`${pointer}/byteOffset`, "an accessor without a buffer view has no byte offset");
    }
    if (a.sparse !== undefined) {
      out.sparse = validateSparse(
        ctx,
        `${pointer}/sparse`,
        a.sparse,
        count,
        elementBytes,
        bufferViews,
        sparse,
      );
    }
    accessorInfo.push({ componentType, type, count, normalized });
    return out;
  });
  return { buffers, bufferViews, accessors, accessorInfo, sparse };
}

/** `count` elements of `elementBytes` at `byteOffset` must fit in the view. */
function checkRange(
  ctx: ImportContext,
  pointer: string,
  view: JsonObject,
  viewIndex: number,
  byteOffset: number,
  count: number,
  elementBytes: number,
  strided: boolean,
): void {
  const stride = strided ? (view.byteStride as number | undefined) ?? elementBytes : elementBytes;
  if (strided && stride < elementBytes) {
    ctx.fail(
      pointer,
      `elements of ${elementBytes} bytes do not fit buffer view ${viewIndex}'s stride of ${stride}`,
    );
  }
  const end = byteOffset + stride * (count - 1) + elementBytes;
  const length = view.byteLength as number;
  if (end > length) {
    const fits = byteOffset + elementBytes > length
      ? 0
      : Math.floor((length - byteOffset - elementBytes) / stride) + 1;
    ctx.fail(
      pointer,
      `${count} elements of ${elementBytes} bytes need ${end} bytes of buffer view ${viewIndex}, which has ${length} (room for ${fits} elements)`,
    );
  }
}

function validateSparse(
  ctx: ImportContext,
  pointer: string,
  value: unknown,
  count: number,
  elementBytes: number,
  bufferViews: JsonObject[],
  sparse: SparseIndices[],
): JsonObject {
  const s = object(ctx, value, pointer);
  const sparseCount = integer(ctx, s.count, `${pointer}/count`, 1, count);
  const indices = object(ctx, s.indices, `${pointer}/indices`);
  const values = object(ctx, s.values, `${pointer}/values`);
  const read = (part: JsonObject, at: string, bytes: number) => {
    const view = index(ctx, part.bufferView, `${at}/bufferView`, bufferViews.length, "buffer view");
    if (bufferViews[view].byteStride !== undefined) {
      ctx.fail(`${at}/bufferView`, "sparse data must be tightly packed, without a byte stride");
    }
    const byteOffset = integer(ctx, part.byteOffset, `${at}/byteOffset`, 0, MAX_COUNT, 0);
    checkRange(ctx, at, bufferViews[view], view, byteOffset, sparseCount, bytes, false);
    return { bufferView: view, byteOffset };
  };
  const componentType = indices.componentType as number;
  if (componentType !== 5121 && componentType !== 5123 && componentType !== 5125) {
    ctx.fail(
      `${pointer}/indices/componentType`,
      "sparse indices must be unsigned bytes, shorts or ints",
    );
  }
  const indexPart = read(indices, `${pointer}/indices`, COMPONENT_BYTES[componentType]);
  const valuePart = read(values, `${pointer}/values`, elementBytes);
  sparse.push({ pointer: `${pointer}/indices`, count, componentType, sparseCount, ...indexPart });
  return { count: sparseCount, indices: { ...indexPart, componentType }, values: valuePart };
}

/** Checks the sparse indices in the loaded buffer views: increasing and below the count. */
export function checkSparseIndices(
  ctx: ImportContext,
  sparse: readonly SparseIndices[],
  viewBytes: (view: number) => Uint8Array,
): void {
  for (const s of sparse) {
    const bytes = viewBytes(s.bufferView);
    const view = new DataView(bytes.buffer, bytes.byteOffset + s.byteOffset);
    const size = COMPONENT_BYTES[s.componentType];
    let previous = -1;
    for (let k = 0; k < s.sparseCount; k++) {
      const v = size === 1
        ? view.getUint8(k)
        : size === 2
        ? view.getUint16(2 * k, true)
        : view.getUint32(4 * k, true);
      if (v <= previous || v >= s.count) {
        ctx.fail(
          s.pointer,
          `sparse index ${k} is ${v}, but indices must increase and stay below the accessor's ${s.count} elements`,
        );
      }
      previous = v;
    }
  }
}
