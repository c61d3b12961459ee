/**
 * Skinned primitives: vertex streams and influences as a `SkinDefinition`
 * (in the file's vertex order), and the attributes a renderer draws the
 * skinned output with (in Marrow's output order).
 *
 * Influences come from every `JOINTS_n`/`WEIGHTS_n` pair (any integer joint
 * type; float or normalized integer weights). Zero weights are dropped, a
 * joint listed twice has its weights summed, and influences are sorted by
 * decreasing weight. Weights are not renormalized here (the skin builder
 * does that). A vertex whose weights are all zero gets one influence of
 * weight 1 on its first `JOINTS_0` joint, as three.js does.
 *
 * @module
 */

import type { Accessor, Primitive } from "@gltf-transform/core";
import type { SkinDefinition } from "../animation/definitions.ts";
import { MAX_MESH_MAGNITUDE, outputVertexOrder, VERTEX_FLOATS } from "../animation/asset_layout.ts";
import type { ImportContext } from "./_context.ts";
import type { GltfDrawAttributes } from "./types.ts";

/** Reads an accessor into a 4-float-per-vertex stream, every value checked; `w` for every vertex, or the accessor's own (1 without one) when null. */
export function readStream(
  ctx: ImportContext,
  accessor: Accessor,
  count: number,
  w: number | null,
  pointer: string,
): Float32Array {
  const out = new Float32Array(count * VERTEX_FLOATS);
  const size = accessor.getElementSize();
  const e: number[] = [];
  for (let v = 0; v < count; v++) {
    accessor.getElement(v, e);
    const o = v * VERTEX_FLOATS;
    out[o] = e[0], out[o + 1] = e[1], out[o + 2] = e[2];
    out[o + 3] = w ?? (size >= 4 ? e[3] : 1);
    for (let c = 0; c < 4; c++) {
      if (!(Math.abs(out[o + c]) < MAX_MESH_MAGNITUDE)) {
        ctx.fail(pointer, `vertex ${v} has the value ${out[o + c]}, not finite or beyond ±1e18`);
      }
    }
  }
  return out;
}

