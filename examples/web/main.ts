/// <reference lib="dom" />
/**
 * The web demo (`deno task serve`): a crowd drawn by three.js straight
 * from Marrow's skinned output. Each entity's positions and normals are
 * views of the core's memory handed to GPU buffers as they are (stride 4
 * floats, xyz used) and re-uploaded each frame. WebGL refuses views of a
 * resizable buffer, which the core's memory is where the runtime can keep
 * views across growth (Chromium): there each stream is first copied as a
 * block (`TypedArray.set`, one memcpy) into a fixed array; the index
 * buffer is the mesh's, mapped to Marrow's output order by
 * `SkinAsset.remapIndices`. An on-screen table shows each system's time on
 * the current core build, and a button switches between the fastest build
 * and the scalar path.
 *
 * @module
 */

import "../../scalar.ts";
import * as THREE from "three";
import { parseGltf } from "../../gltf/mod.ts";
import { Core, type CoreBuild } from "../../kernels.ts";
import { Crowd, cylinderCharacter, type DemoCharacter } from "../crowd.ts";
import { gltfCharacter } from "../gltf_character.ts";
import { plainMaterial, threeMaterial, uvAttribute } from "./_materials.ts";
import { canvasPixels, colourFamilies } from "./_pixels.ts";
import { refresh, streamBuffer } from "./_streams.ts";
import { sourceOrderGeometry } from "./_source_order.ts";
import { CrowdView } from "./_crowd_view.ts";

const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const canvas = $<HTMLCanvasElement>("view");
const status = $("status");
const timesBody = $<HTMLTableElement>("times").tBodies[0];

const renderer = new THREE.WebGLRenderer({ canvas, antialias: true });
renderer.setPixelRatio(Math.min(2, globalThis.devicePixelRatio));
const scene = new THREE.Scene();
scene.background = new THREE.Color(0x20242b);
scene.add(new THREE.HemisphereLight(0xdde8ff, 0x403020, 2.2));
const sun = new THREE.DirectionalLight(0xffffff, 1.8);
sun.position.set(3, 5, 4);
scene.add(sun);
const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1e6);

/** What is on screen: the crowd and, per entity, the GPU buffers over its output. */
interface Shown {
  readonly character: DemoCharacter;
  readonly crowd: Crowd;
  readonly group: THREE.Group;
  /** Per entity: the interleaved buffers over its positions and normals views. */
  readonly buffers: { positions: THREE.InterleavedBuffer; normals?: THREE.InterleavedBuffer }[];
  /** Whether the GPU buffers read the views themselves (else a copy of them). */
  readonly direct: boolean;
}

/** The demo's own step, timed but not part of Marrow's frame. */
const UPLOAD = "views to GPU buffers (demo)";

let shown: Shown | undefined;
/** The crowd mode's crowd, when it is what is on screen. */
let crowdView: CrowdView | undefined;
/** The model list's entry of the crowd mode. */
const CROWD = "crowd";
let build: CoreBuild = Core.default.build;
const times = new Map<string, number>();
let timedFrames = 0;
let frames = 0;

/** The model the page opens on: freely licensed, textured, animated. */
const OPENING_MODEL = "CesiumMan.glb";

/** Where the shown model was fetched from (its textures' folder), if from the server. */
let modelUrl: URL | undefined;

