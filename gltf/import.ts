/**
 * glTF 2.0 import: skins, skinned primitives and animations as the plain
 * data of `animation/definitions.ts` and `animation/clip.ts`. Parsing is done
 * by `@gltf-transform/core`; this module only converts.
 *
 * One {@linkcode GltfSkeleton} is produced per glTF skin:
 *
 * - **Joints** are the skin's joints **plus every ancestor node of them up
 *   to the scene root**, ordered parents before children (a parent that
 *   the file lists after its child is moved up, and vertex joint indices
 *   are remapped). glTF defines a joint's world matrix through the whole
 *   node hierarchy, so ancestors that are not joints (a Mixamo `Armature`
 *   node with a rotation and a 0.01 scale, an animated parent) still move
 *   the mesh; as extra joints they fold into the skeleton's model space.
 *   Their inverse bind matrix is the identity and no vertex references
 *   them. The skeleton's model space is therefore the glTF scene space
 *   (the skin's optional `skeleton` property is not needed and not used).
 * - **Skinned primitives**: every primitive of every node that uses the
 *   skin (a skin shared by several meshes or nodes lists them all; the
 *   same mesh used with two skins appears under both). The skinned node's
 *   own transform is ignored, as glTF requires.
 * - **Clips**: one per glTF animation, with the channels that target the
 *   skeleton's joints (morph-target `weights` channels are left out).
 *
 * Vertex influences come from every `JOINTS_n`/`WEIGHTS_n` pair (any
 * integer joint type; float or normalized integer weights). Zero weights
 * are dropped, a joint listed twice has its weights summed, and influences
 * are sorted by decreasing weight. Weights are **not** renormalized here
 * (some files, like three.js' RobotExpressive, do not sum to 1): the skin
 * builder does that. A vertex whose weights are all zero gets one influence
 * of weight 1 on its first `JOINTS_0` joint, as three.js does.
 *
 * Rotations (rest pose, `LINEAR` and `STEP` keys) are normalized, since
 * real files are off by up to 2e-4. Not imported: morph targets, cameras,
 * materials, images (never decoded), and meshes without a skin.
 *
 * @example Importing a character and its first clip
 * ```ts
 * import { importGltf } from "@marrow/anim";
 *
 * // A path, file: URL or bytes; here a test asset beside the repository.
 * const file = "../../shared/assets/gltf/CesiumMan.glb";
 * const model = await importGltf(new URL(file, import.meta.url));
 * const { skeleton, primitives, clips } = model.skeletons[0];
 * console.log(skeleton.parents.length, primitives.length, clips[0].duration);
 * ```
 * @module
 */

import {
  type Accessor,
  type Animation,
  type AnimationChannel,
  type Document,
  type ILogger,
  type Node,
  PlatformIO,
  type Primitive,
  type Skin,
} from "@gltf-transform/core";
import type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
import { MATRIX_FLOATS, POSE_GROUP_FLOATS, poseFloats, VERTEX_FLOATS } from "../simd/layout.ts";
import type { ChannelPath, Clip, ClipChannel, Interpolation } from "../animation/clip.ts";

/** A glTF file could not be read or holds data that cannot be imported. */
export class GltfImportError extends Error {
  /** The file (path, URL or the caller's name for the bytes). */
  readonly file: string;

  /**
   * Creates an error whose message starts with the file's name.
   *
   * @param file Names the input in the message.
   * @param message What is wrong, and where in the file.
   * @param options Standard error options (`cause`).
   */
  constructor(file: string, message: string, options?: ErrorOptions) {
    super(`${file}: ${message}`, options);
    this.name = "GltfImportError";
    this.file = file;
  }
}

/** Reads an external resource (buffer or image) named by a relative URI. */
export type UriResolver = (
  uri: string,
) => Uint8Array | Promise<Uint8Array>;

/** Options of {@linkcode parseGltf}. */
export interface ParseGltfOptions {
  /** Names the input in errors and in the result; default `"<bytes>"`. */
  readonly name?: string;
  /**
   * Called with the URI (as written in the file) of each external buffer
   * or image. Without it, a file that references external resources fails
   * to import; data URIs and GLB chunks never need it. A failing image is
   * tolerated (images are not used) and reported in `warnings`.
   */
  readonly resolveUri?: UriResolver;
}

