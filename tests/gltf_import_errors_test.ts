/**
 * glTF import of .gltf files and their buffers (data URIs, `resolveUri`,
 * a sibling .bin relative to the file), and import errors that name the
 * file and what is wrong: unreadable or malformed files, broken skin and
 * animation data.
 */

import { assert, assertEquals, fail } from "@std/assert";
import { Document } from "@gltf-transform/core";
import { GltfImportError, importGltf, parseGltf } from "../gltf/import.ts";
import { assetUrl, readAsset } from "./_three_gltf.ts";
import { readDocument, syntheticRig, writeGlb } from "./_gltf_rig.ts";

async function rejects(
  promise: Promise<unknown>,
  ...includes: string[]
): Promise<GltfImportError> {
  try {
    await promise;
  } catch (e) {
    if (!(e instanceof GltfImportError)) {
      fail(`expected a GltfImportError, got ${e}`);
    }
    for (const text of includes) {
      assert(
        e.message.includes(text),
        `"${e.message}" should include "${text}"`,
      );
    }
    return e;
  }
  fail(`expected a GltfImportError mentioning ${includes.join(", ")}`);
}

Deno.test("glTF JSON: embedded data URIs, external buffers via resolveUri", async () => {
  // A real embedded .gltf.
  const simple = await importGltf(assetUrl("SimpleSkin.gltf"));
  assertEquals(simple.skeletons[0].primitives[0].skin.vertexCount, 10);
  // The rig as .gltf with an external buffer.
  const doc = syntheticRig();
  doc.getRoot().listBuffers()[0].setURI("rig data.bin");
  const { WebIO } = await import("@gltf-transform/core");
  const { json, resources } = await new WebIO().writeJSON(doc);
  const gltf = new TextEncoder().encode(JSON.stringify(json));
  const asked: string[] = [];
  const model = await parseGltf(gltf, {
    name: "rig.gltf",
    resolveUri: (uri) => {
      asked.push(uri);
      const bytes = resources[decodeURIComponent(uri)];
      if (!bytes) throw new Error("no such file");
      return bytes;
    },
  });
  assertEquals(asked.map(decodeURIComponent), ["rig data.bin"]);
  const glb = await parseGltf(await writeGlb(syntheticRig()));
  assertEquals(
    model.skeletons[0].primitives[0].skin,
    glb.skeletons[0].primitives[0].skin,
  );
  // Without a resolver, the external buffer is an error that names it.
  await rejects(
    parseGltf(gltf, { name: "rig.gltf" }),
    "rig.gltf",
    "rig",
    "resolveUri",
  );
  // Embedded as a data URI instead.
  const embedded = structuredClone(json);
  embedded.buffers![0].uri = "data:application/octet-stream;base64," +
    btoa(String.fromCharCode(...Object.values(resources)[0]));
  const fromDataUri = await parseGltf(
    new TextEncoder().encode(JSON.stringify(embedded)),
  );
  assertEquals(
    fromDataUri.skeletons[0].primitives[0].skin,
    glb.skeletons[0].primitives[0].skin,
  );
});