function show(character: DemoCharacter, count: number): void {
  hide();
  const crowd = new Crowd(character, count, build);
  crowd.frame(0);
  const group = new THREE.Group();
  // Index buffers in Marrow's output order, shared by every entity.
  const indices = character.meshes.map((mesh, m) => {
    const source = mesh.indices ??
      Uint32Array.from({ length: mesh.skin.vertexCount }, (_, v) => v);
    return new THREE.BufferAttribute(crowd.skin.remapIndices(source, m), 1);
  });
  const bounds = new THREE.Box3();
  const p = crowd.positions(0);
  for (let v = 0; v < p.length; v += 4) {
    bounds.expandByPoint(new THREE.Vector3(p[v], p[v + 1], p[v + 2]));
  }
  const size = bounds.getSize(new THREE.Vector3());
  const spacing = 1.4 * Math.max(size.x, size.z, size.y * 0.35, 1e-3);
  const columns = Math.ceil(Math.sqrt(count));
  const flat = !crowd.skin.hasNormals;
  const materials = character.meshes.map((mesh) =>
    mesh.material ? threeMaterial(character, mesh.material, modelUrl, flat) : plainMaterial(flat)
  );
  const uvs = uvAttribute(character, crowd.skin);
  const buffers: Shown["buffers"] = [];
  // Views of a resizable buffer (those that survive growth) are refused by WebGL.
  const direct = !crowd.core.viewsSurviveGrowth;
  crowd.entities.forEach((_, i) => {
    const positions = streamBuffer(crowd.positions(i), direct);
    const normalsView = crowd.normals(i);
    const normals = normalsView && streamBuffer(normalsView, direct);
    buffers.push({ positions, normals });
    character.meshes.forEach((mesh, m) => {
      if (mesh.mode !== 4) return; // only triangle lists are drawn
      const geometry = new THREE.BufferGeometry();
      geometry.setAttribute("position", new THREE.InterleavedBufferAttribute(positions, 3, 0));
      if (normals) {
        geometry.setAttribute("normal", new THREE.InterleavedBufferAttribute(normals, 3, 0));
      }
      if (uvs) geometry.setAttribute("uv", uvs);
      geometry.setIndex(indices[m]);
      const object = new THREE.Mesh(geometry, materials[m]);
      object.userData = { entity: i, mesh: m };
      object.frustumCulled = false; // skinned output moves; bounds would go stale
      object.position.set(
        (i % columns - (columns - 1) / 2) * spacing - bounds.getCenter(new THREE.Vector3()).x,
        0,
        (Math.floor(i / columns) - (columns - 1) / 2) * spacing,
      );
      group.add(object);
    });
  });
  scene.add(group);
  const extent = columns * spacing;
  const center = bounds.getCenter(new THREE.Vector3());
  camera.position.set(0, center.y + extent * 0.55 + size.y * 0.5, extent * 1.1 + size.y);
  camera.lookAt(0, center.y, 0);
  camera.near = extent / 1000;
  camera.far = extent * 20;
  camera.updateProjectionMatrix();
  shown = { character, crowd, group, buffers, direct };
  shownNow(
    `${character.name}: ${count} entities; GPU buffers ${
      direct ? "read the views" : "copy the views (resizable memory)"
    }`,
  );
}

/** Starts the time table and the panel over for what is now on screen, described by `what`. */
function shownNow(what: string): void {
  times.clear();
  timedFrames = 0;
  $("build").textContent = build;
  $("core").textContent = build === "scalar"
    ? `switch to ${Core.default.build}`
    : "switch to scalar";
  status.textContent = what;
}

/** The crowd mode: `count` small characters with level of detail (`_crowd_view.ts`). */
function showCrowd(count: number): void {
  hide();
  crowdView = new CrowdView(scene, count, build);
  crowdView.placeCamera(camera);
  shownNow(
    `crowd: ${count} small characters; colours are level of detail bands ` +
      "round the yellow viewpoint (near: full, blue: every 2nd frame, violet: every 4th with one " +
      "influence; beyond: culled, not drawn)",
  );
}

function hide(): void {
  crowdView?.dispose(scene);
  crowdView = undefined;
  if (!shown) return;
  scene.remove(shown.group);
  const materials = new Set<THREE.MeshStandardMaterial>();
  shown.group.traverse((o: THREE.Object3D) => {
    if (!(o instanceof THREE.Mesh)) return;
    o.geometry.dispose();
    materials.add(o.material);
  });
  for (const material of materials) {
    material.map?.dispose();
    material.emissiveMap?.dispose();
    material.dispose();
  }
  shown.crowd.dispose();
  shown = undefined;
}

