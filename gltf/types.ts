/**
 * The options and results of the glTF loader ({@linkcode GltfImport} and
 * its parts), and its limits ({@linkcode DEFAULT_GLTF_LIMITS}).
 *
 * @module
 */

import type { SkeletonDefinition, SkinDefinition } from "../animation/definitions.ts";
import type { Clip } from "../animation/clip.ts";

/**
 * Reads an external buffer named by a URI of the file (as written there,
 * percent-encoded), for layouts the loader does not read itself. What it
 * reads is its own responsibility: the loader only checks the size.
 */
export type UriResolver = (
  uri: string,
) => Uint8Array | Promise<Uint8Array>;

/** Size limits of one import; see {@linkcode DEFAULT_GLTF_LIMITS}. */
export interface GltfLimits {
  /**
   * Largest file the loader reads (the `.gltf` or `.glb`, and each external
   * buffer), and largest `byteLength` a buffer may declare, in bytes.
   */
  readonly maxFileBytes?: number;
  /**
   * Most numbers one import may allocate: the elements × components of every
   * accessor (also sparse and bufferless ones, whose count no bytes back),
   * and the skeletons, vertex streams and clips made from them. Checked
   * before anything is allocated.
   */
  readonly maxValues?: number;
  /**
   * Largest JSON text, in bytes: a `.gltf` file, or a GLB's JSON chunk
   * (data URIs included). Checked before the text is decoded or parsed.
   */
  readonly maxJsonBytes?: number;
  /**
   * Most values in the JSON (each object, array, string, number and
   * literal; a member's name not counted), counted by one pass over the
   * text before it is parsed: what bounds the parse's time and memory,
   * where long strings (data URIs) cost little.
   */
  readonly maxJsonValues?: number;
  /** Most nodes a file may have. Checked before any node is read. */
  readonly maxNodes?: number;
  /** Most accessors a file may have. Checked before any accessor is read. */
  readonly maxAccessors?: number;
  /**
   * Most other objects the loader reads, together: buffers, buffer views,
   * meshes and their primitives and morph targets, skins, animations and
   * their samplers and channels. Each list is checked before it is read.
   */
  readonly maxObjects?: number;
}

/**
 * The default limits: 64 MiB per file and 8,388,608 (2^23) values per
 * import, about 120,000 skinned vertices with normals, tangents and UVs; 32
 * MiB and 524,288 (2^19) values of JSON; 8,192 nodes, 8,192 accessors and
 * 8,192 other objects. The largest test character (BrainStem, 3.2 MB, 59
 * primitives) needs 2.5 million values, Xbot 2.1 million, Fox 81,000; the
 * test file with the most of the rest, RecursiveSkeletons, has 455 KB and
 * 46,639 values of JSON, 924 nodes, 1,769 accessors and 3,579 other objects.
 * Parsing is linear in these counts; what a file at every limit costs is
 * in `docs/loading.md` ("Loading untrusted files").
 */
export const DEFAULT_GLTF_LIMITS: Readonly<Required<GltfLimits>> = Object.freeze({
  maxFileBytes: 64 * 2 ** 20,
  maxValues: 2 ** 23,
  maxJsonBytes: 32 * 2 ** 20,
  maxJsonValues: 2 ** 19,
  maxNodes: 2 ** 13,
  maxAccessors: 2 ** 13,
  maxObjects: 2 ** 13,
});

/** Options of {@linkcode parseGltf}. */
export interface ParseGltfOptions {
  /** Names the input in errors and in the result; default `"<bytes>"`. */
  readonly name?: string;
  /**
   * Reads each external buffer (by its URI as written in the file). Without
   * it, a file that references external buffers fails to import; data URIs
   * and GLB chunks never need it. Images are never read.
   */
  readonly resolveUri?: UriResolver;
  /** Size limits; each left out takes its {@linkcode DEFAULT_GLTF_LIMITS} value. */
  readonly limits?: GltfLimits;
  /**
   * Import meshes on nodes without a skin that hang in a skeleton's
   * hierarchy (a face under a head joint, a helmet, a weapon) as rigidly
   * attached one-joint skins: the node becomes a joint, bound with the
   * identity, and each vertex follows it with weight 1; such a primitive's
   * `gltfSkin` is -1. Default true; false leaves them out (the skeleton
   * then has only the skins' joints and their ancestors).
   */
  readonly attachedMeshes?: boolean;
}

/** Options of {@linkcode importGltf}. */
export interface ImportGltfOptions extends ParseGltfOptions {
  /**
   * Reads a file by `file:` URL (percent-encoded, as URLs are): the file
   * itself and, unless `resolveUri` is given, its siblings, after the
   * loader has confined their URIs to the model's folder by name. Replace
   * it to read from a virtual file system or in a browser. Default: the
   * runtime's file API (Deno, or `node:fs/promises` on Node), which also
   * resolves links, refuses what is not a regular file and reads no more
   * than `limits.maxFileBytes`.
   */
  readonly readFile?: (url: URL) => Promise<Uint8Array>;
}

