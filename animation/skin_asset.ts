/**
 * {@linkcode SkinAsset}: the skinned meshes of a character, built once for
 * a skeleton and shared by every entity that wears them.
 *
 * Building a skin validates it, renormalizes each vertex's weights to sum to
 * one (as three.js's `normalizeSkinWeights` does: real assets often have
 * sums off by quantization or by mistake), sorts each vertex's influences by
 * decreasing weight, and orders each mesh's vertices by influence count so
 * the core runs one specialised loop per count, then by joints in
 * decreasing weight order so the one- and two-influence loops keep a run's
 * joint matrices in registers (stable otherwise). Skinned output is in that
 * order: output vertex `i` is source vertex `vertexOrder[i]`; pass index
 * buffers through {@linkcode SkinAsset.remapIndices} and other vertex
 * attributes (UVs, colours) through {@linkcode SkinAsset.reorderAttribute}.
 *
 * A character with several meshes (Xbot's body and joints) is one skin of
 * several meshes: its skeleton is animated once per entity and one
 * skinning pass writes every mesh, each a contiguous range of the output
 * ({@linkcode SkinAsset.meshes}).
 *
 * @example
 * ```ts
 * import { SkinAsset } from "@marrow/anim";
 * import { createCylinder } from "@marrow/anim/procedural";
 * import { SkeletonAsset } from "@marrow/anim";
 *
 * const cylinder = createCylinder({ joints: 4 });
 * using skeleton = new SkeletonAsset(cylinder.skeleton);
 * using skin = new SkinAsset(skeleton, [cylinder.skin, cylinder.skin]);
 * console.log(skin.meshes[1].firstVertex === cylinder.skin.vertexCount); // true
 * ```
 * @module
 */

import { type Core, SkinMesh } from "../simd/memory/core.ts";
import { VERTEX_FLOATS } from "../simd/memory/layout.ts";
import type { SkinDefinition } from "./definitions.ts";
import { SkeletonAsset } from "./skeleton_asset.ts";
import { lifetimeOf } from "./_lifetime.ts";
import { setSkinInternals } from "./_asset_internals.ts";
import { CoreAsset, registerCoreAssetClass } from "./core_asset.ts";
import { jointSpaceBoxes, prepareMesh } from "./_skin_prepare.ts";
import { prepareMorph } from "./_morph_prepare.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** How a skin blends its joints' transforms. */
export type SkinningMethod = "linear" | "dual-quaternion";

/** Options of {@linkcode SkinAsset}. */
export interface SkinAssetOptions {
  /**
   * `"linear"` (default): linear blend skinning through the collapsed
   * palette. `"dual-quaternion"`: Kavan et al. 2007, which keeps volume at
   * twisting joints (no candy-wrapper collapse) but needs each palette
   * matrix to be a rotation times a uniform scale: the skinning systems
   * blend the uniform scales linearly and throw a `DualQuaternionError`
   * (nothing written) for a joint with non-uniform scale, shear or a
   * mirror.
   */
  readonly method?: SkinningMethod;
}

/** Where one mesh of a skin sits in its output (and source) vertex numbering. */
export interface SkinMeshRange {
  /** First vertex of the mesh. */
  readonly firstVertex: number;
  /** Number of vertices of the mesh. */
  readonly vertexCount: number;
}

/**
 * An immutable skin for one skeleton: one or more meshes, stored in the
 * skeleton's core.
 *
 * Lifetime: {@linkcode SkinAsset.dispose} (or `using`) gives its memory back
 * to the core, deferred while entities wear it; a disposed skin cannot be
 * given to a new entity. A skin dropped without `dispose()` is released
 * when garbage collected.
 */
export class SkinAsset extends CoreAsset {
  readonly #skeleton: SkeletonAsset;
  readonly #mesh: SkinMesh;
  readonly #meshes: readonly SkinMeshRange[];
  readonly #maxInfluences: number;
  readonly #outputIndex: Uint32Array;
  readonly #jointBoxes: Float32Array;
  /** Output vertex `i` is source vertex `vertexOrder[i]` (a copy: yours to keep). */
  readonly vertexOrder: Uint32Array;
  /** Position of source vertex `v` in the output: the inverse of `vertexOrder`. */
  readonly outputIndex: Uint32Array;
  /** How the skin blends joints (see {@linkcode SkinAssetOptions.method}). */
  readonly method: SkinningMethod;
  /**
   * The name of each morph target (`""` when unnamed): every mesh's
   * `morphTargets`, mesh 0's first, so target `t` of the skin takes weight
   * `t` of `setMorphWeights`. Empty without morph targets.
   */
  readonly morphTargetNames: readonly string[];