function updateTable(): void {
  const rows = [...times].map(([name, ms]) => [name, ms / timedFrames] as const);
  const total = rows.reduce((sum, [name, ms]) => name === UPLOAD ? sum : sum + ms, 0);
  const cell = (ms: number) => ms >= 1 ? `${ms.toFixed(2)} ms` : `${(ms * 1000).toFixed(0)} µs`;
  timesBody.replaceChildren(
    ...[...rows, ["Marrow frame", total] as const].map(([name, ms], r) => {
      const tr = document.createElement("tr");
      if (r === rows.length) tr.className = "total";
      for (const text of [name, cell(ms)]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }),
  );
  times.clear();
  timedFrames = 0;
}

let last = performance.now();
let lastTable = last;
function frame(now: number): void {
  const delta = Math.min(0.1, (now - last) / 1000);
  last = now;
  if (crowdView) {
    crowdView.frame(delta, times, UPLOAD);
    timedFrames++;
  } else if (shown) {
    const { crowd, direct } = shown;
    crowd.frame(delta, times);
    timedFrames++;
    const uploadStart = performance.now();
    shown.buffers.forEach((b, i) => {
      refresh(b.positions, crowd.positions(i), direct);
      if (b.normals) refresh(b.normals, crowd.normals(i)!, direct);
    });
    times.set(UPLOAD, (times.get(UPLOAD) ?? 0) + performance.now() - uploadStart);
  }
  const width = canvas.clientWidth, height = canvas.clientHeight;
  if (canvas.width !== Math.floor(width * renderer.getPixelRatio())) {
    renderer.setSize(width, height, false);
    camera.aspect = width / height;
    camera.updateProjectionMatrix();
  }
  renderer.render(scene, camera);
  frames++;
  if (now - lastTable > 500 && timedFrames > 0) {
    $("fps").textContent = `${(frames / ((now - start) / 1000)).toFixed(0)} fps`;
    updateTable();
    lastTable = now;
  }
  requestAnimationFrame(frame);
}

/** The count asked for: 1 to 1,024 characters, or up to 10,000 in the crowd mode. */
function count(): number {
  const n = Number($<HTMLInputElement>("count").value);
  const most = select.value === CROWD ? 10_000 : 1024;
  return Number.isInteger(n) && n >= 1 && n <= most ? n : 16;
}

async function load(bytes: Uint8Array, name: string, url?: URL): Promise<void> {
  status.textContent = `loading ${name}…`;
  try {
    // Meshes hung on the skeleton's nodes (a face, a helmet) come with the character.
    const character = gltfCharacter(await parseGltf(bytes, { name }));
    modelUrl = url;
    $<HTMLInputElement>("count").value = String(Math.min(count(), 25));
    show(character, count());
  } catch (error) {
    status.textContent = `error: ${error instanceof Error ? error.message : error}`;
  }
}

async function choose(model: string): Promise<void> {
  if (model === "") return show(cylinderCharacter(), count());
  if (model === CROWD) return showCrowd(count());
  const url = new URL(`/models/${model}`, location.href);
  const response = await fetch(url);
  if (!response.ok) {
    status.textContent = `error: /models/${model}: HTTP ${response.status}`;
    return;
  }
  await load(new Uint8Array(await response.arrayBuffer()), model, url);
}

const select = $<HTMLSelectElement>("model");
// The models the server offers besides the generated crowd (serve.ts).
const models: string[] = await fetch("/models.json").then((r) => r.ok ? r.json() : []);
for (const name of ["", ...models]) select.add(new Option(name || "generated cylinders", name));
select.add(new Option("crowd of small characters (level of detail)", CROWD));
select.onchange = () => {
  const file = chosenFiles.get(select.value);
  return file ? load(file.bytes, file.name) : choose(select.value);
};
/** Shows what is on screen again: after a change of count or core build. */
function again(): void {
  if (crowdView) showCrowd(count());
  else if (shown) show(shown.character, count());
}
$<HTMLInputElement>("count").onchange = again;
$("core").onclick = () => {
  build = build === "scalar" ? Core.default.build : "scalar";
  again();
};
/** Files the user chose or dropped, by their entry in the list. */
const chosenFiles = new Map<string, { name: string; bytes: Uint8Array }>();

/** Loads a file the user chose or dropped, and adds it to the list. */
async function loadFile(file: File): Promise<void> {
  const label = `file: ${file.name}`;
  if (!chosenFiles.has(label)) select.add(new Option(label, label));
  chosenFiles.set(label, { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) });
  select.value = label;
  await load(chosenFiles.get(label)!.bytes, file.name);
}