/** Options of {@linkcode importGltf}. */
export interface ImportGltfOptions extends ParseGltfOptions {
  /**
   * Reads a file by `file:` URL (percent-encoded, as URLs are), for the
   * file itself and (unless `resolveUri` is given) its siblings. Default `Deno.readFile`; replace it
   * to read from a virtual file system.
   */
  readonly readFile?: (url: URL) => Promise<Uint8Array>;
}

/** One skinned primitive (drawable), with its vertex data. */
export interface GltfSkinnedPrimitive {
  /** glTF node index of the node that instances the mesh with the skin. */
  readonly node: number;
  /** That node's name (may be empty). */
  readonly nodeName: string;
  /** glTF mesh index. */
  readonly mesh: number;
  /** Mesh name (may be empty). */
  readonly meshName: string;
  /** Index of the primitive in the mesh. */
  readonly primitive: number;
  /**
   * Vertex data in the skeleton's joint numbering. Primitives of the same
   * mesh instanced by several nodes with the same skin share this object.
   */
  readonly skin: SkinDefinition;
  /** The primitive's index buffer, if it has one. */
  readonly indices?: Uint16Array | Uint32Array;
  /** glTF primitive mode (4 = triangles). */
  readonly mode: number;
}

/** A glTF skin as a skeleton, its skinned primitives and its clips. */
export interface GltfSkeleton {
  /** glTF skin index. */
  readonly skin: number;
  /** Skin name (may be empty). */
  readonly name: string;
  /** Joints (skin joints plus their ancestors), parents first. */
  readonly skeleton: SkeletonDefinition;
  /** glTF node index of each skeleton joint. */
  readonly nodes: Int32Array;
  /**
   * Skeleton joint of each entry of the glTF skin's `joints` array: vertex
   * joint `i` of the file is skeleton joint `skinJoints[i]`.
   */
  readonly skinJoints: Uint16Array;
  /** Every primitive skinned with this skin. */
  readonly primitives: readonly GltfSkinnedPrimitive[];
  /** One clip per glTF animation, in file order (channels may be empty). */
  readonly clips: readonly Clip[];
}

/** Everything imported from one glTF file. */
export interface GltfImport {
  /** The input's name (path, URL or the `name` option). */
  readonly name: string;
  /** One entry per glTF skin, in file order. */
  readonly skeletons: readonly GltfSkeleton[];
  /** Problems that did not stop the import. */
  readonly warnings: readonly string[];
}

// Stands for the root file in the I/O class below; it cannot be a glTF URI.
const ROOT_URI = "\u0000root";

/**
 * gltf-transform I/O that reads the root file from memory and everything
 * else through the caller's resolver, so that parsing touches neither the
 * file system nor the network.
 */
class BytesIO extends PlatformIO {
  constructor(
    private readonly root: Uint8Array<ArrayBuffer>,
    private readonly file: string,
    private readonly resolver: UriResolver | undefined,
  ) {
    super();
  }

  protected readURI(
    uri: string,
    type: "view",
  ): Promise<Uint8Array<ArrayBuffer>>;
  protected readURI(uri: string, type: "text"): Promise<string>;
  protected async readURI(
    uri: string,
    type: "view" | "text",
  ): Promise<Uint8Array | string> {
    let bytes: Uint8Array<ArrayBuffer>;
    if (uri === ROOT_URI) {
      bytes = this.root;
    } else {
      if (!this.resolver) {
        throw new GltfImportError(
          this.file,
          `references the external resource "${uri}", but no resolveUri ` +
            `option was given to read it`,
        );
      }
      try {
        bytes = new Uint8Array(await this.resolver(uri));
      } catch (e) {
        if (e instanceof GltfImportError) throw e;
        throw new GltfImportError(
          this.file,
          `cannot read the external resource "${uri}": ${message(e)}`,
          { cause: e },
        );
      }
    }
    return type === "text" ? new TextDecoder().decode(bytes) : bytes;
  }

