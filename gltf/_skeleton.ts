/**
 * glTF skins as skeletons: one per joint hierarchy, with every skin's
 * joints plus every ancestor node of them, parents first, with rest pose
 * and inverse bind matrices, and a bind twin joint where two skins bind
 * one joint differently (see the module doc of `import.ts` for why
 * ancestors are folded in and skins share skeletons).
 *
 * @module
 */

import type { Node, Skin } from "@gltf-transform/core";
import type { SkeletonDefinition } from "../animation/definitions.ts";
import {
  MATRIX_FLOATS,
  MAX_MESH_MAGNITUDE,
  POSE_GROUP_FLOATS,
  poseFloats,
} from "../animation/asset_layout.ts";
import type { ImportContext } from "./_context.ts";

/** A joint hierarchy's skeleton, with the maps the rest of the import needs. */
interface BuiltSkeleton {
  readonly skeleton: SkeletonDefinition;
  readonly nodes: Int32Array;
  /** Each skin's skin-joint map, in the order of the skins given. */
  readonly skinJoints: readonly Uint16Array[];
  readonly jointOfNode: Map<Node, number>;
}

const MAX_JOINTS = 32767;
/** What a bind twin's name adds to its joint's name, before the skin's glTF index. */
const BIND_TWIN_SUFFIX = "#bind:skin";
/** Values a skeleton joint takes: its pose, inverse bind matrix, parent and maps. */
const JOINT_VALUES = 10 + MATRIX_FLOATS + 4;
/** Values a skin's joint takes besides its skeleton joint: its map entry and matrix read. */
const SKIN_JOINT_VALUES = 1 + MATRIX_FLOATS;

/**
 * A function giving each node's root, remembering every node it walked
 * through, so that all the calls together walk each node once.
 */
export function rootFinder(): (node: Node) => Node {
  const rootOf = new Map<Node, Node>();
  return (node) => {
    const path: Node[] = [];
    let at = node, root = rootOf.get(at);
    while (root === undefined) {
      path.push(at);
      const parent = at.getParentNode();
      if (!parent) root = at;
      else root = rootOf.get(at = parent);
    }
    for (const n of path) rootOf.set(n, root);
    return root;
  };
}

/**
 * The skins grouped by joint hierarchy: skins whose joints and ancestors
 * share a node (in a forest: a root) are one group. Groups are in order of
 * their first skin, skins in file order. Each node is walked once.
 */
export function groupSkins(skins: readonly Skin[]): number[][] {
  const findRoot = rootFinder();
  // Union-find over roots: a skin spanning two hierarchies unites them.
  const unionOf = new Map<Node, Node>();
  const find = (root: Node): Node => {
    let top = root;
    for (let up = unionOf.get(top); up; up = unionOf.get(top)) top = up;
    for (let at = root; at !== top;) {
      const next = unionOf.get(at)!;
      unionOf.set(at, top);
      at = next;
    }
    return top;
  };
  const firstRoots = skins.map((skin) => {
    const [first, ...rest] = skin.listJoints().map(findRoot);
    for (const root of rest) {
      const a = find(first), b = find(root);
      if (a !== b) unionOf.set(b, a);
    }
    return first;
  });
  const groups = new Map<Node, number[]>();
  firstRoots.forEach((root, s) => {
    const key = find(root);
    const group = groups.get(key);
    if (group) group.push(s);
    else groups.set(key, [s]);
  });
  return [...groups.values()];
}

/**
 * Builds the skeleton of `skins` (one group of {@linkcode groupSkins},
 * `indices` their glTF indices), and of `attached` (nodes of rigidly
 * attached meshes in the same hierarchy, which become joints bound with
 * the identity after the skins' joints); the node graph is already known
 * to be a forest.
 */