$<HTMLInputElement>("file").onchange = async (event) => {
  const file = (event.target as HTMLInputElement).files?.[0];
  if (file) await loadFile(file);
};
document.body.ondragover = (event) => {
  event.preventDefault();
  document.body.classList.add("dragging");
};
document.body.ondragleave = () => document.body.classList.remove("dragging");
document.body.ondrop = async (event) => {
  event.preventDefault();
  document.body.classList.remove("dragging");
  const file = event.dataTransfer?.files[0];
  if (file) await loadFile(file);
};

/** Renders now and reads the canvas back as grey levels, one of every `step` × `step` pixels. */
function renderGrey(step: number): { width: number; height: number; grey: number[] } {
  const { width: w, height: h, rgba } = canvasPixels(renderer, scene, camera);
  const grey: number[] = [];
  for (let y = 0; y < h; y += step) {
    for (let x = 0; x < w; x += step) {
      const i = (y * w + x) * 4;
      grey.push(Math.round((rgba[i] * 3 + rgba[i + 1] * 6 + rgba[i + 2]) / 10));
    }
  }
  return { width: Math.ceil(w / step), height: Math.ceil(h / step), grey };
}

/** For the browser test: frame count, build, the drawn pixels, and the vertex order check. */
Object.assign(globalThis, {
  marrowDemo: {
    get frames(): number {
      return frames;
    },
    get build(): CoreBuild {
      return build;
    },
    get entities(): number {
      return crowdView?.crowd.entities.length ?? shown?.crowd.entities.length ?? 0;
    },
    /** The crowd mode's characters drawn (not culled), and in each band then culled. */
    get crowdBands(): { drawn: number; bands: number[] } | undefined {
      return crowdView && { drawn: crowdView.drawn, bands: crowdView.crowd.bandCounts() };
    },
    /**
     * Shares of the drawn pixels by colour family: "grey" (saturation below
     * 0.25) or one of six 60° hue sectors; background pixels left out.
     */
    colourFamilies: (): Record<string, number> =>
      colourFamilies(canvasPixels(renderer, scene, camera)),
    /** The canvas' pixels as grey levels, one of every `step` × `step` (bottom row first). */
    pixels: (step = 4) => renderGrey(step),
    /**
     * Pixels that differ between this frame drawn zero-copy in Marrow's
     * vertex order and drawn from a copy in the file's vertex order.
     */
    sourceOrderDifference(): { differing: number; drawn: number; total: number } {
      const zeroCopy = renderGrey(1).grey;
      const meshes = shown!.group.children as THREE.Mesh[];
      const own = meshes.map((object) => object.geometry);
      meshes.forEach((object) => {
        const { entity, mesh } = object.userData;
        object.geometry = sourceOrderGeometry(shown!.crowd, shown!.character, entity, mesh);
      });
      const source = renderGrey(1).grey;
      meshes.forEach((object, k) => {
        object.geometry.dispose();
        object.geometry = own[k];
      });
      const background = zeroCopy[0];
      return {
        differing: zeroCopy.filter((g, p) => g !== source[p]).length,
        drawn: zeroCopy.filter((g) => g !== background).length,
        total: zeroCopy.length,
      };
    },
  },
});

const start = performance.now();
// The page opens on a real, textured character when the server offers one; `?crowd=N` on a crowd.
const crowdParameter = new URLSearchParams(location.search).get("crowd");
if (crowdParameter !== null) $<HTMLInputElement>("count").value = crowdParameter || "2000";
const opening = crowdParameter !== null
  ? CROWD
  : models.includes(OPENING_MODEL)
  ? OPENING_MODEL
  : "";
select.value = opening;
await choose(opening);
requestAnimationFrame(frame);