  /**
   * Validates `definition` (one mesh, or several that share the skeleton)
   * against `skeleton` and builds the skin. Throws a `RangeError` naming
   * the mesh, field and vertex of the first problem: a joint index that is
   * not a whole number below the skeleton's joint count, a weight that is
   * negative or not finite, weights of a vertex summing to zero, a stream
   * shorter than the vertex count, a coordinate that is not finite or
   * beyond ±1e18, meshes that disagree on having normals or tangents, or
   * morph targets whose displacements are not one finite value per
   * vertex listed (or per vertex) or that displace a stream the skin lacks.
   * A `TypeError` if the skeleton was disposed.
   */
  constructor(
    skeleton: SkeletonAsset,
    definition: SkinDefinition | readonly SkinDefinition[],
    options: SkinAssetOptions = {},
  ) {
    const method = options?.method ?? "linear";
    if (method !== "linear" && method !== "dual-quaternion") {
      throw new RangeError(
        `options.method: expected "linear" or "dual-quaternion", got ${describeValue(method)}`,
      );
    }
    const definitions = Array.isArray(definition)
      ? definition as readonly SkinDefinition[]
      : [definition as SkinDefinition];
    if (definitions.length === 0) throw new RangeError("definition: expected at least one mesh");
    if (!(skeleton instanceof SkeletonAsset)) {
      throw new TypeError("skeleton: expected a SkeletonAsset");
    }
    if (skeleton.disposed) throw new TypeError("skeleton: it was disposed");
    const hasNormals = !!definitions[0]?.normals, hasTangents = !!definitions[0]?.tangents;
    const built = definitions.map((d, m) =>
      prepareMesh(d, skeleton.jointCount, definitions.length > 1 ? `meshes[${m}]: ` : "", {
        normals: hasNormals,
        tangents: hasTangents,
      })
    );
    const meshes: SkinMeshRange[] = [];
    let vertexCount = 0, influenceCount = 0;
    for (const mesh of built) {
      meshes.push(Object.freeze({ firstVertex: vertexCount, vertexCount: mesh.vertexCount }));
      vertexCount += mesh.vertexCount;
      influenceCount += mesh.joints.length;
    }
    const vertexOrder = new Uint32Array(vertexCount);
    const outputIndex = new Uint32Array(vertexCount);
    const joints = new Uint16Array(influenceCount), weights = new Float32Array(influenceCount);
    const floats = vertexCount * VERTEX_FLOATS;
    const positions = new Float32Array(floats);
    const normals = hasNormals ? new Float32Array(floats) : undefined;
    const tangents = hasTangents ? new Float32Array(floats) : undefined;
    const parts: number[] = [];
    let k = 0;
    for (let m = 0; m < built.length; m++) {
      const mesh = built[m], first = meshes[m].firstVertex;
      const { order, counts, starts } = mesh;
      const sources = mesh.streams;
      for (let i = 0; i < mesh.vertexCount; i++) {
        const v = order[i], out = first + i, n = counts[v], start = starts[v];
        vertexOrder[out] = first + v;
        outputIndex[first + v] = out;
        if (parts.length && parts[parts.length - 2] === n && i > 0) parts[parts.length - 1]++;
        else parts.push(n, 1);
        for (let e = 0; e < n; e++) {
          joints[k + e] = mesh.joints[start + e];
          weights[k + e] = mesh.weights[start + e];
        }
        k += n;
        copyVertex(positions, out, sources.positions, v);
        if (normals && sources.normals) copyVertex(normals, out, sources.normals, v);
        if (tangents && sources.tangents) copyVertex(tangents, out, sources.tangents, v);
      }
    }
    const morph = prepareMorph(
      definitions,
      meshes.map((m) => m.firstVertex),
      outputIndex,
      { normals: hasNormals, tangents: hasTangents },
      { parts, joints, inverseBind: skeleton.inverseBind, streams: [positions, normals, tangents] },
      skeleton.core,
    );
    const jointBoxes = jointSpaceBoxes(skeleton.inverseBind, parts, joints, positions);
    let mesh: SkinMesh;
    try {
      mesh = new SkinMesh({ parts, joints, weights, positions, normals, tangents }, skeleton.core);
    } catch (error) {
      morph?.targets.free();
      throw error;
    }
    const skeletonLifetime = lifetimeOf(skeleton);
    skeletonLifetime.acquire();
    super(() => {
      mesh.free();
      morph?.targets.free();
      skeletonLifetime.release();
    });
    this.#skeleton = skeleton;
    this.#mesh = mesh;
    this.#meshes = Object.freeze(meshes);
    this.#maxInfluences = Math.max(...built.map((b) => b.maxInfluences));
    this.#outputIndex = outputIndex;
    this.#jointBoxes = jointBoxes;
    setSkinInternals(this, { mesh, jointBoxes, morph });
    this.morphTargetNames = Object.freeze([...morph?.names ?? []]);
    this.method = method;
    this.vertexOrder = vertexOrder.slice();
    this.outputIndex = outputIndex.slice();
  }

