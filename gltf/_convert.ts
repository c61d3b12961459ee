/**
 * From a parsed, validated document to the import's plain data: one
 * skeleton per joint hierarchy (skins that share nodes share it), with the
 * primitives its skins skin and one clip per animation.
 *
 * @module
 */

import type { Document, Node, Primitive } from "@gltf-transform/core";
import type { SkinDefinition } from "../animation/definitions.ts";
import type { ImportContext } from "./_context.ts";
import { buildSkeleton, groupSkins } from "./_skeleton.ts";
import { readDrawAttributes, readIndices, readSkinnedPrimitive } from "./_primitives.ts";
import { clipFor, readAnimation } from "./_animations.ts";
import { defaultWeights, readMorphTargets } from "./_morph.ts";
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
export function convert(ctx: ImportContext, document: Document): GltfImport {
  const root = document.getRoot();
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
  const skeletons: GltfSkeleton[] = groupSkins(skins).map((group) => {
    const built = buildSkeleton(ctx, group.map((s) => skins[s]), group, nodeIndex);
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
            const names = mesh.getExtras().targetNames as string[] | undefined;
            const morphTargets = readMorphTargets(ctx, prim, base.vertexCount, names, pointer);
            const skinDefinition = morphTargets ? { ...base, morphTargets } : base;
            const indices = readIndices(ctx, prim, skinDefinition.vertexCount, pointer);
            const draw = readDrawAttributes(ctx, prim, skinDefinition, indices, pointer);
            primitive = { skin: skinDefinition, ...(indices ? { indices } : {}), draw };
            read.set(prim, primitive);
          }
          const targetCount = prim.listTargets().length;
          ctx.spend(16 + targetCount, pointer, "another instance of the primitive");
          primitives.push({
            node: nodeIndex.get(node)!,
            nodeName: node.getName(),
            mesh: m,
            meshName: mesh.getName(),
            primitive: p,
            ...primitive,
            morphWeights: defaultWeights(node, mesh, targetCount),
            mode: prim.getMode(),
            gltfSkin: s,
          });
        });
      }
    });
    const meshNodes = new Set(group.flatMap((s) => skinnedNodes[s]));
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
  return { name: ctx.file, skeletons, warnings: ctx.warnings };
}