/**
 * A primitive's vertex data for drawing the skinned output as it is:
 * everything here is in Marrow's output vertex order (the order of
 * `getSkinnedPositions` for a `SkinAsset` built from this primitive's
 * `skin`), which groups vertices by influence count.
 */
export interface GltfDrawAttributes {
  /**
   * Output vertex `i` is the file's vertex `vertexOrder[i]`; equal to
   * `SkinAsset.vertexOrder` for this primitive alone. Reorder any other
   * attribute with {@linkcode reorderVertexAttribute}.
   */
  readonly vertexOrder: Uint32Array;
  /**
   * The index buffer in output numbering: the file's indices remapped, or,
   * when the file has none, the vertices in file order (`0, 1, 2, …`
   * remapped), so that `drawElements` with the primitive's `mode` draws the
   * file's shape. When several primitives share one `SkinAsset`, add
   * `skinAsset.meshes[m].firstVertex` (or use it as the base vertex).
   */
  readonly indices: Uint32Array;
  /** `TEXCOORD_0`, 2 floats per vertex (normalized integers decoded), if present. */
  readonly uvs?: Float32Array;
  /** `COLOR_0`, 4 floats per vertex (RGBA; alpha 1 for RGB), if present. */
  readonly colors?: Float32Array;
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
   * Vertex data in the skeleton's joint numbering and the file's vertex
   * order (`SkinAsset` sorts it itself). Primitives of the same mesh
   * instanced by several nodes with the same skin share this object.
   */
  readonly skin: SkinDefinition;
  /**
   * Default weights of the morph targets (`skin.morphTargets`) of this
   * instance: the node's `weights`, else the mesh's, else zeros; empty
   * when the primitive has no morph targets.
   */
  readonly morphWeights: Float32Array;
  /** The file's index buffer in the file's vertex order, if it has one. */
  readonly indices?: Uint16Array | Uint32Array;
  /** What a renderer needs to draw the skinned output, in output vertex order. */
  readonly draw: GltfDrawAttributes;
  /** glTF primitive mode (4 = triangles). */
  readonly mode: number;
  /**
   * glTF index of the skin the node skins the primitive with: one of its
   * skeleton's {@linkcode GltfSkeleton.skins}, whose `skinJoints` mapped the
   * file's vertex joints to `skin.joints`; -1 for a rigidly attached mesh
   * (`ParseGltfOptions.attachedMeshes`), whose every vertex follows its
   * node's joint.
   */
  readonly gltfSkin: number;
  /** glTF index of the primitive's material in {@linkcode GltfImport.materials}; -1 for none. */
  readonly material: number;
}

/** One glTF skin of a {@linkcode GltfSkeleton}: its joints in the skeleton's numbering. */
export interface GltfSkin {
  /** glTF skin index. */
  readonly skin: number;
  /** Skin name (may be empty). */
  readonly name: string;
  /**
   * Skeleton joint of each entry of the skin's `joints` array: vertex joint
   * `i` of a primitive skinned with this skin is skeleton joint
   * `skinJoints[i]` (a bind twin where another skin of the skeleton binds
   * the same node with another inverse bind matrix).
   */
  readonly skinJoints: Uint16Array;
}

/**
 * One joint hierarchy as a skeleton: the glTF skins over it (skins that
 * share a node, joint or ancestor, share one skeleton), every primitive they
 * skin, and its clips.
 *
 * Joints are every skin's joints plus their ancestor nodes, each node once,
 * parents first: skins in file order, each skin's joints in order, each
 * after its ancestors (so a file with one skin per hierarchy keeps the order
 * of its skin). Where a later skin binds a joint with another inverse bind
 * matrix than the first skin that lists it, the skeleton has a **bind twin**
 * for it: a joint appended after the node joints, child of that joint with
 * the identity rest pose and no clip channel, whose inverse bind matrix is
 * that skin's, so that its skinning matrix is exact; it is named after its
 * node with `#bind:skin<index>` appended, and `nodes` gives it its parent's
 * node.
 */
export interface GltfSkeleton {
  /** glTF index of the skeleton's first skin (`skins[0].skin`). */
  readonly skin: number;
  /** Name of the skeleton's first skin (may be empty). */
  readonly name: string;
  /**
   * Joints (every skin's joints plus their ancestors, then bind twins),
   * parents first.
   */
  readonly skeleton: SkeletonDefinition;
  /**
   * glTF node index of each skeleton joint: each node once, except that a
   * bind twin repeats its parent's node.
   */
  readonly nodes: Int32Array;
  /**
   * The first skin's map (`skins[0].skinJoints`): vertex joint `i` of a
   * primitive skinned with it is skeleton joint `skinJoints[i]`.
   */
  readonly skinJoints: Uint16Array;
  /** Every glTF skin of the skeleton, in file order, each with its joint map. */
  readonly skins: readonly GltfSkin[];
  /**
   * Every primitive skinned with one of `skins`, skin by skin, in file
   * order; each says its skin (`gltfSkin`).
   */
  readonly primitives: readonly GltfSkinnedPrimitive[];
  /**
   * One clip per glTF animation, in file order (channels may be empty). An
   * unnamed animation is named `animation_<index>`, as three.js names it.
   */
  readonly clips: readonly Clip[];
}

