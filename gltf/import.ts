/**
 * glTF 2.0 import: skins, skinned primitives and animations as the plain
 * data of `animation/definitions.ts` and `animation/clip.ts`. The loader
 * validates the file itself (every index, range, size and the node tree,
 * against {@linkcode GltfLimits}) before `@gltf-transform/core` parses a
 * validated copy of it; every failure is a {@linkcode GltfImportError} with
 * the file, a JSON pointer and one sentence. See `docs/loading.md`, "Loading
 * untrusted files" for what is read from where.
 *
 * One {@linkcode GltfSkeleton} is produced per joint hierarchy, as
 * ozz-animation builds one skeleton from a node hierarchy and gives each
 * mesh its joint remap: skins whose joints or ancestors share a node (a
 * root, the node graph being a forest) share one skeleton, so that a
 * hierarchy's joints and clips exist once however many skins it has.
 *
 * - **Joints** are the skins' joints **plus every ancestor node of them up
 *   to the scene root**, each node once, ordered parents before children
 *   (a parent that the file lists after its child is moved up, and vertex
 *   joint indices are remapped). glTF defines a joint's world matrix
 *   through the whole node hierarchy, so ancestors that are not joints (a
 *   Mixamo `Armature` node with a rotation and a 0.01 scale, an animated
 *   parent) still move the mesh; as extra joints they fold into the
 *   skeleton's model space. Their inverse bind matrix is the identity and
 *   no vertex references them. The skeleton's model space is therefore the
 *   glTF scene space (the skin's optional `skeleton` property is not
 *   needed and not used).
 * - **Inverse bind matrices** are per joint: a joint takes the matrix of
 *   the first skin that lists it. A later skin that binds it with another
 *   matrix gets a *bind twin*, a child joint at the identity pose that
 *   carries that skin's matrix (see {@linkcode GltfSkeleton}).
 * - **Skinned primitives**: every primitive of every node that uses one
 *   of the skeleton's skins (a skin shared by several meshes or nodes lists
 *   them all; the same mesh used with two skins appears once per skin),
 *   each in the joint numbering of its own skin's map
 *   ({@linkcode GltfSkin}). The skinned node's own transform is ignored, as
 *   glTF requires.
 * - **Clips**: one per glTF animation, with the channels that target the
 *   skeleton's joints, and (`morphChannels`) the morph `weights` channels
 *   of the nodes that instance its primitives.
 * - **Morph targets** of skinned primitives (`POSITION`, `NORMAL`,
 *   `TANGENT`; sparse accessors too) go in each primitive's
 *   `skin.morphTargets`, named by the mesh's `extras.targetNames`, with the
 *   instance's default weights in `morphWeights`; a target that lacks an
 *   attribute displaces it by nothing.
 *
 * Vertex influences: see `_primitives.ts`; in short, every
 * `JOINTS_n`/`WEIGHTS_n` pair, zero weights dropped, duplicates summed,
 * sorted by decreasing weight, not renormalized (the skin builder does
 * that).
 *
 * Rotations (rest pose, `LINEAR` and `STEP` keys) are normalized, since
 * real files are off by up to 2e-4. Materials, textures, samplers and
 * images come as plain data for a renderer (`materials`, and each
 * primitive's `material`; see `_appearance.ts`): an image is handed out as
 * a `data:` URI, its buffer view's bytes, or a path the loader's own rule
 * keeps inside the model's folder, never read or decoded. A mesh without
 * a skin on a node in a skeleton's hierarchy comes as a one-joint skin of
 * it (its node a joint bound with the identity), so that a face, helmet or
 * weapon moves with the character (`attachedMeshes: false` leaves such
 * meshes out). Not imported: cameras, extensions, and meshes outside every
 * skeleton's hierarchy.
 *
 * @example Importing a character and its first clip
 * ```ts
 * import { importGltf } from "@marrow/anim/gltf";
 *
 * // A path, file: or http(s): URL, or bytes; here a test fixture.
 * const file = "../tests/fixtures/gltf/CesiumMan.glb";
 * const model = await importGltf(new URL(file, import.meta.url));
 * const { skeleton, primitives, clips } = model.skeletons[0];
 * console.log(skeleton.parents.length, primitives.length, clips[0].duration);
 * ```
 * @module
 */

import { ImportContext, messageOf } from "./_context.ts";
import { readDocument } from "./_document.ts";
import { convert } from "./_convert.ts";
import { openSource } from "./_sources.ts";
import { ReadRefusal } from "./_confine.ts";
import { GltfImportError } from "./errors.ts";
import {
  DEFAULT_GLTF_LIMITS,
  type GltfImport,
  type GltfLimits,
  type ImportGltfOptions,
  type ParseGltfOptions,
} from "./types.ts";
import { describeValue } from "../animation/internal.ts";

