/**
 * The data and cores of `skinning_bench.ts`: seeded random rigs and meshes
 * (every vertex with the same number of influences, weights sorted
 * decreasing and summing to 1, vertices optionally ordered by their joints
 * as `SkinAsset` orders them), each SIMD build's core holding copies of a
 * mesh's arrays (and `SKIN_BEFORE`'s core when set), and one `skinVertices`
 * or `skinDualQuaternions` call on a core's whole mesh.
 *
 * @module
 */

import * as ref from "../simd/scalar/mod.ts";
import { type CoreBuild, instantiate, isBuildSupported } from "../simd/wasm/_core.ts";
import { MATRIX_FLOATS, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { type CoreKernels, JOINT_COLUMN_BYTES } from "../simd/abi.ts";
import { CoreMemory } from "../simd/memory/_memory.ts";

const JOINTS = 64;
// The wrappers' default: no vertex is capped, as in most uses.
export const MAX_INFLUENCES = 255;

let seed = 0x9e3779b9;
function random(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 4294967296;
}

/** Rotation × scale (near 1) + translation in [-1, 1], as in real rigs. */
function randomMatrices(count: number): Float32Array {
  const m = new Float32Array(count * MATRIX_FLOATS);
  for (let i = 0; i < count; i++) {
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    const l = Math.hypot(...q);
    const [x, y, z, w] = q.map((c) => c / l);
    const s = [
      0.9 + random() * 0.2,
      0.9 + random() * 0.2,
      0.9 + random() * 0.2,
    ];
    m.set([
      (1 - 2 * (y * y + z * z)) * s[0],
      2 * (x * y - z * w) * s[1],
      2 * (x * z + y * w) * s[2],
      random() * 2 - 1,
      2 * (x * y + z * w) * s[0],
      (1 - 2 * (x * x + z * z)) * s[1],
      2 * (y * z - x * w) * s[2],
      random() * 2 - 1,
      2 * (x * z - y * w) * s[0],
      2 * (y * z + x * w) * s[1],
      (1 - 2 * (x * x + y * y)) * s[2],
      random() * 2 - 1,
    ], i * MATRIX_FLOATS);
  }
  return m;
}

/** Unit vectors (`w` as given) or points in [-1, 1]³ with w = 1. */
function randomStream(
  vertices: number,
  kind: "point" | "normal" | "tangent",
): Float32Array {
  const out = new Float32Array(vertices * VERTEX_FLOATS);
  for (let v = 0; v < vertices; v++) {
    let x = random() * 2 - 1, y = random() * 2 - 1, z = random() * 2 - 1;
    if (kind !== "point") {
      const l = Math.hypot(x, y, z);
      x /= l, y /= l, z /= l;
    }
    const w = kind === "point" ? 1 : kind === "normal" ? 0 : random() < 0.5 ? -1 : 1;
    out.set([x, y, z, w], v * VERTEX_FLOATS);
  }
  return out;
}

/**
 * A mesh of `vertices` vertices with `influences` influences each, ordered
 * by joints when `sorted`.
 */
export function mesh(vertices: number, influences: number, sorted = false) {
  const total = vertices * influences;
  const joints = new Uint16Array(total);
  const weights = new Float32Array(total);
  // Vertices are independent: sorting their joint tuples is sorting them.
  const tuples = Array.from(
    { length: vertices },
    () => Array.from({ length: influences }, () => Math.floor(random() * JOINTS)),
  );
  if (sorted) {
    tuples.sort((a, b) => {
      for (let i = 0; i < influences; i++) if (a[i] !== b[i]) return a[i] - b[i];
      return 0;
    });
  }
  for (let v = 0; v < vertices; v++) {
    const w = Array.from({ length: influences }, () => random() + 0.05)
      .sort((a, b) => b - a);
    const sum = w.reduce((a, b) => a + b, 0);
    for (let i = 0; i < influences; i++) {
      joints[v * influences + i] = tuples[v][i];
      weights[v * influences + i] = w[i] / sum;
    }
  }
  const counts = new Uint8Array(vertices).fill(influences);
  const positions = randomStream(vertices, "point");
  const model = randomMatrices(JOINTS);
  const inverseBind = randomMatrices(JOINTS);
  const palette = new Float32Array(JOINTS * MATRIX_FLOATS);
  ref.multiplyMatrices(model, inverseBind, palette, JOINTS);
  const bases = new Float32Array(total * 4);
  ref.weightedBases(
    positions,
    inverseBind,
    joints,
    weights,
    counts,
    vertices,
    bases,
  );
  // Dual quaternions of rigid joints.
  const rigid = new Float32Array(JOINTS * MATRIX_FLOATS);
  for (let j = 0; j < JOINTS; j++) {
    const q = [0, 1, 2, 3].map(() => random() - 0.5), l = Math.hypot(...q);
    const [x, y, z, w] = q.map((c) => c / l);
    rigid.set([
      1 - 2 * (y * y + z * z),
      2 * (x * y - w * z),
      2 * (x * z + w * y),
      random(),
      2 * (x * y + w * z),
      1 - 2 * (x * x + z * z),
      2 * (y * z - w * x),
      random(),
      2 * (x * z - w * y),
      2 * (y * z + w * x),
      1 - 2 * (x * x + y * y),
      random(),
    ], j * MATRIX_FLOATS);
  }
  const dualQuaternions = new Float32Array(JOINTS * ref.DUAL_QUATERNION_FLOATS);
  if (ref.paletteToDualQuaternions(rigid, JOINTS, dualQuaternions) !== -1) throw new Error("rigid");
  return {
    vertices,
    joints,
    weights,
    counts,
    dualQuaternions,
    parts: new Uint32Array([influences, vertices]),
    model,
    palette,
    bases,
    positions,
    normals: randomStream(vertices, "normal"),
    tangents: randomStream(vertices, "tangent"),
    out: [0, 1, 2].map(() => new Float32Array(vertices * VERTEX_FLOATS)),
  };
}
export type Mesh = ReturnType<typeof mesh>;

/** A core of `build` holding copies of the mesh's arrays, and its kernels. */
export function setUp(build: CoreBuild, m: Mesh) {
  return setUpIn(instantiate(build), m);
}

/** `SKIN_BEFORE`'s core holding copies of the mesh's arrays, if set. */
export function setUpBefore(m: Mesh): Core | undefined {
  const path = Deno.env.get("SKIN_BEFORE");
  if (!path) return undefined;
  const module = new WebAssembly.Module(Deno.readFileSync(path));
  const exports = new WebAssembly.Instance(module, {}).exports as unknown as
    & CoreKernels
    & { memory: WebAssembly.Memory };
  return setUpIn({ build: "before", memory: new CoreMemory(exports.memory), kernels: exports }, m);
}

function setUpIn(
  { build, memory, kernels }: { build: string; memory: CoreMemory; kernels: CoreKernels },
  m: Mesh,
) {
  const copy = (
    array: Float32Array | Uint16Array | Uint8Array | Uint32Array,
  ) => {
    const ptr = memory.alloc(array.byteLength);
    memory.views().u8.set(
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength),
      ptr,
    );
    return ptr;
  };
  const at = {
    model: copy(m.model),
    palette: copy(m.palette),
    dualQuaternions: copy(m.dualQuaternions),
    bases: copy(m.bases),
    joints: copy(m.joints),
    weights: copy(m.weights),
    counts: copy(m.counts),
    parts: copy(m.parts),
    positions: copy(m.positions),
    normals: copy(m.normals),
    tangents: copy(m.tangents),
    out: m.out.map((o) => memory.alloc(o.byteLength)),
    bounds: memory.alloc(32),
    // The systems' scratch for the palette transposed (see skinVertices).
    columns: memory.alloc(JOINTS * JOINT_COLUMN_BYTES),
  };
  return { build, kernels, at };
}

export const builds = (["simd", "relaxed-simd"] as const).filter(isBuildSupported);
export type Core = ReturnType<typeof setUpIn>;

/**
 * The core's `skinVertices` on all of the core's mesh (with its bounds when
 * `bounded`; `skinDualQuaternions` when `dual`).
 */
export function skinCore(
  { kernels, at }: Core,
  flags: number,
  bounded = false,
  dual = false,
): void {
  kernels[dual ? "skinDualQuaternions" : "skinVertices"](
    dual ? at.dualQuaternions : at.palette,
    at.parts,
    1,
    at.joints,
    at.weights,
    at.positions,
    at.normals,
    at.tangents,
    at.out[0],
    at.out[1],
    at.out[2],
    flags,
    MAX_INFLUENCES,
    bounded ? at.bounds : 0,
    dual ? 0 : at.columns,
    dual ? 0 : JOINTS,
  );
}
