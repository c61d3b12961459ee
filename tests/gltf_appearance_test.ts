/**
 * The importer's appearance data (materials, textures, samplers, images,
 * each primitive's material): against three.js's GLTFLoader materials and
 * glTF-Transform's reading of the same files on the real models; and on
 * hostile files, the image URIs the loader would not read itself are
 * refused, never handed out, and bad appearance fields fall back to glTF's
 * defaults with a warning naming their JSON pointer.
 */

import { assert, assertAlmostEquals, assertEquals, assertMatch } from "@std/assert";
import * as THREE from "three";
import { type GltfImport, importGltf, parseGltf } from "../gltf/mod.ts";
import { listAssets, loadThree, readAsset } from "./_three_gltf.ts";
import { readDocument } from "./_gltf_rig.ts";
import { missingTestOnlyModels } from "./_assets.ts";

const models = listAssets().filter((f) => !missingTestOnlyModels().includes(f));

Deno.test("appearance: each primitive's material is three.js's, on every test model", async () => {
  for (const file of models) {
    const bytes = readAsset(file);
    const [mine, three] = await Promise.all([importGltf(bytes), loadThree(bytes)]);
    for (const p of three.primitives) {
      const ours = mine.skeletons.flatMap((s) => s.primitives).find((q) =>
        q.node === p.node && q.mesh === p.mesh && q.primitive === p.primitive
      );
      assert(ours, `${file}: primitive ${p.mesh}/${p.primitive} of node ${p.node}`);
      const material = p.object.material as THREE.MeshStandardMaterial;
      const where = `${file} mesh ${p.mesh} primitive ${p.primitive}`;
      if (ours.material < 0) {
        assertEquals(material.name, "", `${where}: three.js's default material`);
        continue;
      }
      const m = mine.materials[ours.material];
      assertEquals(m.name, material.name, where);
      const color = material.color.clone();
      [color.r, color.g, color.b].forEach((c, i) =>
        assertAlmostEquals(c, m.baseColorFactor[i], 1e-6, `${where}: colour ${i}`)
      );
      assertAlmostEquals(material.opacity, m.baseColorFactor[3], 1e-6, where);
      assertAlmostEquals(material.metalness, m.metallicFactor, 1e-6, where);
      assertAlmostEquals(material.roughness, m.roughnessFactor, 1e-6, where);
      [material.emissive.r, material.emissive.g, material.emissive.b].forEach((c, i) =>
        assertAlmostEquals(c, m.emissiveFactor[i], 1e-6, `${where}: emissive ${i}`)
      );
      assertEquals(material.side === THREE.DoubleSide, m.doubleSided, where);
      assertEquals(material.transparent, m.alphaMode === "BLEND", where);
      assertEquals(material.alphaTest, m.alphaMode === "MASK" ? m.alphaCutoff : 0, where);
    }
  }
});

Deno.test("appearance: textures and embedded images are glTF-Transform's", async () => {
  for (const file of models) {
    const bytes = readAsset(file);
    const [mine, document] = await Promise.all([importGltf(bytes), readDocument(bytes)]);
    const root = document.getRoot();
    const textures = root.listTextures();
    assertEquals(
      mine.images.length,
      textures.length,
      `${file}: one image per glTF-Transform texture`,
    );
    root.listMaterials().forEach((material, i) => {
      const texture = material.getBaseColorTexture();
      const ref = mine.materials[i].baseColorTexture;
      assertEquals(ref !== undefined, texture !== null, `${file} material ${i}: base colour map`);
      if (!texture || !ref) return;
      const image = mine.images[mine.textures[ref.texture].image];
      assertEquals(image.mimeType, texture.getMimeType(), `${file} material ${i}`);
      assertEquals(image.bytes, texture.getImage()!, `${file} material ${i}: the image's bytes`);
    });
  }
});

/** SimpleSkin's JSON with `extra` merged in, as a .gltf file's bytes. */
async function withAppearance(extra: Record<string, unknown>): Promise<GltfImport> {
  const json = JSON.parse(new TextDecoder().decode(readAsset("SimpleSkin.gltf")));
  json.meshes[0].primitives[0].material = 0;
  return await parseGltf(new TextEncoder().encode(JSON.stringify({ ...json, ...extra })));
}

