/**
 * The container: a GLB (header, JSON chunk, optional BIN chunk) or glTF
 * JSON text, taken apart with every length checked against the bytes.
 *
 * @module
 */

import type { ImportContext } from "./_context.ts";

const GLB_MAGIC = 0x46546c67; // "glTF"
const CHUNK_JSON = 0x4e4f534a;
const CHUNK_BIN = 0x004e4942;

/** The parsed JSON of a file and its GLB binary chunk, if any. */
interface Container {
  readonly json: unknown;
  readonly bin?: Uint8Array;
}

/** Parses the container; fails with the file as the pointer. */
export function readContainer(ctx: ImportContext, bytes: Uint8Array): Container {
  const size = bytes.byteLength;
  if (size === 0) ctx.fail("", "the file is empty");
  const view = new DataView(bytes.buffer, bytes.byteOffset, size);
  if (size >= 4 && view.getUint32(0, true) === GLB_MAGIC) return readGlb(ctx, bytes, view);
  const first = bytes.find((b) => b > 0x20 && b !== 0xef && b !== 0xbb && b !== 0xbf);
  if (first !== 0x7b /* { */) {
    ctx.fail("", "the file is neither a GLB container (no glTF magic) nor glTF JSON");
  }
  return { json: parseJson(ctx, bytes) };
}

function readGlb(ctx: ImportContext, bytes: Uint8Array, view: DataView): Container {
  const size = bytes.byteLength;
  if (size < 20) ctx.fail("", `the GLB file is truncated to ${size} bytes`);
  const version = view.getUint32(4, true);
  if (version !== 2) ctx.fail("", `the GLB container is version ${version}, not 2`);
  const declared = view.getUint32(8, true);
  if (declared > size) {
    ctx.fail("", `the GLB header declares ${declared} bytes, but the file has ${size}`);
  }
  let json: unknown, bin: Uint8Array | undefined;
  for (let offset = 12, chunk = 0; offset + 8 <= declared; chunk++) {
    const length = view.getUint32(offset, true), type = view.getUint32(offset + 4, true);
    const start = offset + 8;
    if (length > declared - start) {
      ctx.fail(
        "",
        `GLB chunk ${chunk} declares ${length} bytes, but only ${declared - start} follow it`,
      );
    }
    const data = bytes.subarray(start, start + length);
    if (chunk === 0) {
      if (type !== CHUNK_JSON) ctx.fail("", "the first GLB chunk is not the JSON chunk");
      json = parseJson(ctx, data);
    } else if (chunk === 1 && type === CHUNK_BIN) bin = data;
    offset = start + length;
  }
  if (json === undefined) ctx.fail("", "the GLB file has no JSON chunk");
  return { json, ...(bin ? { bin } : {}) };
}

function parseJson(ctx: ImportContext, bytes: Uint8Array): unknown {
  const limit = ctx.limits.maxJsonBytes;
  if (bytes.byteLength > limit) {
    ctx.fail(
      "",
      `the glTF JSON has ${bytes.byteLength} bytes, beyond limits.maxJsonBytes (${limit})`,
    );
  }
  let text = new TextDecoder().decode(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const values = countJsonValues(text), maxValues = ctx.limits.maxJsonValues;
  if (values > maxValues) {
    ctx.fail("", `the glTF JSON has ${values} values, beyond limits.maxJsonValues (${maxValues})`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    // JSON.parse's messages quote the text: keep only the first clause.
    const detail = e instanceof SyntaxError
      ? e.message.split(/[,(]/)[0].trim()
      : "too deeply nested";
    return ctx.fail("", `the glTF JSON does not parse (${detail})`, e);
  }
}

/**
 * The values in JSON `text` (each object, array, string, number and
 * literal; a member's name not counted), by one pass over its characters:
 * the root, one more per comma outside strings, and the first element or
 * member of each non-empty object and array. Text that is not JSON gets
 * some count; the parse then refuses it.
 */
export function countJsonValues(text: string): number {
  let count = 1, inString = false, opened = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // an escape: the next character is not a quote
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
    if (opened) {
      opened = false;
      if (c !== 0x7d && c !== 0x5d) count++;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) opened = true;
    else if (c === 0x2c) count++;
  }
  return count;
}
