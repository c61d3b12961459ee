/**
 * The skinning kernels: each SIMD build of the core against the scalar
 * reference (the baseline) running on plain typed arrays. Divide a time by
 * the group's vertex count for ns/vertex.
 *
 * - `skinPositions` at 1,024 vertices × 2 influences (the whole working set
 *   fits in L1/L2) and at 100,000 × 4 (streams from L3 and memory).
 * - `skinVertices` at 100,000 × 4, positions only and with normals and
 *   tangents.
 *
 * - `skin limit: <row>`: `skinVertices` (the systems' kernel) on each row of
 *   the issue's comparison with ozz-animation, against a `copy` baseline that
 *   moves the same bytes inside the core (joints and weights read, input
 *   streams read, output streams written) and does no arithmetic: the ratio
 *   says how far each loop is from the memory limit.
 * - `skin bounds: <row>`: the fused bounds against none; `skin dual
 *   quaternion: <row>`: dual-quaternion against linear skinning; `skin
 *   renormalize: <row>`: renormalized normals and tangents against the
 *   directions as skinned.
 *
 * Every vertex has the same number of influences, as after a glTF import
 * (padded to four), so the kernels' branches on the count are predictable
 * as they are on real meshes; weights are sorted decreasing and sum to 1.
 * In the `skin limit`, `skin bounds`, `skin dual quaternion` and `skin
 * renormalize` groups the vertices are ordered by their joints (heaviest
 * first), as `SkinAsset` orders them (the one- and two-influence loops keep
 * a run's joint matrices in registers); the other groups keep them unsorted
 * (a raw `SkinMesh`).
 *
 * `SKIN_BEFORE=<core.wasm>` adds a `before` row to each `skin limit` and
 * `skin renormalize` group: another build of the core (say main's
 * relaxed-SIMD core, compiled with `simd/_build.ts`'s flags) on the same
 * data in the same run.
 */
import * as ref from "../simd/reference.ts";
import { type CoreBuild, instantiate, isBuildSupported } from "../simd/_core.ts";
import { MATRIX_FLOATS, SkinFlags, VERTEX_FLOATS } from "../simd/layout.ts";
import { type CoreKernels, JOINT_COLUMN_BYTES } from "../simd/_abi.ts";
import { CoreMemory } from "../simd/_memory.ts";