  protected resolve(_base: string, path: string): string {
    return path;
  }

  protected dirname(_uri: string): string {
    return "";
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Collects gltf-transform's warnings instead of printing them. */
class CollectingLogger implements ILogger {
  readonly messages: string[] = [];
  debug(): void {}
  info(): void {}
  warn(text: string): void {
    this.messages.push(text);
  }
  error(text: string): void {
    this.messages.push(text);
  }
}

/**
 * Parses glTF 2.0 (`.glb`, or `.gltf` JSON with data URIs or external
 * resources read through `options.resolveUri`) from memory. Touches no
 * file system or network.
 *
 * @throws {GltfImportError} when the bytes are not glTF 2.0, a resource is
 * missing, or skin or animation data are invalid.
 */
export async function parseGltf(
  bytes: Uint8Array,
  options: ParseGltfOptions = {},
): Promise<GltfImport> {
  const name = options.name ?? "<bytes>";
  if (bytes.byteLength === 0) {
    throw new GltfImportError(name, "the file is empty");
  }
  const magic = bytes.byteLength >= 8 &&
    bytes[0] === 0x67 && bytes[1] === 0x6c && bytes[2] === 0x54 &&
    bytes[3] === 0x46;
  if (magic) {
    const version = bytes[4] | (bytes[5] << 8);
    if (version !== 2) {
      throw new GltfImportError(
        name,
        `GLB container version ${version}, only version 2 is supported`,
      );
    }
    checkGlbChunks(bytes, name);
  } else {
    const first = bytes.find((b) =>
      b > 0x20 && b !== 0xef && b !== 0xbb &&
      b !== 0xbf
    );
    if (first !== 0x7b /* { */) {
      throw new GltfImportError(
        name,
        "neither a GLB container (no 'glTF' magic) nor glTF JSON",
      );
    }
  }
  // The GLB reader views the header as Uint32Array: it needs an aligned,
  // ArrayBuffer-backed copy.
  const root = new Uint8Array(bytes);
  const logger = new CollectingLogger();
  const io = new BytesIO(root, name, options.resolveUri)
    .setLogger(logger)
    .setStrictResources(false);
  let document: Document;
  try {
    const json = await io.readAsJSON(ROOT_URI);
    const version = String(json.json.asset?.version ?? "");
    if (!version.startsWith("2.")) {
      throw new GltfImportError(
        name,
        `asset.version is "${version}", only glTF 2.x is supported`,
      );
    }
    document = await io.readJSON(json);
  } catch (e) {
    if (e instanceof GltfImportError) throw e;
    throw new GltfImportError(name, `cannot parse: ${message(e)}`, {
      cause: e,
    });
  }
  const warnings = logger.messages.slice();
  try {
    return convert(document, name, warnings);
  } catch (e) {
    if (e instanceof GltfImportError) throw e;
    throw new GltfImportError(name, `broken data: ${message(e)}`, {
      cause: e,
    });
  }
}

/**
 * Checks the GLB header and chunk lengths against the data, since the
 * reader would otherwise fail on a truncated file with a bare RangeError.
 */
function checkGlbChunks(bytes: Uint8Array, name: string): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const size = bytes.byteLength;
  if (size < 20) {
    throw new GltfImportError(name, `truncated GLB: only ${size} bytes`);
  }
  const declared = view.getUint32(8, true);
  if (declared > size) {
    throw new GltfImportError(
      name,
      `truncated GLB: the header declares ${declared} bytes, the file has ` +
        size,
    );
  }
  let offset = 12;
  for (let chunk = 0; offset + 8 <= declared; chunk++) {
    const length = view.getUint32(offset, true);
    if (offset + 8 + length > declared) {
      throw new GltfImportError(
        name,
        `truncated GLB: chunk ${chunk} at byte ${offset} declares ${length} ` +
          `bytes, only ${declared - offset - 8} follow`,
      );
    }
    offset += 8 + length;
  }
}

/**
 * Imports a glTF 2.0 file: bytes, or a path or `file:` URL read with
 * `Deno.readFile` or `options.readFile` (sibling `.bin` files and images of a `.gltf` are read
 * from its directory unless `options.resolveUri` is given). Needs
 * `--allow-read` for paths.
 *
 * @throws {GltfImportError} when the file cannot be read or is not valid
 * (see {@linkcode parseGltf}).
 */
export async function importGltf(
  input: Uint8Array | string | URL,
  options: ImportGltfOptions = {},
): Promise<GltfImport> {
  if (input instanceof Uint8Array) return await parseGltf(input, options);
  const url = input instanceof URL ? input : fileUrl(input);
  const name = options.name ?? String(input);
  if (url.protocol !== "file:") {
    throw new GltfImportError(name, "only file paths and file: URLs are read");
  }
  const readFile = options.readFile ?? ((u: URL) => Deno.readFile(u));
  let bytes: Uint8Array;
  try {
    bytes = await readFile(url);
  } catch (e) {
    const what = e instanceof Deno.errors.NotFound ? "file not found" : "cannot read the file";
    throw new GltfImportError(name, `${what} (${message(e)})`, { cause: e });
  }
  const resolveUri = options.resolveUri ?? ((uri: string) => {
    if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) {
      throw new Error(`only relative URIs are read, not "${uri}"`);
    }
    // URIs are percent-encoded relative references: URL resolution decodes
    // them and handles "../".
    return readFile(new URL(uri, url));
  });
  return await parseGltf(bytes, { name, resolveUri });
}

