/**
 * From bytes to a gltf-transform `Document`: the container is taken apart,
 * the JSON validated (every index, range and size, against the budget),
 * the buffers loaded (the GLB chunk, base64 data URIs, or the resolver for
 * anything else; never images), and only then is a validated copy of the
 * JSON, without materials, images or extensions, handed to the parser.
 *
 * @module
 */

import { type Document, type ILogger, PlatformIO } from "@gltf-transform/core";
import { readContainer } from "./_container.ts";
import { type ImportContext, messageOf } from "./_context.ts";
import { array, object } from "./_json.ts";
import { type AccessorInfo, checkSparseIndices, validateData } from "./_validate_data.ts";
import {
  targetCounts,
  validateAnimations,
  validateHeader,
  validateMeshes,
  validateNodes,
  validateSkins,
} from "./_validate_scene.ts";
import { readAppearance } from "./_appearance.ts";
import type { UriResolver } from "./types.ts";

/** A parser that never reads a URI: every resource is given to it. */
class NoUriIO extends PlatformIO {
  protected readURI(): Promise<never> {
    return Promise.reject(new Error("the loader resolves every resource itself"));
  }
  protected resolve(_base: string, path: string): string {
    return path;
  }
  protected dirname(): string {
    return "";
  }
}

/** Collects the parser's warnings instead of printing them. */
class CollectingLogger implements ILogger {
  constructor(private readonly messages: string[]) {}
  debug(): void {}
  info(): void {}
  warn(text: string): void {
    this.messages.push(text);
  }
  error(text: string): void {
    this.messages.push(text);
  }
}

/** The parsed document and the validated accessor descriptions. */
interface ReadDocument {
  readonly document: Document;
  readonly accessors: readonly AccessorInfo[];
  readonly appearance: ReturnType<typeof readAppearance>;
}

/** Validates and parses `bytes`, loading external buffers through `resolveUri`. */
export async function readDocument(
  ctx: ImportContext,
  bytes: Uint8Array,
  resolveUri: UriResolver | undefined,
  maxFileBytes: number,
): Promise<ReadDocument> {
  const { json, bin } = readContainer(ctx, bytes);
  const root = object(ctx, json, "");
  validateHeader(ctx, root);
  const data = validateData(ctx, root, maxFileBytes, bin !== undefined);
  const meshes = validateMeshes(ctx, root, data.accessorInfo);
  const skinCount = array(ctx, root.skins, "/skins").length;
  const nodes = validateNodes(ctx, root, targetCounts(meshes), skinCount);
  const skins = validateSkins(ctx, root, nodes.length, data.accessorInfo);
  const animations = validateAnimations(ctx, root, nodes.length, data.accessorInfo);

  const resources: Record<string, Uint8Array<ArrayBuffer>> = {};
  const buffers: Uint8Array[] = [];
  for (const [i, buffer] of data.buffers.entries()) {
    let loaded: Uint8Array;
    if (buffer.uri === undefined) loaded = bin!;
    else if (buffer.uri.startsWith("data:")) {
      loaded = decodeDataUri(ctx, buffer.uri, `${buffer.pointer}/uri`);
    } else loaded = await resolve(ctx, resolveUri, buffer.uri, buffer.pointer, maxFileBytes);
    if (loaded.byteLength < buffer.byteLength) {
      ctx.fail(
        buffer.pointer,
        `the buffer declares ${buffer.byteLength} bytes, but its data has ${loaded.byteLength}`,
      );
    }
    buffers.push(loaded);
    resources[`@buffer${i}`] = ownBuffer(loaded);
  }
  checkSparseIndices(ctx, data.sparse, (v) => {
    const view = data.bufferViews[v];
    return buffers[view.buffer as number].subarray(view.byteOffset as number);
  });
  const copy = {
    asset: { version: "2.0" },
    buffers: data.buffers.map((b, i) => ({ byteLength: b.byteLength, uri: `@buffer${i}` })),
    bufferViews: data.bufferViews,
    accessors: data.accessors,
    meshes,
    nodes,
    skins,
    animations,
  };
  let document: Document;
  try {
    document = await new NoUriIO().setLogger(new CollectingLogger(ctx.warnings)).readJSON({
      json: copy as never,
      resources,
    });
  } catch (e) {
    // Validation leaves the parser nothing to object to; this names what it did.
    ctx.fail("", `the parser failed on validated data (${messageOf(e)})`, e);
  }
  const appearance = readAppearance(ctx, root, data.bufferViews.length, (v) => {
    const view = data.bufferViews[v];
    const start = view.byteOffset as number;
    return buffers[view.buffer as number].subarray(start, start + (view.byteLength as number));
  });
  return { document, accessors: data.accessorInfo, appearance };
}

async function resolve(
  ctx: ImportContext,
  resolveUri: UriResolver | undefined,
  uri: string,
  pointer: string,
  maxFileBytes: number,
): Promise<Uint8Array> {
  const shown = JSON.stringify(uri.length > 80 ? `${uri.slice(0, 80)}…` : uri);
  if (!resolveUri) {
    ctx.fail(
      pointer,
      `the buffer is the external file ${shown}, and no resolveUri option was given to read it`,
    );
  }
  let bytes: Uint8Array;
  try {
    bytes = await resolveUri(uri);
  } catch (e) {
    return ctx.fail(pointer, `the buffer ${shown} cannot be read: ${messageOf(e)}`, e);
  }
  if (!(bytes instanceof Uint8Array)) {
    ctx.fail(pointer, `resolveUri did not return bytes for ${shown}`);
  }
  if (bytes.byteLength > maxFileBytes) {
    ctx.fail(
      pointer,
      `the buffer ${shown} has ${bytes.byteLength} bytes, beyond limits.maxFileBytes (${maxFileBytes})`,
    );
  }
  return bytes;
}

/** `bytes` over a plain ArrayBuffer, which the parser slices. */
function ownBuffer(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  return bytes.buffer instanceof ArrayBuffer
    ? bytes as Uint8Array<ArrayBuffer>
    : new Uint8Array(bytes);
}

function decodeDataUri(ctx: ImportContext, uri: string, pointer: string): Uint8Array {
  const comma = uri.indexOf(",");
  if (comma < 0 || !/;base64$/i.test(uri.slice(0, comma))) {
    ctx.fail(pointer, "only base64 data URIs are read");
  }
  let text: string;
  try {
    text = atob(uri.slice(comma + 1));
  } catch (e) {
    return ctx.fail(pointer, "the data URI is not valid base64", e);
  }
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
