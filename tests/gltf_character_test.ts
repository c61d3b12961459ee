/**
 * createCharacterAssets: an imported skeleton's runtime assets, every
 * distinct skinned mesh once in one skin, drawn correctly with the
 * primitives' own draw attributes.
 */
import { assertEquals, assertThrows } from "@std/assert";
import { createCharacterAssets, type GltfSkeleton, parseGltf } from "../gltf/mod.ts";
import { readAsset } from "./_three_gltf.ts";

Deno.test("RobotExpressive: one skin of every distinct primitive, in primitive order", async () => {
  const model = await parseGltf(readAsset("RobotExpressive.glb"), { name: "RobotExpressive.glb" });
  for (const gltfSkeleton of model.skeletons.filter((s) => s.primitives.length > 0)) {
    using assets = disposable(createCharacterAssets(gltfSkeleton));
    const { skin, primitives } = assets;
    const distinct = new Set(gltfSkeleton.primitives.map((p) => p.skin));
    assertEquals(primitives.length, distinct.size);
    assertEquals(skin.meshes.length, primitives.length);
    primitives.forEach((p, m) => {
      assertEquals(skin.meshes[m].vertexCount, p.skin.vertexCount);
      // The primitive's draw indices, offset to its mesh, are the skin's remap of the file's.
      const start = skin.meshes[m].firstVertex;
      const offset = Uint32Array.from(p.draw.indices, (i) => i + start);
      const source = p.indices ?? Uint32Array.from({ length: p.skin.vertexCount }, (_, i) => i);
      assertEquals(Array.from(skin.remapIndices(source, m)), Array.from(offset));
    });
  }
});

Deno.test("RecursiveSkeletons: a mesh instanced by many nodes is one mesh of the skin", async () => {
  const model = await parseGltf(readAsset("RecursiveSkeletons.glb"), {
    name: "RecursiveSkeletons.glb",
  });
  const skinned = model.skeletons.find((s) => s.primitives.length > 0)!;
  using assets = disposable(createCharacterAssets(skinned));
  assertEquals(assets.skin.meshes.length, new Set(skinned.primitives.map((p) => p.skin)).size);
});

Deno.test("a skeleton without skinned primitives is a RangeError naming the skin", () => {
  const empty = { skin: 3, name: "bare", primitives: [] } as unknown as GltfSkeleton;
  assertThrows(() => createCharacterAssets(empty), RangeError, 'skin 3 ("bare")');
});

function disposable<T extends { skeleton: { dispose(): void }; skin: { dispose(): void } }>(
  assets: T,
): T & Disposable {
  return Object.assign(assets, {
    [Symbol.dispose]() {
      assets.skin.dispose();
      assets.skeleton.dispose();
    },
  });
}
