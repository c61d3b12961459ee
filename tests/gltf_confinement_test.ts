/**
 * Confinement: loading from a path reads the model and its buffers inside
 * the model's folder only. Every file API call of the loader is recorded
 * (Deno.open, stat, lstat, realPath, readFile); the canary beside the model
 * folder must never be passed to any of them, and nothing outside the
 * folder may be opened. Hostile URIs come from committed fixtures
 * (tests/fixtures/confinement/).
 */

import { assert, assertEquals, assertInstanceOf, assertRejects } from "@std/assert";
import { GltfImportError, importGltf, parseGltf } from "../gltf/import.ts";

const ROOT = new URL("./fixtures/confinement/", import.meta.url);
const MODEL = new URL("model/", ROOT);
const CANARY = decodeURIComponent(new URL("canary.bin", ROOT).pathname);
const FOLDER = decodeURIComponent(MODEL.pathname);

type Api = "open" | "stat" | "lstat" | "realPath" | "readFile";
const APIS: Api[] = ["open", "stat", "lstat", "realPath", "readFile"];

/** Runs `body` with Deno's file API recorded; returns the paths each call got. */
async function recorded(body: () => Promise<unknown>): Promise<{ api: Api; path: string }[]> {
  const calls: { api: Api; path: string }[] = [];
  const deno = Deno as unknown as Record<Api, (path: string | URL, ...rest: unknown[]) => unknown>;
  const originals = APIS.map((api) => [api, deno[api]] as const);
  for (const [api, original] of originals) {
    deno[api] = (path, ...rest) => {
      calls.push({ api, path: path instanceof URL ? decodeURIComponent(path.pathname) : path });
      return original.call(Deno, path, ...rest);
    };
  }
  try {
    await body();
  } finally {
    for (const [api, original] of originals) deno[api] = original;
  }
  return calls;
}

/** The canary was never named, and nothing outside the model folder was opened or read. */
function assertConfined(calls: { api: Api; path: string }[]): void {
  for (const { api, path } of calls) {
    assert(path !== CANARY && !path.includes("canary"), `${api}(${path}) names the canary`);
    if (api === "open" || api === "readFile" || api === "stat") {
      assert(path.startsWith(FOLDER), `${api}(${path}) is outside ${FOLDER}`);
    }
  }
}

async function refused(file: string, ...includes: string[]): Promise<GltfImportError> {
  let error: unknown;
  const calls = await recorded(async () => {
    try {
      await importGltf(new URL(file, MODEL));
    } catch (e) {
      error = e;
    }
  });
  assertInstanceOf(error, GltfImportError, `${file} must be refused`);
  const e = error as GltfImportError;
  assertEquals(e.pointer, "/buffers/0", e.message);
  assertEquals(e.file, new URL(file, MODEL).href);
  for (const text of includes) assert(e.message.includes(text), `"${e.message}" lacks "${text}"`);
  assertEquals(e.message.split("\n").length, 1);
  assertConfined(calls);
  return e;
}

Deno.test("a model and a buffer inside its folder load; the reads stay in the folder", async () => {
  for (const file of ["good.gltf", "dotted.gltf"]) {
    let vertices = 0;
    const calls = await recorded(async () => {
      const model = await importGltf(new URL(file, MODEL));
      vertices = model.skeletons[0].primitives[0].skin.vertexCount;
    });
    assertEquals(vertices, 3);
    assertConfined(calls);
    assert(calls.some((c) => c.api === "open" && c.path.endsWith("data/mesh.bin")), file);
  }
});

Deno.test("URIs that leave the model's folder by name are refused before any file call", async () => {
  for (
    const [file, why] of [
      ["up.gltf", "leaves the model's folder"],
      ["encoded.gltf", "leaves the model's folder"],
      ["encoded_slash.gltf", "leaves the model's folder"],
      ["backslash.gltf", "backslash"],
      ["absolute.gltf", "absolute paths are not read"],
      ["file_url.gltf", "only URIs relative to the model's folder"],
      ["network_path.gltf", "absolute paths are not read"],
      ["http.gltf", "only URIs relative to the model's folder"],
    ]
  ) {
    const calls = await recorded(() => refused(file, why, "so it was not read"));
    // Only the model itself was touched.
    assert(calls.every((c) => c.path.endsWith(file)), `${file}: ${JSON.stringify(calls)}`);
  }
});

Deno.test("links out of the folder and things that are not regular files are refused unopened", async () => {
  await refused("link.gltf", "resolves (through a link) outside the model's folder");
  await refused("device_link.gltf", "resolves (through a link) outside the model's folder");
  const calls = await recorded(() => refused("folder.gltf", "not a regular file"));
  assert(!calls.some((c) => c.api === "open" && c.path.endsWith("folder.bin")), "stat, not open");
  await refused("missing.gltf", "tried", "data/missing.bin", "no such file");
});