const JOINTS = 64;
// The wrappers' default: no vertex is capped, as in most uses.
const MAX_INFLUENCES = 255;

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
function mesh(vertices: number, influences: number, sorted = false) {
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
type Mesh = ReturnType<typeof mesh>;

/** A core of `build` holding copies of the mesh's arrays, and its kernels. */
function setUp(build: CoreBuild, m: Mesh) {
  return setUpIn(instantiate(build), m);
}

/** `SKIN_BEFORE`'s core holding copies of the mesh's arrays, if set. */
function setUpBefore(m: Mesh): Core | undefined {
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

const builds = (["simd", "relaxed-simd"] as const).filter(isBuildSupported);
type Core = ReturnType<typeof setUpIn>;

function group(
  kernel: string,
  name: string,
  m: Mesh,
  reference: (m: Mesh) => void,
  run: (core: Core, m: Mesh) => void,
): void {
  Deno.bench({
    name: `${kernel} scalar reference`,
    group: name,
    baseline: true,
    fn: () => reference(m),
  });
  for (const build of builds) {
    const core = setUp(build, m);
    Deno.bench({
      name: `${kernel} ${build}`,
      group: name,
      fn: () => run(core, m),
    });
  }
}

function positionsGroup(vertices: number, influences: number): void {
  group(
    "skinPositions",
    `skinPositions (${vertices} vertices × ${influences})`,
    mesh(vertices, influences),
    (m) =>
      ref.skinPositions(
        m.model,
        m.bases,
        m.joints,
        m.counts,
        m.out[0],
        m.vertices,
        MAX_INFLUENCES,
      ),
    ({ kernels, at }, m) =>
      kernels.skinPositions(
        at.model,
        at.bases,
        at.joints,
        at.counts,
        at.out[0],
        m.vertices,
        MAX_INFLUENCES,
      ),
  );
}

/**
 * The core's `skinVertices` on all of the core's mesh (with its bounds when
 * `bounded`; `skinDualQuaternions` when `dual`).
 */
function skinCore({ kernels, at }: Core, flags: number, bounded = false, dual = false): void {
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

function verticesGroup(
  vertices: number,
  influences: number,
  flags: number,
): void {
  const streams = flags ? "positions, normals, tangents" : "positions";
  group(
    "skinVertices",
    `skinVertices (${vertices} vertices × ${influences}, ${streams})`,
    mesh(vertices, influences),
    (m) =>
      ref.skinVertices(
        m.palette,
        m.parts,
        m.joints,
        m.weights,
        m.positions,
        m.normals,
        m.tangents,
        m.out[0],
        m.out[1],
        m.out[2],
        flags,
        MAX_INFLUENCES,
      ),
    (core) => skinCore(core, flags),
  );
}

/** `skinVertices` on one row of the ozz comparison against its `copy`. */
function limitGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin limit: ${row}`;
  // `SKIN_LIMIT=<part of a row>` runs only matching rows on a noisy machine.
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const before = setUpBefore(m);
  const cores = builds.map((build) => setUp(build, m));
  const copy = ({ kernels, at }: Core) =>
    kernels.copyVertices(
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
    );
  Deno.bench({ name: "copy", group, baseline: true, fn: () => void copy(cores.at(-1)!) });
  if (before) Deno.bench({ name: "before", group, fn: () => skinCore(before, flags) });
  for (const core of cores) {
    Deno.bench({ name: `skinVertices ${core.build}`, group, fn: () => skinCore(core, flags) });
  }
}

/** The fused bounds' overhead: `skinVertices` with bounds against without, same build. */
function boundsGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin bounds: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const core = setUp(builds.at(-1)!, m);
  Deno.bench({
    name: `unfused ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, flags),
  });
  Deno.bench({ name: `bounds ${core.build}`, group, fn: () => skinCore(core, flags, true) });
}

/** Renormalized normals and tangents against unnormalized ones, same mesh and build. */
function renormalizeGroup(row: string, vertices: number, influences: number): void {
  const group = `skin renormalize: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const before = setUpBefore(m);
  const core = setUp(builds.at(-1)!, m);
  Deno.bench({
    name: `as skinned ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, ALL),
  });
  const renormalized = ALL | SkinFlags.RENORMALIZE;
  if (before) Deno.bench({ name: "before", group, fn: () => skinCore(before, renormalized) });
  Deno.bench({ name: `renormalized ${core.build}`, group, fn: () => skinCore(core, renormalized) });
}

/** Dual-quaternion against linear skinning, same mesh and build. */
function dualGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin dual quaternion: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const core = setUp(builds.at(-1)!, mesh(vertices, influences, true));
  Deno.bench({
    name: `linear ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, flags),
  });
  Deno.bench({
    name: `dual quaternion ${core.build}`,
    group,
    fn: () => skinCore(core, flags, false, true),
  });
}

positionsGroup(1024, 2);
positionsGroup(100_000, 4);
verticesGroup(100_000, 4, 0);
verticesGroup(100_000, 4, SkinFlags.NORMALS | SkinFlags.TANGENTS);

const ALL = SkinFlags.NORMALS | SkinFlags.TANGENTS;
limitGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
limitGroup("100,000 × 2, positions", 100_000, 2, 0);
limitGroup("1,024 × 2, positions", 1024, 2, 0);
limitGroup("100,000 × 4, positions", 100_000, 4, 0);
limitGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
boundsGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
boundsGroup("100,000 × 2, positions", 100_000, 2, 0);
boundsGroup("100,000 × 4, positions", 100_000, 4, 0);
boundsGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
dualGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
dualGroup("100,000 × 2, positions", 100_000, 2, 0);
dualGroup("100,000 × 4, positions", 100_000, 4, 0);
dualGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
renormalizeGroup("100,000 × 2, positions + normals + tangents", 100_000, 2);
renormalizeGroup("100,000 × 4, positions + normals + tangents", 100_000, 4);