export { GltfImportError, type GltfImportErrorOptions } from "./errors.ts";
export {
  DEFAULT_GLTF_LIMITS,
  type GltfDrawAttributes,
  type GltfImage,
  type GltfImport,
  type GltfLimits,
  type GltfMaterial,
  type GltfSampler,
  type GltfSkeleton,
  type GltfSkin,
  type GltfSkinnedPrimitive,
  type GltfTexture,
  type GltfTextureRef,
  type ImportGltfOptions,
  type ParseGltfOptions,
  type UriResolver,
} from "./types.ts";

function checkedLimits(name: string, limits: GltfLimits | undefined): Required<GltfLimits> {
  const out = { ...DEFAULT_GLTF_LIMITS, ...limits };
  for (const key of Object.keys(DEFAULT_GLTF_LIMITS) as (keyof GltfLimits)[]) {
    if (!Number.isSafeInteger(out[key]) || out[key] < 1) {
      throw new GltfImportError(name, `limits.${key} must be a whole number >= 1, not ${out[key]}`);
    }
  }
  return out;
}

/**
 * Parses glTF 2.0 (`.glb`, or `.gltf` JSON with data URIs, or external
 * buffers read through `options.resolveUri`) from memory. Touches no file
 * system or network beyond what `resolveUri` does; never reads images.
 *
 * @throws {GltfImportError} when the bytes are not glTF 2.0, a buffer is
 * missing or too large, a limit is passed, or skin or animation data are
 * invalid; `pointer` names the offending object.
 */
export async function parseGltf(
  bytes: Uint8Array,
  options: ParseGltfOptions = {},
): Promise<GltfImport> {
  const name = checkedName("parseGltf", options) ?? "<bytes>";
  const limits = checkedLimits(name, options.limits);
  if (!(bytes instanceof Uint8Array)) {
    throw new GltfImportError(name, "expected the file's bytes as a Uint8Array");
  }
  if (bytes.byteLength > limits.maxFileBytes) {
    throw new GltfImportError(
      name,
      `the file has ${bytes.byteLength} bytes, beyond limits.maxFileBytes (${limits.maxFileBytes})`,
    );
  }
  const ctx = new ImportContext(name, limits, options.attachedMeshes !== false);
  try {
    const { document, appearance } = await readDocument(
      ctx,
      bytes,
      options.resolveUri,
      limits.maxFileBytes,
    );
    return convert(ctx, document, appearance);
  } catch (e) {
    if (e instanceof GltfImportError) throw e;
    // Every stage checks what it reads; this would be a bug, still reported as the file's error.
    return ctx.fail("", `the file cannot be imported (${messageOf(e)})`, e);
  }
}

/** `options` checked to be an object, and its `name`, a string when given. */
function checkedName(caller: string, options: ParseGltfOptions): string | undefined {
  if (!options || typeof options !== "object") {
    throw new TypeError(`${caller}: options: expected an object, got ${describeValue(options)}`);
  }
  const { name } = options;
  if (name !== undefined && typeof name !== "string") {
    throw new TypeError(`${caller}: options.name: expected a string, got ${describeValue(name)}`);
  }
  return name;
}

/**
 * Imports a glTF 2.0 file from bytes, a path, a `file:` URL or an
 * `http(s):` URL, in Deno, Node or a browser:
 *
 * - A path or `file:` URL is read with `options.readFile` if given, else
 *   with Deno's file API or (on Node) `node:fs/promises`; a browser needs
 *   `readFile` or bytes. Needs `--allow-read` in Deno.
 * - An `http(s):` URL is fetched (the only case in which the loader uses
 *   the network; `--allow-net` in Deno).
 * - External buffers of a `.gltf` are read through `options.resolveUri` if
 *   given, else from the model's own folder (same origin and folder for a
 *   URL): URIs are percent-decoded and normalized, and one that leaves the
 *   folder, is absolute, or (on a file system) resolves through a link to
 *   outside it or to something that is not a regular file is refused
 *   before anything is opened. Images are never read. Every file read is
 *   bounded by `limits.maxFileBytes`.
 *
 * @throws {GltfImportError} when the file cannot be read (the message says
 * what was tried) or is not valid (see {@linkcode parseGltf}).
 */
export async function importGltf(
  input: Uint8Array | string | URL,
  options: ImportGltfOptions = {},
): Promise<GltfImport> {
  if (input instanceof Uint8Array) return await parseGltf(input, options);
  const name = checkedName("importGltf", options) ??
    (input instanceof URL ? input.href : describeValue(input));
  if (typeof input !== "string" && !(input instanceof URL)) {
    throw new GltfImportError(name, "expected bytes, a path or a URL");
  }
  const limits = checkedLimits(name, options.limits);
  let source;
  try {
    source = await openSource(input, limits.maxFileBytes, options.readFile, options.resolveUri);
  } catch (e) {
    const message = e instanceof ReadRefusal ? e.message : `cannot read it (${messageOf(e)})`;
    throw new GltfImportError(name, message, { cause: e });
  }
  return await parseGltf(source.bytes, { ...options, name, resolveUri: source.resolveUri });
}