/** Reads the primitive at `pointer` (`/meshes/m/primitives/p`) skinned with a skin of `skinJoints`. */
export function readSkinnedPrimitive(
  ctx: ImportContext,
  prim: Primitive,
  skinJoints: Uint16Array,
  pointer: string,
): SkinDefinition {
  const position = prim.getAttribute("POSITION");
  if (!position) ctx.fail(`${pointer}/attributes`, "the skinned primitive has no POSITION");
  const vertexCount = position.getCount();
  const checkVector = (semantic: string, acc: Accessor, sizes: number[]) => {
    const at = `${pointer}/attributes/${semantic}`;
    if (!sizes.includes(acc.getElementSize())) {
      ctx.fail(
        at,
        `${semantic} is ${acc.getType()}, expected ${sizes.map((n) => `VEC${n}`).join(" or ")}`,
      );
    }
    if (acc.getCount() !== vertexCount) {
      ctx.fail(at, `${semantic} has ${acc.getCount()} elements, but POSITION has ${vertexCount}`);
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
      const [has, lacks] = joints
        ? [`JOINTS_${k}`, `WEIGHTS_${k}`]
        : [`WEIGHTS_${k}`, `JOINTS_${k}`];
      ctx.fail(`${pointer}/attributes/${has}`, `the primitive has ${has} without ${lacks}`);
    }
    checkVector(`JOINTS_${k}`, joints, [4]);
    checkVector(`WEIGHTS_${k}`, weights, [4]);
    if (joints.getComponentType() === 5126 || joints.getNormalized()) {
      ctx.fail(`${pointer}/attributes/JOINTS_${k}`, "joint indices must be unnormalized integers");
    }
    if (weights.getComponentType() !== 5126 && !weights.getNormalized()) {
      ctx.fail(`${pointer}/attributes/WEIGHTS_${k}`, "integer weights must be normalized");
    }
    sets.push({ joints, weights });
  }
  if (sets.length === 0) {
    ctx.fail(
      `${pointer}/attributes`,
      "the primitive belongs to a skinned node but has no JOINTS_0 and WEIGHTS_0",
    );
  }
  if (sets.length > 63) {
    ctx.fail(
      `${pointer}/attributes`,
      `the primitive has ${sets.length * 4} influences per vertex, at most 252 are supported`,
    );
  }
  const streams = 1 + (normal ? 1 : 0) + (tangent ? 1 : 0);
  ctx.spend(
    vertexCount * (streams * VERTEX_FLOATS + 1 + sets.length * 8),
    pointer,
    `the primitive's ${vertexCount} vertices`,
  );

  const jointCount = skinJoints.length;
  const counts = new Uint8Array(vertexCount);
  const outJoints: number[] = [];
  const outWeights: number[] = [];
  const vj: number[] = [], vw: number[] = [];
  const ej: number[] = [], ew: number[] = [];
  let allZero = 0;
  for (let v = 0; v < vertexCount; v++) {
    vj.length = 0, vw.length = 0;
    let first = -1, sum = 0;
    for (const [k, set] of sets.entries()) {
      set.joints.getElement(v, ej);
      set.weights.getElement(v, ew);
      for (let c = 0; c < 4; c++) {
        const j = ej[c], w = ew[c];
        if (!(w >= 0) || !Number.isFinite(w)) {
          ctx.fail(
            `${pointer}/attributes/WEIGHTS_${k}`,
            `vertex ${v} has the weight ${w}, not a finite number >= 0`,
          );
        }
        if (!(j >= 0 && j < jointCount)) {
          // Joint 0 padding next to a zero weight is common; only a joint
          // that carries weight must exist.
          if (w === 0) continue;
          ctx.fail(
            `${pointer}/attributes/JOINTS_${k}`,
            `vertex ${v} is weighted to joint ${j}, but the skin has ${jointCount} joints`,
          );
        }
        if (first < 0) first = j;
        if (w === 0) continue;
        sum += w;
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
    if (!Number.isFinite(Math.fround(sum))) {
      ctx.fail(
        `${pointer}/attributes/WEIGHTS_0`,
        `the weights of vertex ${v} add up beyond float range`,
      );
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
      `${pointer}: ${allZero} vertices have only zero weights; each is bound to its first joint with weight 1`,
    );
  }
  return {
    vertexCount,
    positions: readStream(ctx, position, vertexCount, 1, `${pointer}/attributes/POSITION`),
    ...(normal
      ? { normals: readStream(ctx, normal, vertexCount, 0, `${pointer}/attributes/NORMAL`) }
      : {}),
    ...(tangent
      ? { tangents: readStream(ctx, tangent, vertexCount, null, `${pointer}/attributes/TANGENT`) }
      : {}),
    influenceCounts: counts,
    joints: Uint16Array.from(outJoints),
    weights: Float32Array.from(outWeights),
  };
}

/** The file's index buffer of the primitive, each index checked against the vertex count. */
export function readIndices(
  ctx: ImportContext,
  prim: Primitive,
  vertexCount: number,
  pointer: string,
): Uint16Array | Uint32Array | undefined {
  const array = prim.getIndices()?.getArray();
  if (!array) return undefined;
  for (let i = 0; i < array.length; i++) {
    if (array[i] >= vertexCount) {
      ctx.fail(
        `${pointer}/indices`,
        `index ${i} is vertex ${array[i]}, but the primitive has ${vertexCount} vertices`,
      );
    }
  }
  ctx.spend(array.length * 2, pointer, `the primitive's ${array.length} indices`);
  return array instanceof Uint16Array ? array.slice() : Uint32Array.from(array);
}

/** The primitive's draw attributes in output order, for its `skin`'s vertices. */
export function readDrawAttributes(
  ctx: ImportContext,
  prim: Primitive,
  skin: SkinDefinition,
  indices: Uint16Array | Uint32Array | undefined,
  pointer: string,
): GltfDrawAttributes {
  const n = skin.vertexCount;
  const vertexOrder = outputVertexOrder(skin.influenceCounts, skin.joints, skin.weights);
  const outputIndex = new Uint32Array(n);
  for (let i = 0; i < n; i++) outputIndex[vertexOrder[i]] = i;
  const drawIndices = indices
    ? Uint32Array.from(indices, (v) => outputIndex[v])
    : outputIndex.slice();
  const attribute = (semantic: string, sizes: number[], itemSize: number) => {
    const accessor = prim.getAttribute(semantic);
    if (!accessor) return undefined;
    const at = `${pointer}/attributes/${semantic}`;
    if (accessor.getCount() !== n || !sizes.includes(accessor.getElementSize())) {
      ctx.fail(
        at,
        `${semantic} must be ${n} ${
          sizes.map((s) => `VEC${s}`).join(" or ")
        }, found ${accessor.getCount()} ${accessor.getType()}`,
      );
    }
    ctx.spend(n * itemSize, at, `${semantic} of ${n} vertices`);
    const out = new Float32Array(n * itemSize).fill(1);
    const e: number[] = [];
    for (let i = 0; i < n; i++) {
      accessor.getElement(vertexOrder[i], e);
      for (let c = 0; c < accessor.getElementSize(); c++) out[i * itemSize + c] = e[c];
    }
    return out;
  };
  const uvs = attribute("TEXCOORD_0", [2], 2);
  const colors = attribute("COLOR_0", [3, 4], 4);
  ctx.spend(n * 3 + drawIndices.length, pointer, "the primitive's draw attributes");
  return {
    vertexOrder,
    indices: drawIndices,
    ...(uvs ? { uvs } : {}),
    ...(colors ? { colors } : {}),
  };
}