Deno.test("appearance: image URIs the loader would not read are refused, never handed out", async () => {
  const uris: [string, string | RegExp][] = [
    ["skin.png", "skin.png"],
    ["textures/a b.png", "textures/a%20b.png"],
    ["./textures/../skin.png", "skin.png"],
    ["../secret.png", /leaves the model's folder/],
    ["textures/../../secret.png", /leaves the model's folder/],
    ["%2e%2e/secret.png", /leaves the model's folder/],
    ["/etc/passwd", /absolute paths/],
    ["file:///etc/passwd", /relative to the model's folder/],
    ["https://example.com/a.png", /relative to the model's folder/],
    ["//example.com/a.png", /absolute paths/],
    ["C:\\x.png", /relative to the model's folder|backslash/],
    ["a.png?x=1", /query or fragment/],
    ["a%00.png", /NUL/],
    ["data:image/png;base64,iVBORw0KGgo=", "data:image/png;base64,iVBORw0KGgo="],
    ["data:text/html;base64,PGI+", /not a base64 PNG or JPEG/],
  ];
  const model = await withAppearance({
    images: uris.map(([uri]) => ({ uri })),
    textures: uris.map((_, i) => ({ source: i })),
    materials: [{ pbrMetallicRoughness: { baseColorTexture: { index: 0 } } }],
  });
  uris.forEach(([uri, expected], i) => {
    const image = model.images[i];
    if (typeof expected === "string") {
      assertEquals(image.uri, expected, uri);
      assertEquals(image.refused, undefined, uri);
    } else {
      assertEquals(image.uri, undefined, `${uri}: no URI handed out`);
      assertMatch(image.refused ?? "", expected, uri);
    }
  });
  assertEquals(model.skeletons[0].primitives[0].material, 0);
});

Deno.test("appearance: bad fields take glTF's defaults, with a warning naming their pointer", async () => {
  const model = await withAppearance({
    samplers: [{ magFilter: 1, wrapS: "repeat" }],
    textures: [{ sampler: 4, source: 9 }, { sampler: 0 }],
    images: [{ bufferView: 99 }, { uri: 7 }],
    materials: [{
      name: 3,
      pbrMetallicRoughness: {
        baseColorFactor: [1, 2, 0],
        metallicFactor: -1,
        baseColorTexture: { index: 5 },
        metallicRoughnessTexture: { index: 1, texCoord: 1 },
      },
      normalTexture: { index: 1, scale: "big" },
      alphaMode: "GLASS",
      doubleSided: 1,
    }],
  });
  const [m] = model.materials;
  assertEquals(m.name, "");
  assertEquals(m.baseColorFactor, [1, 1, 1, 1]);
  assertEquals(m.metallicFactor, 1);
  assertEquals(m.baseColorTexture, undefined);
  assertEquals(m.metallicRoughnessTexture, { texture: 1, texCoord: 1 });
  assertEquals(m.normalTexture, { texture: 1, texCoord: 0, scale: 1 });
  assertEquals([m.alphaMode, m.doubleSided], ["OPAQUE", false]);
  assertEquals(model.samplers[0], { wrapS: 10497, wrapT: 10497 });
  assertEquals(model.textures, [{ sampler: -1, image: -1 }, { sampler: 0, image: -1 }]);
  assertMatch(model.images[0].refused!, /buffer view/);
  assertMatch(model.images[1].refused!, /neither a URI nor a buffer view/);
  for (
    const pointer of [
      "/materials/0/name",
      "/materials/0/pbrMetallicRoughness/baseColorFactor",
      "/materials/0/pbrMetallicRoughness/metallicFactor",
      "/materials/0/pbrMetallicRoughness/baseColorTexture/index",
      "/materials/0/normalTexture/scale",
      "/materials/0/alphaMode",
      "/materials/0/doubleSided",
      "/samplers/0/magFilter",
      "/samplers/0/wrapS",
      "/textures/0/sampler",
      "/textures/0/source",
      "/images/0/bufferView",
      "/images/1/uri",
    ]
  ) {
    assert(model.warnings.some((w) => w.startsWith(`${pointer}:`)), `a warning at ${pointer}`);
  }
  const missing = await withAppearance({});
  assertEquals(missing.skeletons[0].primitives[0].material, -1, "a material the file lacks");
  assert(missing.warnings.some((w) => w.startsWith("/meshes/0/primitives/0/material:")));
});
