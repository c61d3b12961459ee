/**
 * Morph targets of skinned primitives and the `weights` channels that key
 * them. A target's displacements are read densely (the parser expands
 * sparse accessors) and kept as an index list of the vertices they move
 * when fewer than half move; an attribute a target lacks, or whose
 * displacements are all zero, displaces nothing (see
 * `animation/morph.ts`). Normal and tangent displacements of a primitive
 * without normals or tangents have nothing to move and are left out, with
 * a warning.
 *
 * @module
 */

import type { Accessor, AnimationChannel, Mesh, Node, Primitive } from "@gltf-transform/core";
import { MAX_MESH_MAGNITUDE } from "../animation/asset_layout.ts";
import type { Interpolation } from "../animation/clip.ts";
import type {
  MorphDisplacements,
  MorphTargetDefinition,
  MorphWeightsChannel,
} from "../animation/morph.ts";
import type { ImportContext } from "./_context.ts";

/** The attributes a target displaces, and the stream of the definition each goes to. */
const DISPLACED = [
  ["POSITION", "positions"],
  ["NORMAL", "normals"],
  ["TANGENT", "tangents"],
] as const;

/** A weights channel, with the node it animates for matching it to skeletons. */
export interface ReadWeightsChannel extends MorphWeightsChannel {
  readonly target: Node;
}

/**
 * The morph targets of the primitive at `pointer` (`/meshes/m/primitives/p`)
 * of `vertexCount` vertices, undefined when it has none; `names` from the
 * mesh's `extras.targetNames`.
 */
export function readMorphTargets(
  ctx: ImportContext,
  prim: Primitive,
  vertexCount: number,
  names: readonly string[] | undefined,
  pointer: string,
): MorphTargetDefinition[] | undefined {
  const targets = prim.listTargets();
  if (targets.length === 0) return undefined;
  const has = {
    POSITION: true,
    NORMAL: !!prim.getAttribute("NORMAL"),
    TANGENT: !!prim.getAttribute("TANGENT"),
  };
  let unused = 0;
  const read = targets.map((target, k) => {
    const out: { -readonly [K in keyof MorphTargetDefinition]: MorphTargetDefinition[K] } = {
      name: names?.[k] ?? "",
    };
    for (const [semantic, stream] of DISPLACED) {
      const accessor = target.getAttribute(semantic);
      if (!accessor) continue;
      if (!has[semantic]) {
        unused++;
        continue;
      }
      const at = `${pointer}/targets/${k}/${semantic}`;
      const displacements = readDisplacements(ctx, accessor, vertexCount, at);
      if (displacements) out[stream] = displacements;
    }
    return out;
  });
  if (unused > 0) {
    ctx.warnings.push(
      `${pointer}: ${unused} normal or tangent displacements of its morph targets are left out, ` +
        "as the primitive has no such attribute",
    );
  }
  return read;
}

/** One attribute's displacements, every value checked; undefined when none moves. */
function readDisplacements(
  ctx: ImportContext,
  accessor: Accessor,
  vertexCount: number,
  pointer: string,
): MorphDisplacements | undefined {
  if (accessor.getCount() !== vertexCount) {
    ctx.fail(
      pointer,
      `the displacements have ${accessor.getCount()} elements, but POSITION has ${vertexCount}`,
    );
  }
  ctx.spend(vertexCount * 3, pointer, `the morph target's ${vertexCount} displacements`);
  const dense = new Float32Array(vertexCount * 3);
  const e: number[] = [];
  let moved = 0;
  for (let v = 0; v < vertexCount; v++) {
    accessor.getElement(v, e);
    for (let c = 0; c < 3; c++) {
      const d = e[c];
      if (!(Math.abs(d) < MAX_MESH_MAGNITUDE)) {
        ctx.fail(pointer, `vertex ${v} has the displacement ${d}, not finite or beyond ±1e18`);
      }
      dense[v * 3 + c] = d;
    }
    if (e[0] !== 0 || e[1] !== 0 || e[2] !== 0) moved++;
  }
  if (moved === 0) return undefined;
  if (moved * 2 >= vertexCount) return { deltas: dense };
  ctx.spend(moved * 4, pointer, `the morph target's ${moved} displaced vertices`);
  const vertices = new Uint32Array(moved), deltas = new Float32Array(moved * 3);
  for (let v = 0, k = 0; v < vertexCount; v++) {
    const x = dense[v * 3], y = dense[v * 3 + 1], z = dense[v * 3 + 2];
    if (x === 0 && y === 0 && z === 0) continue;
    vertices[k] = v;
    deltas[k * 3] = x, deltas[k * 3 + 1] = y, deltas[k * 3 + 2] = z;
    k++;
  }
  return { vertices, deltas };
}

/**
 * The `weights` channel `channel` (at `pointer`) with key `times`, or
 * undefined (and a warning) when its node has no mesh with morph targets:
 * there is nothing it could move.
 */
export function readWeightsChannel(
  ctx: ImportContext,
  channel: AnimationChannel,
  times: Float32Array,
  meshIndex: Map<Mesh, number>,
  nodeIndex: Map<Node, number>,
  pointer: string,
  samplerPointer: string,
): ReadWeightsChannel | undefined {
  const target = channel.getTargetNode()!;
  const mesh = target.getMesh();
  const targetCount = mesh?.listPrimitives()[0]?.listTargets().length ?? 0;
  if (!mesh || targetCount === 0) {
    ctx.warnings.push(
      `${pointer} animates the morph weights of node ${
        nodeIndex.get(target)
      }, which has no mesh with morph targets; it is ignored`,
    );
    return undefined;
  }
  const sampler = channel.getSampler()!, output = sampler.getOutput()!;
  const interpolation = sampler.getInterpolation() as Interpolation;
  const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
  const expected = times.length * perKey * targetCount;
  if (output.getElementSize() !== 1 || output.getCount() !== expected) {
    ctx.fail(
      `${samplerPointer}/output`,
      `${times.length} keys of ${interpolation} weights of ${targetCount} morph targets need ` +
        `${expected} SCALAR values, the output has ${output.getCount()} ${output.getType()}`,
    );
  }
  if (output.getComponentType() !== 5126 && !output.getNormalized()) {
    ctx.fail(`${samplerPointer}/output`, "integer key values must be normalized");
  }
  const values = new Float32Array(expected);
  const e: number[] = [];
  for (let i = 0; i < expected; i++) {
    output.getElement(i, e);
    if (!(Math.abs(e[0]) < MAX_MESH_MAGNITUDE)) {
      ctx.fail(`${samplerPointer}/output`, `value ${i} is not finite or beyond ±1e18`);
    }
    values[i] = e[0];
  }
  return {
    target,
    node: nodeIndex.get(target)!,
    mesh: meshIndex.get(mesh)!,
    targetCount,
    interpolation,
    times,
    values,
  };
}

/**
 * The default weights of `node`'s instance of `mesh`: the node's own, else
 * the mesh's, else zeros; empty without morph targets.
 */
export function defaultWeights(node: Node, mesh: Mesh, targetCount: number): Float32Array {
  const weights = node.getWeights().length ? node.getWeights() : mesh.getWeights();
  const out = new Float32Array(targetCount);
  if (weights.length === targetCount) out.set(weights);
  return out;
}