Deno.test("importGltf reads a .gltf's sibling .bin relative to its path", async () => {
  const doc = syntheticRig();
  doc.getRoot().listBuffers()[0].setURI("data/../data/rig%20data.bin");
  const { WebIO } = await import("@gltf-transform/core");
  const { json, resources } = await new WebIO().writeJSON(doc);
  // A virtual file system keyed by decoded absolute path.
  const files = new Map<string, Uint8Array>([
    ["/models/gltf/rig 1.gltf", new TextEncoder().encode(JSON.stringify(json))],
    ["/models/gltf/data/rig data.bin", Object.values(resources)[0]],
  ]);
  const read: string[] = [];
  const readFile = (url: URL) => {
    const path = decodeURIComponent(url.pathname);
    read.push(path);
    const bytes = files.get(path);
    return bytes ? Promise.resolve(bytes) : Promise.reject(new Deno.errors.NotFound(`no ${path}`));
  };
  const model = await importGltf("/models/gltf/rig 1.gltf", { readFile });
  assertEquals(read, ["/models/gltf/rig 1.gltf", "/models/gltf/data/rig data.bin"]);
  assertEquals(model.name, "/models/gltf/rig 1.gltf");
  assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 32);
  files.delete("/models/gltf/data/rig data.bin");
  const e = await rejects(
    importGltf("/models/gltf/rig 1.gltf", { readFile }),
    "/models/gltf/rig 1.gltf",
    "data/../data/rig%20data.bin",
    "tried /models/gltf/data/rig data.bin: no such file",
  );
  assertEquals(e.file, "/models/gltf/rig 1.gltf");
  assertEquals(e.pointer, "/buffers/0");
  // A sibling outside the model's folder is refused without a read.
  read.length = 0;
  doc.getRoot().listBuffers()[0].setURI("../data/rig%20data.bin");
  files.set(
    "/models/gltf/up.gltf",
    new TextEncoder().encode(JSON.stringify((await new WebIO().writeJSON(doc)).json)),
  );
  await rejects(importGltf("/models/gltf/up.gltf", { readFile }), "leaves the model's folder");
  assertEquals(read, ["/models/gltf/up.gltf"]);
  // Absolute URLs are not fetched.
  doc.getRoot().listBuffers()[0].setURI("https://example.com/rig.bin");
  const remote = await new WebIO().writeJSON(doc);
  files.set(
    "/models/gltf/remote.gltf",
    new TextEncoder().encode(JSON.stringify(remote.json)),
  );
  await rejects(
    importGltf("/models/gltf/remote.gltf", { readFile }),
    "only URIs relative to the model's folder",
  );
});

Deno.test("import errors name the file and what is wrong", async () => {
  await rejects(
    importGltf("/nonexistent/dir/model.glb"),
    "/nonexistent/dir/model.glb",
    "cannot read /nonexistent/dir/model.glb: no such file",
  );
  await rejects(
    parseGltf(new Uint8Array(0), { name: "empty.glb" }),
    "empty.glb",
    "empty",
  );
  await rejects(
    parseGltf(new TextEncoder().encode("PK\u0003\u0004 not a model"), {
      name: "x.zip",
    }),
    "x.zip",
    "neither a GLB",
  );
  const v1 = new Uint8Array(readAsset("RiggedSimple.glb"));
  v1[4] = 1;
  await rejects(parseGltf(v1, { name: "old.glb" }), "old.glb", "version 1");
  const truncated = readAsset("RiggedSimple.glb").slice(0, 2000);
  await rejects(
    parseGltf(truncated, { name: "cut.glb" }),
    "cut.glb",
    "the GLB header declares 15104 bytes, but the file has 2000",
  );
  await rejects(
    parseGltf(new TextEncoder().encode('{"asset": {"version": "1.0"}}'), {
      name: "a.gltf",
    }),
    "a.gltf at /asset/version",
    "only 2.x",
  );
  await rejects(
    parseGltf(new TextEncoder().encode('{"asset": {"version": "2.0"}, '), {
      name: "b.gltf",
    }),
    "b.gltf",
    "does not parse",
  );
  await rejects(
    parseGltf(
      new TextEncoder().encode(JSON.stringify({
        asset: { version: "2.0" },
        buffers: [{ uri: "missing.bin", byteLength: 4 }],
      })),
      { name: "c.gltf", resolveUri: () => Promise.reject(new Error("ENOENT")) },
    ),
    "c.gltf at /buffers/0",
    'the buffer "missing.bin" cannot be read',
    "ENOENT",
  );
});

/** Breaks a synthetic rig and expects the import to fail. */
async function rejectsBroken(
  change: (doc: Document) => void,
  ...includes: string[]
): Promise<void> {
  const doc = syntheticRig();
  change(doc);
  await rejects(
    parseGltf(await writeGlb(doc), { name: "broken.glb" }),
    "broken.glb",
    ...includes,
  );
}