export function buildSkeleton(
  ctx: ImportContext,
  skins: readonly Skin[],
  indices: readonly number[],
  nodeIndex: Map<Node, number>,
  attached: readonly Node[] = [],
): BuiltSkeleton {
  // Depth-first from each skin joint up to its root, skins in file order,
  // so that a file already in parent order keeps its order, after the
  // ancestors it did not list.
  const order: Node[] = [];
  const jointOfNode = new Map<Node, number>();
  const visit = (node: Node, pointer: string): void => {
    const chain: Node[] = [];
    for (let at: Node | null = node; at && !jointOfNode.has(at); at = at.getParentNode()) {
      if (order.length + chain.length === MAX_JOINTS) failJoints(ctx, pointer);
      chain.push(at);
    }
    // Counted as it goes: each node of a hierarchy is one joint, however many skins share it.
    ctx.spend(chain.length * JOINT_VALUES, pointer, `the skeleton's ${chain.length} more joints`);
    for (let i = chain.length - 1; i >= 0; i--) {
      jointOfNode.set(chain[i], order.length);
      order.push(chain[i]);
    }
  };
  skins.forEach((skin, k) => {
    for (const joint of skin.listJoints()) visit(joint, `/skins/${indices[k]}`);
  });
  for (const node of attached) visit(node, `/nodes/${nodeIndex.get(node)}`);
  const binds = bindSkins(ctx, skins, indices, jointOfNode, order.length);
  const count = order.length + binds.twins.length;
  const parents = new Int16Array(count);
  const restPose = new Float32Array(poseFloats(count));
  const names: string[] = [];
  for (let j = 0; j < order.length; j++) {
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
  const nodes = new Int32Array(count);
  for (let j = 0; j < order.length; j++) nodes[j] = nodeIndex.get(order[j])!;
  // A bind twin stands at its joint: the identity pose, so its model matrix is its parent's.
  binds.twins.forEach(({ joint, skin }, t) => {
    const j = order.length + t;
    parents[j] = joint;
    nodes[j] = nodes[joint];
    names.push(`${names[joint]}${BIND_TWIN_SUFFIX}${indices[skin]}`);
  });
  // Padding lanes hold the identity, so that whole-group kernels see finite data.
  for (let j = order.length; j < Math.ceil(count / 4) * 4; j++) {
    writePoseJoint(restPose, j, [0, 0, 0], [0, 0, 0, 1], [1, 1, 1]);
  }
  return {
    skeleton: { names, parents, restPose, inverseBind: binds.inverseBind },
    nodes,
    skinJoints: binds.skinJoints,
    jointOfNode,
  };
}

function failJoints(ctx: ImportContext, pointer: string): never {
  ctx.fail(
    pointer,
    `the skins' joints, their ancestors and bind twins pass ${MAX_JOINTS} nodes, ` +
      "the most a skeleton can have",
  );
}

/** A joint a skin binds with another inverse bind matrix than the skin that first listed it. */
interface BindTwin {
  /** The skeleton joint it stands for (its parent). */
  readonly joint: number;
  /** The skin's position in the group. */
  readonly skin: number;
}

/**
 * The inverse bind matrices of the skins' joints, and each skin's joint
 * map. A joint takes the matrix of the first skin that lists it (until
 * then the identity: an ancestor binds nothing); a later skin that lists
 * it with another matrix (compared as stored, in f32) gets a bind twin,
 * one per distinct matrix, appended after the `jointCount` joints.
 */
function bindSkins(
  ctx: ImportContext,
  skins: readonly Skin[],
  indices: readonly number[],
  jointOfNode: Map<Node, number>,
  jointCount: number,
): { inverseBind: Float32Array; skinJoints: Uint16Array[]; twins: BindTwin[] } {
  const twins: BindTwin[] = [];
  /** By joint: the key of its matrix, once a skin lists it. */
  const boundKey = new Map<number, string>();
  /** By joint and matrix key: its twin's joint. */
  const twinOf = new Map<string, number>();
  const matrices: Float32Array[] = [];
  const skinJoints = skins.map((skin, k) => {
    const pointer = `/skins/${indices[k]}`;
    const joints = skin.listJoints();
    ctx.spend(joints.length * SKIN_JOINT_VALUES, pointer, `the skin's ${joints.length} joints`);
    const matrix = readInverseBinds(ctx, skin, joints.length, pointer);
    matrices.push(matrix);
    return Uint16Array.from(joints, (node, i) => {
      const joint = jointOfNode.get(node)!;
      const key = matrix.subarray(i * MATRIX_FLOATS, (i + 1) * MATRIX_FLOATS).join();
      const bound = boundKey.get(joint);
      if (bound === undefined) boundKey.set(joint, key);
      if (bound === undefined || bound === key) return joint;
      const twinKey = `${joint}|${key}`;
      let twin = twinOf.get(twinKey);
      if (twin === undefined) {
        if (jointCount + twins.length === MAX_JOINTS) failJoints(ctx, pointer);
        ctx.spend(JOINT_VALUES, `${pointer}/inverseBindMatrices`, "a bind twin joint");
        twin = jointCount + twins.length;
        twins.push({ joint, skin: k });
        twinOf.set(twinKey, twin);
      }
      return twin;
    });
  });
  const inverseBind = new Float32Array((jointCount + twins.length) * MATRIX_FLOATS);
  for (let j = 0; j < jointCount + twins.length; j++) {
    const m = j * MATRIX_FLOATS;
    inverseBind[m] = inverseBind[m + 5] = inverseBind[m + 10] = 1;
  }
  // Joints no skin lists (ancestors) keep the identity: they bind nothing.
  skinJoints.forEach((map, k) => {
    map.forEach((joint, i) => {
      const matrix = matrices[k].subarray(i * MATRIX_FLOATS, (i + 1) * MATRIX_FLOATS);
      inverseBind.set(matrix, joint * MATRIX_FLOATS);
    });
  });
  return { inverseBind, skinJoints, twins };
}

/** A skin's inverse bind matrices, row-major 3x4, checked; the identity when it has none. */
function readInverseBinds(
  ctx: ImportContext,
  skin: Skin,
  count: number,
  pointer: string,
): Float32Array {
  const out = new Float32Array(count * MATRIX_FLOATS);
  const ibm = skin.getInverseBindMatrices();
  const e: number[] = [];
  for (let i = 0; i < count; i++) {
    const m = i * MATRIX_FLOATS;
    if (!ibm) {
      out[m] = out[m + 5] = out[m + 10] = 1;
      continue;
    }
    ibm.getElement(i, e);
    // glTF matrices are column-major 4x4; ours are row-major 3x4.
    for (let r = 0; r < 3; r++) {
      for (let c = 0; c < 4; c++) out[m + r * 4 + c] = e[c * 4 + r];
    }
    for (let k = m; k < m + MATRIX_FLOATS; k++) {
      if (!(Math.abs(out[k]) < MAX_MESH_MAGNITUDE)) {
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
  return out;
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