function fileUrl(path: string): URL {
  if (/^file:/i.test(path)) return new URL(path);
  const windows = Deno.build.os === "windows";
  const slashes = (p: string) => windows ? p.replaceAll("\\", "/") : p;
  let absolute = slashes(path);
  if (!absolute.startsWith("/") && !(windows && /^[a-z]:\//i.test(absolute))) {
    absolute = `${slashes(Deno.cwd())}/${absolute}`;
  }
  const url = new URL("file://");
  // The pathname setter percent-encodes spaces and the like, but not "%".
  url.pathname = (absolute.startsWith("/") ? "" : "/") +
    absolute.replaceAll("%", "%25");
  return url;
}

/** Per-file conversion state. */
interface Context {
  readonly file: string;
  readonly warnings: string[];
  readonly nodeIndex: Map<Node, number>;
}

function convert(
  document: Document,
  file: string,
  warnings: string[],
): GltfImport {
  const root = document.getRoot();
  const nodes = root.listNodes();
  const meshes = root.listMeshes();
  const ctx: Context = {
    file,
    warnings,
    nodeIndex: new Map(nodes.map((n, i) => [n, i])),
  };
  const animations = root.listAnimations().map((a, i) => readAnimation(ctx, a, i));
  const skeletons: GltfSkeleton[] = root.listSkins().map((skin, s) => {
    const built = buildSkeleton(ctx, skin, s);
    const primitives: GltfSkinnedPrimitive[] = [];
    // The same mesh instanced twice with this skin shares its vertex data.
    const skinCache = new Map<Primitive, SkinDefinition>();
    for (const node of nodes) {
      const mesh = node.getMesh();
      if (node.getSkin() !== skin || !mesh) continue;
      const meshIndex = meshes.indexOf(mesh);
      mesh.listPrimitives().forEach((prim, p) => {
        const where = `mesh ${meshIndex} ("${mesh.getName()}") primitive ${p}`;
        let def = skinCache.get(prim);
        if (!def) {
          def = readSkinnedPrimitive(ctx, prim, built.skinJoints, where);
          skinCache.set(prim, def);
        }
        const indices = readIndices(prim);
        primitives.push({
          node: ctx.nodeIndex.get(node)!,
          nodeName: node.getName(),
          mesh: meshIndex,
          meshName: mesh.getName(),
          primitive: p,
          skin: def,
          ...(indices ? { indices } : {}),
          mode: prim.getMode(),
        });
      });
    }
    const clips = animations.map((a) => clipFor(a, built.jointOfNode));
    return {
      skin: s,
      name: skin.getName(),
      skeleton: built.skeleton,
      nodes: built.nodes,
      skinJoints: built.skinJoints,
      primitives,
      clips,
    };
  });
  return { name: file, skeletons, warnings };
}

interface BuiltSkeleton {
  readonly skeleton: SkeletonDefinition;
  readonly nodes: Int32Array;
  readonly skinJoints: Uint16Array;
  readonly jointOfNode: Map<Node, number>;
}

function buildSkeleton(ctx: Context, skin: Skin, s: number): BuiltSkeleton {
  const where = `skin ${s} ("${skin.getName()}")`;
  const joints = skin.listJoints();
  if (joints.length === 0) {
    throw new GltfImportError(ctx.file, `${where} has no joints`);
  }
  // Depth-first from each skin joint up to its root, so that a file already
  // in parent order keeps its order, after the ancestors it did not list.
  const order: Node[] = [];
  const jointOfNode = new Map<Node, number>();
  const visiting = new Set<Node>();
  const visit = (node: Node): void => {
    if (jointOfNode.has(node)) return;
    if (visiting.has(node)) {
      throw new GltfImportError(
        ctx.file,
        `${where}: the node hierarchy has a cycle at node ` +
          `${ctx.nodeIndex.get(node)}`,
      );
    }
    visiting.add(node);
    const parent = node.getParentNode();
    if (parent) visit(parent);
    jointOfNode.set(node, order.length);
    order.push(node);
  };
  for (const joint of joints) visit(joint);
  const count = order.length;
  if (count > 32767) {
    throw new GltfImportError(
      ctx.file,
      `${where} has ${count} joints with ancestors; at most 32767 are supported`,
    );
  }
  const parents = new Int16Array(count);
  const restPose = new Float32Array(poseFloats(count));
  const names: string[] = [];
  for (let j = 0; j < count; j++) {
    const node = order[j];
    const parent = node.getParentNode();
    parents[j] = parent ? jointOfNode.get(parent)! : -1;
    names.push(node.getName());
    const t = node.getTranslation(), q = node.getRotation();
    const sc = node.getScale();
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    if (!(len > 0) || !Number.isFinite(len)) {
      throw new GltfImportError(
        ctx.file,
        `node ${ctx.nodeIndex.get(node)} has an invalid rotation [${q}]`,
      );
    }
    writePoseJoint(restPose, j, t, [
      q[0] / len,
      q[1] / len,
      q[2] / len,
      q[3] / len,
    ], sc);
  }
  // Padding lanes hold the identity, so that whole-group kernels see finite
  // data.
  for (let j = count; j < Math.ceil(count / 4) * 4; j++) {
    writePoseJoint(restPose, j, [0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
  }
  const inverseBind = new Float32Array(count * MATRIX_FLOATS);
  for (let j = 0; j < count; j++) {
    const m = j * MATRIX_FLOATS;
    inverseBind[m] = inverseBind[m + 5] = inverseBind[m + 10] = 1;
  }
  const skinJoints = new Uint16Array(joints.length);
  joints.forEach((node, i) => (skinJoints[i] = jointOfNode.get(node)!));
  const ibm = skin.getInverseBindMatrices();
  if (ibm) {
    if (ibm.getType() !== "MAT4" || ibm.getCount() < joints.length) {
      throw new GltfImportError(
        ctx.file,
        `${where}: inverseBindMatrices must be ${joints.length} MAT4, ` +
          `found ${ibm.getCount()} ${ibm.getType()}`,
      );
    }
    const e: number[] = [];
    for (let i = 0; i < joints.length; i++) {
      ibm.getElement(i, e);
      const m = skinJoints[i] * MATRIX_FLOATS;
      // glTF matrices are column-major 4x4; ours are row-major 3x4.
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 4; c++) inverseBind[m + r * 4 + c] = e[c * 4 + r];
      }
      const bottom = Math.abs(e[3]) + Math.abs(e[7]) + Math.abs(e[11]) +
        Math.abs(e[15] - 1);
      if (!(bottom < 1e-5)) {
        ctx.warnings.push(
          `${where}: inverse bind matrix ${i} is not affine; its last row ` +
            `is ignored`,
        );
      }
    }
  }
  const nodes = Int32Array.from(order, (n) => ctx.nodeIndex.get(n)!);
  return {
    skeleton: { names, parents, restPose, inverseBind },
    nodes,
    skinJoints,
    jointOfNode,
  };
}

function writePoseJoint(
  pose: Float32Array,
  j: number,
  t: ArrayLike<number>,
  q: ArrayLike<number>,
  s: ArrayLike<number>,
): void {
  const g = (j >> 2) * POSE_GROUP_FLOATS + (j & 3);
  pose[g] = t[0], pose[g + 4] = t[1], pose[g + 8] = t[2];
  pose[g + 12] = q[0], pose[g + 16] = q[1], pose[g + 20] = q[2];
  pose[g + 24] = q[3];
  pose[g + 28] = s[0], pose[g + 32] = s[1], pose[g + 36] = s[2];
}

/** Reads an accessor into a 4-float-per-vertex stream. */
function readStream(
  accessor: Accessor,
  count: number,
  w: number | null,
): Float32Array {
  const out = new Float32Array(count * VERTEX_FLOATS);
  const size = accessor.getElementSize();
  const e: number[] = [];
  for (let v = 0; v < count; v++) {
    accessor.getElement(v, e);
    const o = v * VERTEX_FLOATS;
    out[o] = e[0], out[o + 1] = e[1], out[o + 2] = e[2];
    out[o + 3] = w ?? (size >= 4 ? e[3] : 1);
  }
  return out;
}

function readSkinnedPrimitive(
  ctx: Context,
  prim: Primitive,
  skinJoints: Uint16Array,
  where: string,
): SkinDefinition {
  const position = prim.getAttribute("POSITION");
  if (!position) {
    throw new GltfImportError(ctx.file, `${where} has no POSITION`);
  }
  const vertexCount = position.getCount();
  const checkVector = (semantic: string, acc: Accessor, sizes: number[]) => {
    if (!sizes.includes(acc.getElementSize())) {
      throw new GltfImportError(
        ctx.file,
        `${where}: ${semantic} is ${acc.getType()}, expected ` +
          sizes.map((n) => `VEC${n}`).join(" or "),
      );
    }
    if (acc.getCount() !== vertexCount) {
      throw new GltfImportError(
        ctx.file,
        `${where}: ${semantic} has ${acc.getCount()} elements, POSITION has ` +
          vertexCount,
      );
    }
  };
  checkVector("POSITION", position, [3]);
  const normal = prim.getAttribute("NORMAL");
  const tangent = prim.getAttribute("TANGENT");
  if (normal) checkVector("NORMAL", normal, [3]);
  if (tangent) checkVector("TANGENT", tangent, [4]);

  const sets: { joints: Accessor; weights: Accessor }[] = [];
  for (let k = 0;; k++) {
    const joints = prim.getAttribute(`JOINTS_${k}`);
    const weights = prim.getAttribute(`WEIGHTS_${k}`);
    if (!joints && !weights) break;
    if (!joints || !weights) {
      throw new GltfImportError(
        ctx.file,
        `${where} has ${joints ? `JOINTS_${k}` : `WEIGHTS_${k}`} without ` +
          (joints ? `WEIGHTS_${k}` : `JOINTS_${k}`),
      );
    }
    checkVector(`JOINTS_${k}`, joints, [4]);
    checkVector(`WEIGHTS_${k}`, weights, [4]);
    if (weights.getComponentType() !== 5126 && !weights.getNormalized()) {
      throw new GltfImportError(
        ctx.file,
        `${where}: WEIGHTS_${k} has integer components that are not ` +
          `normalized`,
      );
    }
    sets.push({ joints, weights });
  }
  if (sets.length === 0) {
    throw new GltfImportError(
      ctx.file,
      `${where} belongs to a skinned node but has no JOINTS_0/WEIGHTS_0`,
    );
  }
  if (sets.length > 63) {
    throw new GltfImportError(
      ctx.file,
      `${where} has ${sets.length * 4} influences per vertex; at most 255 ` +
        `are supported`,
    );
  }

  const jointCount = skinJoints.length;
  const counts = new Uint8Array(vertexCount);
  const outJoints: number[] = [];
  const outWeights: number[] = [];
  const vj: number[] = [], vw: number[] = [];
  const ej: number[] = [], ew: number[] = [];
  let allZero = 0;
  for (let v = 0; v < vertexCount; v++) {
    vj.length = 0, vw.length = 0;
    let first = -1;
    for (const set of sets) {
      set.joints.getElement(v, ej);
      set.weights.getElement(v, ew);
      for (let c = 0; c < 4; c++) {
        const j = ej[c], w = ew[c];
        if (!(w >= 0) || !Number.isFinite(w)) {
          throw new GltfImportError(
            ctx.file,
            `${where}: vertex ${v} has the invalid weight ${w}`,
          );
        }
        if (!Number.isInteger(j) || j < 0 || j >= jointCount) {
          // Joint 0 padding next to a zero weight is common; only a joint
          // that carries weight must exist.
          if (w === 0) continue;
          throw new GltfImportError(
            ctx.file,
            `${where}: vertex ${v} references joint ${j}, but the skin has ` +
              `${jointCount} joints`,
          );
        }
        if (first < 0) first = j;
        if (w === 0) continue;
        const joint = skinJoints[j];
        const at = vj.indexOf(joint);
        if (at >= 0) {
          vw[at] += w;
          continue;
        }
        // Insertion keeps influences sorted by decreasing weight, and equal
        // weights in file order.
        let i = vw.length;
        while (i > 0 && vw[i - 1] < w) i--;
        vj.splice(i, 0, joint);
        vw.splice(i, 0, w);
      }
    }
    if (vw.length === 0) {
      allZero++;
      vj.push(skinJoints[first < 0 ? 0 : first]);
      vw.push(1);
    } else if (vw.length > 1) {
      // A summed duplicate can break the order.
      for (let i = 1; i < vw.length; i++) {
        for (let k = i; k > 0 && vw[k - 1] < vw[k]; k--) {
          [vw[k - 1], vw[k]] = [vw[k], vw[k - 1]];
          [vj[k - 1], vj[k]] = [vj[k], vj[k - 1]];
        }
      }
    }
    counts[v] = vw.length;
    for (let i = 0; i < vw.length; i++) {
      outJoints.push(vj[i]);
      outWeights.push(vw[i]);
    }
  }
  if (allZero > 0) {
    ctx.warnings.push(
      `${where}: ${allZero} vertices have only zero weights; each is bound ` +
        `to its first joint with weight 1`,
    );
  }
  return {
    vertexCount,
    positions: readStream(position, vertexCount, 1),
    ...(normal ? { normals: readStream(normal, vertexCount, 0) } : {}),
    ...(tangent ? { tangents: readStream(tangent, vertexCount, null) } : {}),
    influenceCounts: counts,
    joints: Uint16Array.from(outJoints),
    weights: Float32Array.from(outWeights),
  };
}

function readIndices(prim: Primitive): Uint16Array | Uint32Array | undefined {
  const indices = prim.getIndices();
  if (!indices) return undefined;
  const array = indices.getArray();
  if (!array) return undefined;
  return array instanceof Uint32Array
    ? array.slice()
    : array instanceof Uint16Array
    ? array.slice()
    : Uint32Array.from(array);
}

/** One glTF animation channel, converted once and shared by skeletons. */
interface ReadChannel {
  readonly target: Node;
  readonly node: number;
  readonly path: ChannelPath;
  readonly interpolation: Interpolation;
  readonly times: Float32Array;
  readonly values: Float32Array;
}

interface ReadAnimation {
  readonly name: string;
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly channels: readonly ReadChannel[];
}

const PATHS: readonly string[] = ["translation", "rotation", "scale"];
const INTERPOLATIONS: readonly string[] = ["STEP", "LINEAR", "CUBICSPLINE"];

function readAnimation(
  ctx: Context,
  animation: Animation,
  index: number,
): ReadAnimation {
  let start = Infinity, end = -Infinity;
  const channels: ReadChannel[] = [];
  const seen = new Set<string>();
  animation.listChannels().forEach((channel: AnimationChannel, c) => {
    const where = `animation ${index} ("${animation.getName()}") channel ${c}`;
    const sampler = channel.getSampler();
    const input = sampler?.getInput();
    const output = sampler?.getOutput();
    if (!sampler || !input || !output) {
      throw new GltfImportError(
        ctx.file,
        `${where} has no sampler input or output`,
      );
    }
    const times = Float32Array.from(input.getArray() ?? []);
    if (input.getElementSize() !== 1 || times.length === 0) {
      throw new GltfImportError(
        ctx.file,
        `${where}: the sampler input must be a non-empty SCALAR accessor`,
      );
    }
    for (let i = 0; i < times.length; i++) {
      if (!Number.isFinite(times[i]) || (i > 0 && !(times[i] > times[i - 1]))) {
        throw new GltfImportError(
          ctx.file,
          `${where}: key times must be finite and strictly increasing ` +
            `(key ${i} is ${times[i]})`,
        );
      }
    }
    // The animation's time range includes morph channels, as three.js does.
    start = Math.min(start, times[0]);
    end = Math.max(end, times[times.length - 1]);

    const target = channel.getTargetNode();
    const path = channel.getTargetPath();
    if (!target || !path || !PATHS.includes(path)) return;
    const interpolation = sampler.getInterpolation();
    if (!INTERPOLATIONS.includes(interpolation)) {
      throw new GltfImportError(
        ctx.file,
        `${where}: unknown interpolation "${interpolation}"`,
      );
    }
    const key = `${ctx.nodeIndex.get(target)}/${path}`;
    if (seen.has(key)) {
      ctx.warnings.push(
        `${where} animates node ${key} a second time; it is ignored`,
      );
      return;
    }
    seen.add(key);
    const size = path === "rotation" ? 4 : 3;
    const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
    if (
      output.getElementSize() !== size ||
      output.getCount() !== times.length * perKey
    ) {
      throw new GltfImportError(
        ctx.file,
        `${where}: ${times.length} keys of ${interpolation} ${path} need ` +
          `${times.length * perKey} VEC${size} outputs, found ` +
          `${output.getCount()} ${output.getType()}`,
      );
    }
    const values = new Float32Array(output.getCount() * size);
    const e: number[] = [];
    for (let i = 0; i < output.getCount(); i++) {
      output.getElement(i, e);
      for (let k = 0; k < size; k++) values[i * size + k] = e[k];
    }
    if (path === "rotation" && interpolation !== "CUBICSPLINE") {
      for (let o = 0; o < values.length; o += 4) {
        const len = Math.hypot(
          values[o],
          values[o + 1],
          values[o + 2],
          values[o + 3],
        );
        if (!(len > 0) || !Number.isFinite(len)) {
          throw new GltfImportError(
            ctx.file,
            `${where}: rotation key ${o / 4} is not a valid quaternion`,
          );
        }
        for (let k = 0; k < 4; k++) values[o + k] /= len;
      }
    }
    channels.push({
      target,
      node: ctx.nodeIndex.get(target)!,
      path: path as ChannelPath,
      interpolation: interpolation as Interpolation,
      times,
      values,
    });
  });
  if (start === Infinity) start = end = 0;
  return { name: animation.getName(), index, start, end, channels };
}

function clipFor(
  animation: ReadAnimation,
  jointOfNode: Map<Node, number>,
): Clip {
  const channels: ClipChannel[] = [];
  for (const ch of animation.channels) {
    const joint = jointOfNode.get(ch.target);
    if (joint === undefined) continue;
    channels.push({
      joint,
      path: ch.path,
      interpolation: ch.interpolation,
      times: ch.times,
      values: ch.values,
      node: ch.node,
    });
  }
  // Joint order keeps sampling's writes moving forward through the pose.
  channels.sort((a, b) => a.joint - b.joint);
  return {
    name: animation.name,
    animation: animation.index,
    start: animation.start,
    duration: animation.end,
    channels,
  };
}