  /** The skeleton the meshes are bound to. */
  get skeleton(): SkeletonAsset {
    return this.#skeleton;
  }

  /** The core holding the skin. */
  get core(): Core {
    return this.#skeleton.core;
  }

  /** Number of vertices of all meshes. */
  get vertexCount(): number {
    return this.#outputIndex.length;
  }

  /** The meshes, in the order given, each a contiguous vertex range. */
  get meshes(): readonly SkinMeshRange[] {
    return this.#meshes;
  }

  /** Whether the meshes have bind normals. */
  get hasNormals(): boolean {
    return this.#mesh.hasNormals;
  }

  /** Whether the meshes have bind tangents. */
  get hasTangents(): boolean {
    return this.#mesh.hasTangents;
  }

  /** Most influences of any vertex. */
  get maxInfluences(): number {
    return this.#maxInfluences;
  }

  /**
   * Maps source vertex indices (an index buffer) of mesh `mesh` to output
   * vertex indices, for drawing the skinned streams. Throws a `RangeError`
   * naming the first index outside the mesh.
   */
  remapIndices(indices: ArrayLike<number>, mesh = 0): Uint32Array {
    const range = this.#range(mesh);
    const out = new Uint32Array(indices.length);
    for (let i = 0; i < indices.length; i++) {
      const v = indices[i];
      if (!(Number.isInteger(v) && v >= 0 && v < range.vertexCount)) {
        throw new RangeError(
          `indices[${i}]: vertex ${v} is out of range 0..${range.vertexCount - 1}`,
        );
      }
      out[i] = this.#outputIndex[range.firstVertex + v];
    }
    return out;
  }

  /**
   * Reorders a per-vertex attribute of mesh `mesh` (UVs, colours: `itemSize`
   * values per vertex, in source order) into output order, so that it can
   * be drawn with the skinned streams. Returns an array of the same type
   * holding the mesh's output range.
   */
  reorderAttribute<T extends Float32Array | Uint8Array | Uint16Array | Uint32Array>(
    values: T,
    itemSize: number,
    mesh = 0,
  ): T {
    const range = this.#range(mesh);
    if (!Number.isInteger(itemSize) || itemSize < 1) {
      throw new RangeError(
        `itemSize: expected a whole number >= 1, got ${describeValue(itemSize)}`,
      );
    }
    if (!(values?.length >= range.vertexCount * itemSize)) {
      throw new RangeError(
        `values: expected ${range.vertexCount * itemSize} values, got ${
          describeValue(values?.length)
        }`,
      );
    }
    const out = new (values.constructor as new (length: number) => T)(range.vertexCount * itemSize);
    for (let v = 0; v < range.vertexCount; v++) {
      const to = (this.#outputIndex[range.firstVertex + v] - range.firstVertex) * itemSize;
      for (let c = 0; c < itemSize; c++) out[to + c] = values[v * itemSize + c];
    }
    return out;
  }

  /**
   * Per joint, the axis-aligned box in the joint's bind space
   * (`inverseBind[j] * p`) of the bind positions of every vertex it
   * influences: 6 floats per joint (min xyz, max xyz); +Infinity /
   * -Infinity for a joint that influences no vertex. The joint's model
   * matrix takes the box to where those vertices can be, so the union over
   * joints bounds the skinned mesh without skinning it. A copy.
   */
  get jointBounds(): Float32Array {
    return this.#jointBoxes.slice();
  }

  #range(mesh: number): SkinMeshRange {
    if (!Number.isInteger(mesh) || mesh < 0 || mesh >= this.#meshes.length) {
      throw new RangeError(
        `mesh: expected 0..${this.#meshes.length - 1}, got ${describeValue(mesh)}`,
      );
    }
    return this.#meshes[mesh];
  }
}

registerCoreAssetClass(SkinAsset);

/** Copies vertex `from` of a checked stream to vertex `to` of `target` (4 floats each). */
function copyVertex(target: Float32Array, to: number, source: ArrayLike<number>, from: number) {
  const o = to * VERTEX_FLOATS, i = from * VERTEX_FLOATS;
  target[o] = source[i];
  target[o + 1] = source[i + 1];
  target[o + 2] = source[i + 2];
  target[o + 3] = source[i + 3];
}