Deno.test("import errors are one line: control characters from the file are escaped", async () => {
  // A fuzzed file's newline where JSON.parse wanted `true`: its message
  // quoted the newline.
  const parse = await rejects(
    parseGltf(new TextEncoder().encode('{"asset": tr\nue}'), { name: "x.gltf" }),
    "x.gltf: the glTF JSON does not parse (Unexpected token '\\n')",
  );
  assert(!parse.message.includes("\n"), parse.message);
  const named = new GltfImportError("a\r\nb\u2028.glb", "tab\there, bell\u0007");
  assertEquals(named.message, "a\\r\\nb\\u2028.glb: tab\\there, bell\\u0007");
  assertEquals(named.file, "a\r\nb\u2028.glb");
});

Deno.test("broken skin and animation data are import errors", async () => {
  const prim = (doc: Document) => doc.getRoot().listMeshes()[0].listPrimitives()[0];
  await rejectsBroken(
    (doc) => {
      prim(doc).getAttribute("JOINTS_0")!.setElement(1, [9, 0, 0, 0]);
      prim(doc).getAttribute("WEIGHTS_0")!.setElement(1, [1, 0, 0, 0]);
    },
    "at /meshes/0/primitives/0/attributes/JOINTS_0",
    "vertex 1",
    "joint 9",
  );
  await rejectsBroken(
    (doc) => prim(doc).setAttribute("JOINTS_0", null),
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "WEIGHTS_0 without JOINTS_0",
  );
  await rejectsBroken(
    (doc) => {
      prim(doc).setAttribute("JOINTS_0", null).setAttribute("WEIGHTS_0", null);
    },
    "at /meshes/0/primitives/0/attributes",
    "no JOINTS_0",
  );
  await rejectsBroken(
    (doc) => prim(doc).getAttribute("WEIGHTS_0")!.setElement(0, [-1, 0, 0, 0]),
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "the weight -1",
  );
  await rejectsBroken(
    (doc) => {
      const w = prim(doc).getAttribute("WEIGHTS_0")!;
      w.setArray(Uint8Array.from(w.getArray()!, (x) => Math.round(x * 255)));
    },
    "at /meshes/0/primitives/0/attributes/WEIGHTS_0",
    "must be normalized",
  );
  await rejectsBroken(
    (doc) => {
      const ibm = doc.getRoot().listSkins()[0].getInverseBindMatrices()!;
      ibm.setArray(ibm.getArray()!.slice(0, 32));
    },
    "at /skins/0/inverseBindMatrices",
    "MAT4",
  );
  await rejectsBroken(
    (doc) => {
      const input = doc.getRoot().listAnimations()[0].listSamplers()[0]
        .getInput()!;
      input.setArray(new Float32Array([0.25, 0.75, 0.75, 2]));
    },
    "at /animations/0/samplers/0/input",
    "strictly increasing",
  );
  await rejectsBroken(
    (doc) => {
      const input = doc.getRoot().listAnimations()[0].listSamplers()[0]
        .getInput()!;
      input.setArray(new Float32Array([0, 5.843e-39, 0.75, 2]));
    },
    "at /animations/0/samplers/0/input",
    "strictly increasing by at least 1e-30 s, but key 1 is at 5.84",
  );
  await rejectsBroken(
    (doc) => {
      const output = doc.getRoot().listAnimations()[0].listSamplers()[0]
        .getOutput()!;
      output.setArray(output.getArray()!.slice(0, 8));
    },
    "at /animations/0/samplers/0/output",
    "VEC",
  );
});

Deno.test("a file without skins imports as no skeletons", async () => {
  const doc = new Document();
  doc.createScene().addChild(doc.createNode("empty"));
  const model = await parseGltf(await writeGlb(doc));
  assertEquals(model.skeletons, []);
  // The shared reader used by the tests agrees that this is valid glTF.
  assertEquals(
    (await readDocument(await writeGlb(doc))).getRoot().listNodes().length,
    1,
  );
});
