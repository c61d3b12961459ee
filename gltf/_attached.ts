/**
 * Rigidly attached meshes (`ImportGltfOptions.attachedMeshes`): a mesh on
 * a node without a skin, in the hierarchy of a skeleton (RobotExpressive's
 * face under its head joint, helmets, weapons), imported as a one-joint
 * skin. Its node becomes a joint of the skeleton (with its ancestors, as
 * the skins' joints bring theirs) bound with the identity, and every vertex
 * is weighted 1 to it, so that skinning moves the mesh by the node's world
 * matrix, as glTF moves it.
 *
 * @module
 */

import type { Node, Primitive } from "@gltf-transform/core";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { ImportContext } from "./_context.ts";
import { readStream } from "./_primitives.ts";
import { rootFinder } from "./_skeleton.ts";

/**
 * Per skin group (each a list of skins' joints' nodes), the nodes with a
 * mesh and no skin whose root is a root of the group's joints; each node's
 * root is found once (a chain of any length costs its length).
 */
export function attachedNodes(nodes: readonly Node[], groupJoints: readonly Node[][]): Node[][] {
  const findRoot = rootFinder();
  const groupOfRoot = new Map<Node, number>();
  groupJoints.forEach((joints, g) => {
    for (const joint of joints) {
      const root = findRoot(joint);
      if (!groupOfRoot.has(root)) groupOfRoot.set(root, g);
    }
  });
  const out: Node[][] = groupJoints.map(() => []);
  for (const node of nodes) {
    if (!node.getMesh() || node.getSkin()) continue;
    const g = groupOfRoot.get(findRoot(node));
    if (g !== undefined) out[g].push(node);
  }
  return out;
}

/** The primitive at `pointer`, every vertex weighted 1 to skeleton joint `joint`. */
export function readAttachedPrimitive(
  ctx: ImportContext,
  prim: Primitive,
  joint: number,
  pointer: string,
): SkinDefinition {
  const position = prim.getAttribute("POSITION");
  if (!position) ctx.fail(`${pointer}/attributes`, "the attached primitive has no POSITION");
  const vertexCount = position.getCount();
  const streams = ["POSITION", "NORMAL", "TANGENT"].map((semantic, s) => {
    const accessor = prim.getAttribute(semantic);
    if (!accessor) return undefined;
    const at = `${pointer}/attributes/${semantic}`;
    if (accessor.getElementSize() !== (s === 2 ? 4 : 3) || accessor.getCount() !== vertexCount) {
      ctx.fail(
        at,
        `${semantic} must be ${vertexCount} VEC${
          s === 2 ? 4 : 3
        }, found ${accessor.getCount()} ${accessor.getType()}`,
      );
    }
    return accessor;
  });
  const streamCount = streams.filter((a) => a).length;
  ctx.spend(
    vertexCount * (streamCount * 4 + 1 + 3),
    pointer,
    `the primitive's ${vertexCount} vertices`,
  );
  const [positions, normals, tangents] = streams.map((accessor, s) =>
    accessor &&
    readStream(
      ctx,
      accessor,
      vertexCount,
      s === 0 ? 1 : s === 1 ? 0 : null,
      `${pointer}/attributes/${["POSITION", "NORMAL", "TANGENT"][s]}`,
    )
  );
  return {
    vertexCount,
    positions: positions!,
    ...(normals ? { normals } : {}),
    ...(tangents ? { tangents } : {}),
    influenceCounts: new Uint8Array(vertexCount).fill(1),
    joints: new Uint16Array(vertexCount).fill(joint),
    weights: new Float32Array(vertexCount).fill(1),
  };
}
