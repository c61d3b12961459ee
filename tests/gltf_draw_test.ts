/**
 * Output a renderer can use as it is: for every freely licensed fixture,
 * each primitive's draw attributes are in the order SkinAsset writes its
 * skinned output (vertexOrder equal, indices equal to remapIndices) in a
 * real frame, and UVs and colours equal the file's attributes (read
 * independently by gltf-transform) reordered.
 */

import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { WebIO } from "@gltf-transform/core";
import { getSkinnedPositions } from "../mod.ts";
import { parseGltf, reorderVertexAttribute } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { frameModel } from "./_gltf_frame.ts";

const FIXTURES = new URL("./fixtures/gltf/", import.meta.url);
const FILES = [...Deno.readDirSync(FIXTURES)]
  .filter((e) => e.isFile && /\.(glb|gltf)$/.test(e.name))
  .map((e) => e.name)
  .sort();

for (const file of FILES) {
  Deno.test(`${file}: draw attributes are in Marrow's output order`, async () => {
    const bytes = Deno.readFileSync(new URL(file, FIXTURES));
    const model = await parseGltf(bytes, { name: file });
    const io = new WebIO();
    const document = file.endsWith(".glb")
      ? await io.readBinary(bytes)
      : await io.readJSON({ json: JSON.parse(new TextDecoder().decode(bytes)), resources: {} });
    const meshes = document.getRoot().listMeshes();
    let primitivesChecked = 0;
    const still = { ...model, skeletons: model.skeletons.map((s) => ({ ...s, clips: [] })) };
    frameModel(still, Core.create("scalar"), 0, (world, entities) => {
      for (const { eid, primitive, skin } of entities) {
        const { draw } = primitive;
        const n = primitive.skin.vertexCount;
        assertEquals(draw.vertexOrder, skin.vertexOrder, "the order SkinAsset writes");
        const fileIndices = primitive.indices ?? Uint32Array.from({ length: n }, (_, v) => v);
        assertEquals(draw.indices, skin.remapIndices(fileIndices));
        const source = meshes[primitive.mesh].listPrimitives()[primitive.primitive];
        const uv = source.getAttribute("TEXCOORD_0");
        assertEquals(!!draw.uvs, !!uv);
        const e: number[] = [];
        if (uv && draw.uvs) {
          for (let i = 0; i < n; i++) {
            uv.getElement(draw.vertexOrder[i], e);
            assertEquals([draw.uvs[2 * i], draw.uvs[2 * i + 1]], [
              Math.fround(e[0]),
              Math.fround(e[1]),
            ]);
          }
          assertEquals(
            reorderVertexAttribute(primitive, Float32Array.from(uv.getArray()!), 2),
            draw.uvs,
          );
        }
        assertEquals(!!draw.colors, !!source.getAttribute("COLOR_0"));
        // Vertex v of the file is drawn where the skinned output holds it.
        const skinned = getSkinnedPositions(world, eid);
        assertEquals(skinned.length, 4 * n);
        primitivesChecked++;
      }
    });
    assert(primitivesChecked > 0);
  });
}

Deno.test("Fox has no index buffer: one is generated, and most vertices move in the output order", async () => {
  const model = await parseGltf(Deno.readFileSync(new URL("Fox.glb", FIXTURES)));
  const primitive = model.skeletons[0].primitives[0];
  assertEquals(primitive.indices, undefined);
  const n = primitive.skin.vertexCount;
  assertEquals(primitive.draw.indices.length, n);
  assertEquals(new Set(primitive.draw.indices).size, n);
  const moved = primitive.draw.vertexOrder.filter((v, i) => v !== i).length;
  assert(moved > n / 2, `${moved} of ${n} vertices move`);
  assert(primitive.draw.uvs && primitive.draw.uvs.length === 2 * n);
  assertThrows(
    () => reorderVertexAttribute(primitive, new Float32Array(5), 2),
    RangeError,
    "expected",
  );
  assertThrows(
    () => reorderVertexAttribute(primitive, new Float32Array(2 * n), 0),
    RangeError,
    "itemSize",
  );
});
