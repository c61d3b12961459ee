/**
 * Hostile morph data: the synthetic morph document (`_gltf_morph.ts`)
 * changed in memory, one problem at a time. Each is a GltfImportError at
 * the JSON pointer of the offending object (or a warning where the file
 * is only useless, not wrong), and the budget counts the displacements.
 */

import { assert, assertEquals, assertInstanceOf, fail } from "@std/assert";
import { GltfImportError, parseGltf } from "../gltf/import.ts";
import { glb } from "./_gltf_frame.ts";
import { writeGlb } from "./_gltf_rig.ts";
import { MORPH_VERTICES, morphDocument } from "./_gltf_morph.ts";

// deno-lint-ignore no-explicit-any
type Json = Record<string, any>;

const original = await writeGlb(morphDocument());

/** The morph GLB's JSON and binary chunk. */
function parts(): { json: Json; bin: Uint8Array } {
  const view = new DataView(original.buffer, original.byteOffset);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(original.subarray(20, 20 + jsonLength)));
  const binLength = view.getUint32(20 + jsonLength, true);
  const bin = original.slice(28 + jsonLength, 28 + jsonLength + binLength);
  return { json, bin };
}

/** The morph file changed by `change`, parsed. */
async function parse(change: (json: Json, bin: Uint8Array) => void, maxValues?: number) {
  const { json, bin } = parts();
  change(json, bin);
  return await parseGltf(glb(json, bin), {
    name: "morph.glb",
    ...(maxValues ? { limits: { maxValues } } : {}),
  });
}

async function refused(
  change: (json: Json, bin: Uint8Array) => void,
  pointer: string,
  text: string,
  maxValues?: number,
): Promise<void> {
  try {
    await parse(change, maxValues);
  } catch (e) {
    assertInstanceOf(e, GltfImportError);
    assertEquals(e.pointer, pointer, e.message);
    assert(e.message.includes(text), `"${e.message}" lacks "${text}"`);
    assert(!e.message.includes("\n"));
    return;
  }
  fail(`expected a GltfImportError at ${pointer}`);
}

const prim = (json: Json) => json.meshes[0].primitives[0];

Deno.test("morph hostile: the unchanged file loads with its targets", async () => {
  const model = await parse(() => {});
  assertEquals(model.skeletons[0].primitives[0].skin.morphTargets!.length, 3);
});

Deno.test("morph hostile: bad targets are refused at their pointer", async () => {
  const at = "/meshes/0/primitives/0/targets";
  await refused(
    (j) => void (prim(j).targets[1].POSITION = 999),
    `${at}/1/POSITION`,
    "refers to accessor 999",
  );
  await refused(
    (j) => void (prim(j).targets[0].POSITION = prim(j).attributes.TANGENT),
    `${at}/0/POSITION`,
    "must be VEC3",
  );
  await refused(
    (j) => void (prim(j).targets[0].NORMAL = prim(j).attributes.JOINTS_0),
    `${at}/0/NORMAL`,
    "must be VEC3",
  );
  await refused((j) => void (prim(j).targets = [5]), `${at}/0`, "expected a JSON object");
  await refused((j) => void (prim(j).targets = {}), at, "expected an array");
  await refused(
    (j) => {
      const a = j.accessors[prim(j).targets[0].POSITION];
      a.count = MORPH_VERTICES - 1;
    },
    `${at}/0/POSITION`,
    `have ${MORPH_VERTICES - 1} elements, but POSITION has ${MORPH_VERTICES}`,
  );
  // A displacement that is not finite (NaN bytes in the first one).
  await refused(
    (j, bin) => {
      const a = j.accessors[prim(j).targets[0].POSITION];
      const view = j.bufferViews[a.bufferView];
      new DataView(bin.buffer).setUint32(
        (view.byteOffset ?? 0) + (a.byteOffset ?? 0),
        0x7fc00000,
        true,
      );
    },
    `${at}/0/POSITION`,
    "vertex 0 has the displacement NaN",
  );
  // Another primitive of the mesh with another number of targets.
  await refused(
    (j) => {
      const second = structuredClone(prim(j));
      second.targets.pop();
      j.meshes[0].primitives.push(second);
    },
    "/meshes/0/primitives/1/targets",
    "glTF requires the same number",
  );
});

Deno.test("morph hostile: bad default weights and names", async () => {
  await refused((j) => void (j.meshes[0].weights = [1, 2]), "/meshes/0/weights", "expected 3");
  await refused(
    (j) => void (j.meshes[0].weights = [1, 2, "x"]),
    "/meshes/0/weights",
    "finite numbers",
  );
  await refused(
    (j) => void (j.nodes.find((n: Json) => n.mesh === 0).weights = [0]),
    `/nodes/${parts().json.nodes.findIndex((n: Json) => n.mesh === 0)}/weights`,
    "expected 3",
  );
  await refused(
    (j) => {
      delete prim(j).targets;
    },
    "/meshes/0/weights",
    "no morph targets",
  );
  const model = await parse((j) => void (j.meshes[0].extras.targetNames = ["a", 5, "c"]));
  assertEquals(model.skeletons[0].primitives[0].skin.morphTargets!.map((t) => t.name), [
    "",
    "",
    "",
  ]);
  assert(model.warnings.some((w) => w.includes("targetNames")));
  // The node's own weights override the mesh's.
  const own = await parse((j) =>
    void (j.nodes.find((n: Json) => n.mesh === 0).weights = [1, 0, 1])
  );
  assertEquals([...own.skeletons[0].primitives[0].morphWeights], [1, 0, 1]);
});

Deno.test("morph hostile: weights channels with the wrong key count are refused", async () => {
  await refused(
    (j) => {
      const sampler = j.animations[0].samplers[j.animations[0].channels[0].sampler];
      j.accessors[sampler.output].count -= 1;
    },
    "/animations/0/samplers/0/output",
    "need 12 SCALAR values",
  );
  await refused(
    (j) => {
      const sampler = j.animations[2].samplers[j.animations[2].channels[0].sampler];
      j.accessors[sampler.output].count /= 3;
    },
    "/animations/2/samplers/0/output",
    "4 keys of CUBICSPLINE weights of 3 morph targets need 36 SCALAR values",
  );
  // A weights channel on a node without morph targets moves nothing: a warning.
  const model = await parse((j) => {
    j.animations[0].channels[0].target.node = j.nodes.findIndex((n: Json) => n.mesh === undefined);
  });
  assertEquals(model.skeletons[0].clips[0].morphChannels, undefined);
  assert(model.warnings.some((w) => w.includes("no mesh with morph targets")));
});

/** The least `limits.maxValues` the morph file changed by `change` loads with. */
async function need(change: (json: Json, bin: Uint8Array) => void): Promise<number> {
  let lo = 1, hi = 1 << 16;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (await parse(change, mid).then(() => true, () => false)) hi = mid;
    else lo = mid;
  }
  return hi;
}

Deno.test("morph hostile: the displacements count against limits.maxValues", async () => {
  const withTargets = await need(() => {});
  try {
    await parse(() => {}, withTargets - 1);
    fail("expected the budget to be short");
  } catch (e) {
    assertInstanceOf(e, GltfImportError);
    assert(e.message.includes("limits.maxValues"), e.message);
  }
  const without = await need((j) => {
    delete prim(j).targets;
    delete j.meshes[0].weights;
  });
  // Five displacement attributes of 3 values per vertex are read (the
  // accessors themselves count in both files).
  assert(withTargets - without >= 5 * 3 * MORPH_VERTICES, `${withTargets} - ${without}`);
});
