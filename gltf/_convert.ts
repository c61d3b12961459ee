/**
 * From a parsed, validated document to the import's plain data: one
 * skeleton per joint hierarchy (skins that share nodes share it), with the
 * primitives its skins skin and one clip per animation.
 *
 * @module
 */

import type { Document, Mesh, Node, Primitive } from "@gltf-transform/core";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { ImportContext } from "./_context.ts";
import { buildSkeleton, groupSkins } from "./_skeleton.ts";
import { readDrawAttributes, readIndices, readSkinnedPrimitive } from "./_primitives.ts";
import { clipFor, readAnimation } from "./_animations.ts";
import { defaultWeights, readMorphTargets } from "./_morph.ts";
import { attachedNodes, readAttachedPrimitive } from "./_attached.ts";
import type { readAppearance } from "./_appearance.ts";
import type {
  GltfDrawAttributes,
  GltfImport,
  GltfSkeleton,
  GltfSkinnedPrimitive,
} from "./types.ts";

/** What one primitive gives one skin, shared by the nodes that instance it. */
interface ReadPrimitive {
  readonly skin: SkinDefinition;
  readonly indices?: Uint16Array | Uint32Array;
  readonly draw: GltfDrawAttributes;
}

/** Converts `document`; failures name their JSON pointer. */
export function convert(
  ctx: ImportContext,
  document: Document,
  appearance: ReturnType<typeof readAppearance>,
): GltfImport {
  const root = document.getRoot();
  const materialOf = (m: number, p: number) => appearance.primitiveMaterials[m]?.[p] ?? -1;
  const nodes = root.listNodes();
  const meshes = root.listMeshes();
  const skins = root.listSkins();
  const nodeIndex = new Map<Node, number>(nodes.map((n, i) => [n, i]));
  const meshIndex = new Map(meshes.map((m, i) => [m, i]));
  const skinIndex = new Map(skins.map((s, i) => [s, i]));
  const animations = root.listAnimations().map((a, i) =>
    readAnimation(ctx, a, i, nodeIndex, meshIndex)
  );
  // Nodes by skin, in file order, so that each skin visits only its own.
  const skinnedNodes: Node[][] = skins.map(() => []);
  for (const node of nodes) {
    const skin = node.getSkin();
    if (skin && node.getMesh()) skinnedNodes[skinIndex.get(skin)!].push(node);
  }
  const groups = groupSkins(skins);
  const attached = ctx.attachedMeshes
    ? attachedNodes(nodes, groups.map((group) => group.flatMap((s) => skins[s].listJoints())))
    : groups.map((): Node[] => []);
  const skeletons: GltfSkeleton[] = groups.map((group, g) => {
    const built = buildSkeleton(ctx, group.map((s) => skins[s]), group, nodeIndex, attached[g]);
    const primitives: GltfSkinnedPrimitive[] = [];
    group.forEach((s, k) => {
      // The same mesh instanced twice with this skin shares its vertex data.
      const read = new Map<Primitive, ReadPrimitive>();
      for (const node of skinnedNodes[s]) {
        const mesh = node.getMesh()!;
        const m = meshIndex.get(mesh)!;
        mesh.listPrimitives().forEach((prim, p) => {
          const pointer = `/meshes/${m}/primitives/${p}`;
          let primitive = read.get(prim);
          if (!primitive) {
            const base = readSkinnedPrimitive(ctx, prim, built.skinJoints[k], pointer);
            read.set(prim, primitive = completePrimitive(ctx, prim, mesh, base, pointer));
          }
          primitives.push(
            instance(ctx, node, nodeIndex, m, p, prim, primitive, s, materialOf(m, p)),
          );
        });
      }
    });
    for (const node of attached[g]) {
      const mesh = node.getMesh()!, m = meshIndex.get(mesh)!;
      const joint = built.jointOfNode.get(node)!;
      mesh.listPrimitives().forEach((prim, p) => {
        const pointer = `/meshes/${m}/primitives/${p}`;
        const base = readAttachedPrimitive(ctx, prim, joint, pointer);
        const read = completePrimitive(ctx, prim, mesh, base, pointer);
        primitives.push(instance(ctx, node, nodeIndex, m, p, prim, read, -1, materialOf(m, p)));
      });
    }
    const meshNodes = new Set([...group.flatMap((s) => skinnedNodes[s]), ...attached[g]]);
    const clips = animations.map((a) => clipFor(ctx, a, built.jointOfNode, meshNodes));
    return {
      skin: group[0],
      name: skins[group[0]].getName(),
      skeleton: built.skeleton,
      nodes: built.nodes,
      skinJoints: built.skinJoints[0],
      skins: group.map((s, k) => ({
        skin: s,
        name: skins[s].getName(),
        skinJoints: built.skinJoints[k],
      })),
      primitives,
      clips,
    };
  });
  const { primitiveMaterials: _, ...looks } = appearance;
  return { name: ctx.file, skeletons, warnings: ctx.warnings, ...looks };
}

/** A primitive's vertex data completed from its skin: morph targets, indices, draw attributes. */
function completePrimitive(
  ctx: ImportContext,
  prim: Primitive,
  mesh: Mesh,
  base: SkinDefinition,
  pointer: string,
): ReadPrimitive {
  const names = mesh.getExtras().targetNames as string[] | undefined;
  const morphTargets = readMorphTargets(ctx, prim, base.vertexCount, names, pointer);
  const skin = morphTargets ? { ...base, morphTargets } : base;
  const indices = readIndices(ctx, prim, skin.vertexCount, pointer);
  const draw = readDrawAttributes(ctx, prim, skin, indices, pointer);
  return { skin, ...(indices ? { indices } : {}), draw };
}

/** Node `node`'s instance of primitive `p` of its mesh (`m`), with its vertex data `read`. */
function instance(
  ctx: ImportContext,
  node: Node,
  nodeIndex: Map<Node, number>,
  m: number,
  p: number,
  prim: Primitive,
  read: ReadPrimitive,
  gltfSkin: number,
  material: number,
): GltfSkinnedPrimitive {
  const mesh = node.getMesh()!, targetCount = prim.listTargets().length;
  ctx.spend(16 + targetCount, `/meshes/${m}/primitives/${p}`, "another instance of the primitive");
  return {
    node: nodeIndex.get(node)!,
    nodeName: node.getName(),
    mesh: m,
    meshName: mesh.getName(),
    primitive: p,
    ...read,
    morphWeights: defaultWeights(node, mesh, targetCount),
    mode: prim.getMode(),
    gltfSkin,
    material,
  };
}
