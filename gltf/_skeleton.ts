/**
 * A glTF skin as a skeleton: its joints plus every ancestor node of them,
 * parents first, with rest pose and inverse bind matrices (see the module
 * doc of `import.ts` for why ancestors are folded in).
 *
 * @module
 */

import type { Node, Skin } from "@gltf-transform/core";
import type { SkeletonDefinition } from "../animation/definitions.ts";
import { MATRIX_FLOATS, POSE_GROUP_FLOATS, poseFloats } from "../simd/layout.ts";
import { MAX_MESH_MAGNITUDE } from "../simd/_checks.ts";
import type { ImportContext } from "./_context.ts";

/** A skin's skeleton, with the maps the rest of the import needs. */
export interface BuiltSkeleton {
  readonly skeleton: SkeletonDefinition;
  readonly nodes: Int32Array;
  readonly skinJoints: Uint16Array;
  readonly jointOfNode: Map<Node, number>;
}

const MAX_JOINTS = 32767;
/** Values a skeleton joint takes: its pose, inverse bind matrix, parent and maps. */
const JOINT_VALUES = 10 + MATRIX_FLOATS + 4;

/** Builds skin `s`'s skeleton; the node graph is already known to be a forest. */
export function buildSkeleton(
  ctx: ImportContext,
  skin: Skin,
  s: number,
  nodeIndex: Map<Node, number>,
): BuiltSkeleton {
  const pointer = `/skins/${s}`;
  const joints = skin.listJoints();
  // Depth-first from each skin joint up to its root, so that a file already
  // in parent order keeps its order, after the ancestors it did not list.
  const order: Node[] = [];
  const jointOfNode = new Map<Node, number>();
  const visit = (node: Node): void => {
    const chain: Node[] = [];
    for (let at: Node | null = node; at && !jointOfNode.has(at); at = at.getParentNode()) {
      if (order.length + chain.length === MAX_JOINTS) {
        ctx.fail(
          pointer,
          `the skin's joints and their ancestors pass ${MAX_JOINTS} nodes, the most a skeleton can have`,
        );
      }
      chain.push(at);
    }
    // Counted as it goes: many skins over one deep hierarchy must not walk it without bound.
    ctx.spend(chain.length * JOINT_VALUES, pointer, `the skeleton's ${chain.length} more joints`);
    for (let i = chain.length - 1; i >= 0; i--) {
      jointOfNode.set(chain[i], order.length);
      order.push(chain[i]);
    }
  };
  for (const joint of joints) visit(joint);
  const count = order.length;
  const parents = new Int16Array(count);
  const restPose = new Float32Array(poseFloats(count));
  const names: string[] = [];
  for (let j = 0; j < count; j++) {
    const node = order[j];
    const parent = node.getParentNode();
    parents[j] = parent ? jointOfNode.get(parent)! : -1;
    names.push(node.getName());
    const q = node.getRotation();
    const len = Math.hypot(q[0], q[1], q[2], q[3]);
    const at = `/nodes/${nodeIndex.get(node)}`;
    if (!(len > 0) || !Number.isFinite(len)) {
      ctx.fail(at, `the node's rotation [${q.join(", ")}] is not a rotation`);
    }
    writePoseJoint(restPose, j, node.getTranslation(), q.map((c) => c / len), node.getScale());
    const g = (j >> 2) * POSE_GROUP_FLOATS + (j & 3);
    for (let f = 0; f < 10; f++) {
      if (!(Math.abs(restPose[g + f * 4]) < MAX_MESH_MAGNITUDE)) {
        ctx.fail(at, "the node's translation or scale is beyond ±1e18");
      }
    }
  }
  // Padding lanes hold the identity, so that whole-group kernels see finite data.
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
    const e: number[] = [];
    for (let i = 0; i < joints.length; i++) {
      ibm.getElement(i, e);
      const m = skinJoints[i] * MATRIX_FLOATS;
      // glTF matrices are column-major 4x4; ours are row-major 3x4.
      for (let r = 0; r < 3; r++) {
        for (let c = 0; c < 4; c++) inverseBind[m + r * 4 + c] = e[c * 4 + r];
      }
      for (let k = m; k < m + MATRIX_FLOATS; k++) {
        if (!(Math.abs(inverseBind[k]) < MAX_MESH_MAGNITUDE)) {
          ctx.fail(
            `${pointer}/inverseBindMatrices`,
            `inverse bind matrix ${i} is not finite or beyond ±1e18`,
          );
        }
      }
      const bottom = Math.abs(e[3]) + Math.abs(e[7]) + Math.abs(e[11]) + Math.abs(e[15] - 1);
      if (!(bottom < 1e-5)) {
        ctx.warnings.push(
          `${pointer}/inverseBindMatrices: matrix ${i} is not affine; its last row is ignored`,
        );
      }
    }
  }
  const nodes = Int32Array.from(order, (n) => nodeIndex.get(n)!);
  return { skeleton: { names, parents, restPose, inverseBind }, nodes, skinJoints, jointOfNode };
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