Deno.test("images are never read, wherever they point", async () => {
  const calls = await recorded(async () => {
    const model = await importGltf(new URL("image.gltf", MODEL));
    assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 3);
  });
  assertConfined(calls);
  assertEquals(calls.filter((c) => c.api === "open").map((c) => c.path.split("/").pop()), [
    "image.gltf",
    "mesh.bin",
  ]);
});

Deno.test("a model file that is not a regular file, or too large, is refused", async () => {
  const e = await assertRejects(() => importGltf("/dev/zero"), GltfImportError);
  assert(e.message.includes("not a regular file"), e.message);
  const big = await assertRejects(
    () => importGltf(new URL("good.gltf", MODEL), { limits: { maxFileBytes: 100 } }),
    GltfImportError,
  );
  assert(big.message.includes("beyond limits.maxFileBytes (100)"), big.message);
  const bytes = await Deno.readFile(new URL("good.gltf", MODEL));
  const buffer = await assertRejects(
    () =>
      parseGltf(bytes, {
        limits: { maxFileBytes: 1800 },
        resolveUri: () => new Uint8Array(5000),
      }),
    GltfImportError,
  );
  assertEquals(buffer.pointer, "/buffers/0");
  assert(buffer.message.includes("5000 bytes, beyond limits.maxFileBytes (1800)"), buffer.message);
});

Deno.test("parseGltf touches no file: external buffers need resolveUri", async () => {
  const bytes = await Deno.readFile(new URL("up.gltf", MODEL));
  const calls = await recorded(async () => {
    const e = await assertRejects(() => parseGltf(bytes, { name: "up.gltf" }), GltfImportError);
    assertEquals(e.pointer, "/buffers/0");
    assert(e.message.includes("no resolveUri option"), e.message);
  });
  assertEquals(calls, []);
  // A caller's resolver gets the URI as written, and owns the decision.
  const asked: string[] = [];
  const model = await parseGltf(bytes, {
    resolveUri: (uri) => {
      asked.push(uri);
      return Deno.readFile(new URL("data/mesh.bin", MODEL));
    },
  });
  assertEquals(asked, ["../canary.bin"]);
  assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 3);
});

Deno.test("a path in a runtime without a file system, and unknown schemes, say what was tried", async () => {
  const e = await assertRejects(() => importGltf("ftp://example.com/x.glb"), GltfImportError);
  assert(e.message.includes("only paths, file: and http(s): URLs are read"), e.message);
  const readFile = (url: URL) => Deno.readFile(url);
  const viaCaller = await importGltf(new URL("good.gltf", MODEL), { readFile });
  assertEquals(viaCaller.skeletons[0].primitives[0].skin.vertexCount, 3);
  const outside = await assertRejects(
    () => importGltf(new URL("up.gltf", MODEL), { readFile }),
    GltfImportError,
  );
  assert(outside.message.includes("leaves the model's folder"), outside.message);
});

Deno.test("an http(s) URL is fetched, and its buffers only from the same origin and folder", async () => {
  const served = new Map<string, Uint8Array>([
    ["https://example.com/models/good.gltf", Deno.readFileSync(new URL("good.gltf", MODEL))],
    ["https://example.com/models/up.gltf", Deno.readFileSync(new URL("up.gltf", MODEL))],
    ["https://example.com/models/http.gltf", Deno.readFileSync(new URL("http.gltf", MODEL))],
    [
      "https://example.com/models/data/mesh.bin",
      Deno.readFileSync(new URL("data/mesh.bin", MODEL)),
    ],
  ]);
  const fetched: { url: string; redirect?: RequestRedirect }[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input instanceof Request ? input.url : input);
    fetched.push({ url, redirect: init?.redirect });
    const body = served.get(url);
    return Promise.resolve(
      body
        ? new Response(body.slice())
        : new Response("no", { status: 404, statusText: "Not Found" }),
    );
  };
  try {
    const model = await importGltf("https://example.com/models/good.gltf");
    assertEquals(model.skeletons[0].primitives[0].skin.vertexCount, 3);
    assertEquals(fetched, [
      { url: "https://example.com/models/good.gltf", redirect: "follow" },
      { url: "https://example.com/models/data/mesh.bin", redirect: "error" },
    ]);
    for (
      const [file, why] of [["up", "leaves the model's folder"], ["http", "only URIs relative"]]
    ) {
      fetched.length = 0;
      const e = await assertRejects(
        () => importGltf(`https://example.com/models/${file}.gltf`),
        GltfImportError,
      );
      assertEquals(e.pointer, "/buffers/0");
      assert(e.message.includes(why), e.message);
      assertEquals(fetched.length, 1, "only the model was fetched");
    }
    const missing = await assertRejects(
      () => importGltf("https://example.com/models/none.glb"),
      GltfImportError,
    );
    assert(
      missing.message.includes(
        "cannot read https://example.com/models/none.glb: the server answered 404",
      ),
      missing.message,
    );
  } finally {
    globalThis.fetch = original;
  }
});