/** Everything imported from one glTF file. */
export interface GltfImport {
  /** The input's name (path, URL or the `name` option). */
  readonly name: string;
  /**
   * One entry per joint hierarchy: skins that share nodes share one
   * skeleton, in order of their first skin.
   */
  readonly skeletons: readonly GltfSkeleton[];
  /** Problems that did not stop the import. */
  readonly warnings: readonly string[];
  /** The file's materials, in file order (see {@linkcode GltfSkinnedPrimitive.material}). */
  readonly materials: readonly GltfMaterial[];
  /** The file's textures: an image and a sampler each. */
  readonly textures: readonly GltfTexture[];
  /** The file's texture samplers (WebGL enums, as glTF gives them). */
  readonly samplers: readonly GltfSampler[];
  /** The file's images, never read or decoded by Marrow (see {@linkcode GltfImage}). */
  readonly images: readonly GltfImage[];
}

/** The appearance part of a {@linkcode GltfImport}. */
export type GltfAppearance = Pick<GltfImport, "materials" | "textures" | "samplers" | "images">;

/** A material's use of a texture. */
export interface GltfTextureRef {
  /** Index in {@linkcode GltfImport.textures}. */
  readonly texture: number;
  /** Which `TEXCOORD_n` set it reads (only `TEXCOORD_0` is imported, as `draw.uvs`). */
  readonly texCoord: number;
  /** A normal texture's scale. */
  readonly scale?: number;
  /** An occlusion texture's strength. */
  readonly strength?: number;
}

/**
 * A glTF metallic-roughness material as plain data, with glTF's defaults
 * filled in. A field of the wrong type or out of range takes its default
 * (the import's `warnings` name its JSON pointer); extensions are left out.
 */
export interface GltfMaterial {
  /** Material name (may be empty). */
  readonly name: string;
  /** Linear RGBA multiplier of the base colour. */
  readonly baseColorFactor: readonly number[];
  /** Base colour texture (sRGB). */
  readonly baseColorTexture?: GltfTextureRef;
  /** Metalness, 0..1. */
  readonly metallicFactor: number;
  /** Roughness, 0..1. */
  readonly roughnessFactor: number;
  /** Metalness (blue) and roughness (green) texture. */
  readonly metallicRoughnessTexture?: GltfTextureRef;
  /** Tangent-space normal map, with its `scale`. */
  readonly normalTexture?: GltfTextureRef;
  /** Ambient occlusion (red), with its `strength`. */
  readonly occlusionTexture?: GltfTextureRef;
  /** Emissive colour texture (sRGB). */
  readonly emissiveTexture?: GltfTextureRef;
  /** Linear RGB emissive multiplier. */
  readonly emissiveFactor: readonly number[];
  /** How alpha is used. */
  readonly alphaMode: "OPAQUE" | "MASK" | "BLEND";
  /** Alpha below which a `MASK` material is cut out. */
  readonly alphaCutoff: number;
  /** Whether back faces are drawn. */
  readonly doubleSided: boolean;
}

/** A glTF texture: indices of its image and sampler, -1 for none. */
export interface GltfTexture {
  /** Index in {@linkcode GltfImport.samplers}, -1 for glTF's default (repeat, auto filtering). */
  readonly sampler: number;
  /** Index in {@linkcode GltfImport.images}, -1 when the texture has none. */
  readonly image: number;
}

/** A glTF sampler: WebGL filter and wrap enums. */
export interface GltfSampler {
  /** 9728 (nearest) or 9729 (linear); absent: the renderer's choice. */
  readonly magFilter?: number;
  /** One of WebGL's six minification filters; absent: the renderer's choice. */
  readonly minFilter?: number;
  /** 33071 (clamp), 33648 (mirrored repeat) or 10497 (repeat). */
  readonly wrapS: number;
  /** As `wrapS`, for t. */
  readonly wrapT: number;
}

/**
 * One image of the file, as a renderer may load it; Marrow never reads or
 * decodes images. Exactly one of `uri`, `bytes` or `refused` is present:
 *
 * - `uri`: a base64 `data:` URI of a PNG or JPEG, or a path relative to the
 *   model's folder, percent-encoded and normalized by the loader's own
 *   rule for its buffers (no scheme, no absolute path, no `..` above the
 *   folder, no query): resolve it against the model's URL;
 * - `bytes`: the image's buffer view (a GLB's embedded image), unread;
 * - `refused`: why no URI is handed out (a path that leaves the folder, a
 *   scheme such as `http:` or `file:`, another kind of `data:` URI).
 */
export interface GltfImage {
  /** Image name (may be empty). */
  readonly name: string;
  /** `image/png` or `image/jpeg` when the file says so. */
  readonly mimeType?: string;
  /** Where to load the image from (see above). */
  readonly uri?: string;
  /** The image's bytes, from its buffer view. */
  readonly bytes?: Uint8Array;
  /** Why the image is not handed out. */
  readonly refused?: string;
}
