/**
 * Shared helpers of the kernel tests (`*_test.ts` next to this file):
 *
 * - seeded fast-check arbitraries for unit quaternions, TRS joint poses,
 *   affine 3x4 matrices with scale, hierarchies (parents before children),
 *   skin influences and bind meshes;
 * - {@linkcode acrossBuilds}, which runs one input through the three core
 *   builds (one {@linkcode Arena} per build: buffers allocated in that
 *   build's core, inputs copied in, freed afterwards), and
 *   {@linkcode Arena.writesOnly}, which checks that a kernel call wrote
 *   nothing in the core's heap outside its output buffers;
 * - comparisons (bit-exact and within a tolerance), layout conversions to
 *   the 4x4 column-major matrices of gl-matrix and three.js, and
 *   {@linkcode assertRejected}, which checks that a call throws the right
 *   error and writes nothing to any core's memory.
 *
 * The seed is fixed so that runs are reproducible; set `MARROW_SEED` to
 * another integer to explore other inputs (a failure message names the seed).
 *
 * @module
 */

import { coreMemory } from "../simd/_instance.ts";
import fc from "fast-check";
import { mat4 } from "gl-matrix";
import { assert, assertEquals, assertThrows, fail } from "@std/assert";
import {
  Core,
  type CoreBuffer,
  type CoreBuild,
  type InfluenceLists,
  MATRIX_FLOATS,
  MatrixBuffer,
  ParentIndices,
  PoseBuffer,
  type PoseField,
  poseFloats,
  poseIndex,
  SkinMesh,
  type SkinMeshData,
  VERTEX_FLOATS,
  VertexBuffer,
  WeightedBases,
} from "../kernels.ts";

// ------------------------------------------------------------------ seeding

/** Every build, the scalar reference last. */
export const BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd", "scalar"];
/** The WebAssembly builds, compared against the scalar reference. */
export const SIMD_BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd"];

function readSeed(): number {
  let text: string | undefined;
  try {
    text = Deno.env.get("MARROW_SEED");
  } catch {
    // No --allow-env: keep the fixed seed.
  }
  if (text === undefined || text === "") return 0x4d617277;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`MARROW_SEED: expected an integer, got ${text}`);
  }
  return seed | 0;
}

/** Seed of every fast-check run (env `MARROW_SEED`, else a fixed value). */
export const SEED: number = readSeed();
/** Cases per fast-check property. */
export const RUNS = 1000;

/** fast-check parameters: seeded, {@linkcode RUNS} cases unless told. */
export function fcParams<T>(numRuns: number = RUNS): fc.Parameters<T> {
  return { seed: SEED, numRuns, endOnFailure: true };
}

/**
 * Checks `property` on batches of `numRuns` seeded cases, the first with
 * {@linkcode SEED} itself, until `uncovered()` (the caller's count of a path
 * the property must take often enough) gives no complaint or `batches` have
 * run, then fails with the complaint left: coverage whatever `MARROW_SEED`
 * draws.
 */
export function assertCovering<Ts extends [unknown, ...unknown[]]>(
  property: fc.IProperty<Ts>,
  numRuns: number,
  uncovered: () => string | undefined,
  batches = 8,
): void {
  for (let batch = 0; batch === 0 || (batch < batches && uncovered()); batch++) {
    fc.assert(property, { ...fcParams<Ts>(numRuns), seed: (SEED + batch * 0x9e3779b9) | 0 });
  }
  const complaint = uncovered();
  if (complaint) fail(complaint);
}

/** One deterministic value of `arb` (for the large explicit sizes). */
export function sampleOne<T>(arb: fc.Arbitrary<T>, salt = 0): T {
  return fc.sample(arb, { seed: (SEED + salt) | 0, numRuns: 1 })[0];
}

// --------------------------------------------------------------- numbers

/** Uniform in `[min, max]` (fast-check's `double` favours tiny values). */
export function uniform(min: number, max: number): fc.Arbitrary<number> {
  const steps = 2 ** 30;
  return fc.integer({ min: 0, max: steps }).map((i) => min + (max - min) * (i / steps));
}

/** Mostly uniform in `[min, max]`, sometimes fast-check's edge values. */
export function real(min: number, max: number): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 4, arbitrary: uniform(min, max) },
    { weight: 1, arbitrary: fc.double({ min, max, noNaN: true }) },
  );
}

// --------------------------------------------------------------- rotations

/** `[x, y, z]`. */
export type Vec3 = [number, number, number];
/** `[x, y, z, w]`, Hamilton, unit. */
export type Quat = [number, number, number, number];

/** `q / |q|`, or the identity when `q` is (almost) zero. */
export function normalizeQuat([x, y, z, w]: readonly number[]): Quat {
  const n = Math.hypot(x, y, z, w);
  return n < 1e-3 ? [0, 0, 0, 1] : [x / n, y / n, z / n, w / n];
}

const H = Math.SQRT1_2;
/** Axis-aligned rotations, both signs, and other exact cases. */
export const SPECIAL_QUATS: readonly Quat[] = [
  [0, 0, 0, 1],
  [0, 0, 0, -1],
  [H, 0, 0, H],
  [0, H, 0, H],
  [0, 0, H, H],
  [-H, 0, 0, H],
  [0, -H, 0, -H],
  [1, 0, 0, 0],
  [0, 1, 0, 0],
  [0, 0, 1, 0],
  [0, 0, -1, 0],
  [0.5, 0.5, 0.5, 0.5],
  [0.5, -0.5, 0.5, -0.5],
];

/** Unit quaternions: random directions and {@linkcode SPECIAL_QUATS}. */
export const quatArb: fc.Arbitrary<Quat> = fc.oneof(
  {
    weight: 9,
    arbitrary: fc.tuple(real(-1, 1), real(-1, 1), real(-1, 1), real(-1, 1))
      .map(normalizeQuat),
  },
  { weight: 1, arbitrary: fc.constantFrom(...SPECIAL_QUATS) },
);

// ------------------------------------------------------------------- poses

/** A joint pose: translation, rotation, scale. */
export interface Trs {
  t: Vec3;
  q: Quat;
  s: Vec3;
}

/** Ranges of {@linkcode trsArb}. */
export interface TrsOptions {
  /** Translations in `[-translation, translation]`. Default 10. */
  translation?: number;
  /** Scale magnitudes in `[minScale, maxScale]`. Default 0.25. */
  minScale?: number;
  /** Default 4. */
  maxScale?: number;
  /** Allow negative scale components. Default false. */
  negativeScale?: boolean;
}

/** Joint poses; a quarter of them have unit scale. */
export function trsArb(options: TrsOptions = {}): fc.Arbitrary<Trs> {
  const {
    translation = 10,
    minScale = 0.25,
    maxScale = 4,
    negativeScale = false,
  } = options;
  const t = real(-translation, translation);
  const magnitude = real(minScale, maxScale);
  const s = negativeScale
    ? fc.tuple(magnitude, fc.boolean()).map(([m, neg]) => neg ? -m : m)
    : magnitude;
  return fc.record({
    t: fc.tuple(t, t, t),
    q: quatArb,
    s: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(s, s, s) },
      { weight: 1, arbitrary: fc.constant<Vec3>([1, 1, 1]) },
    ),
  });
}

/**
 * A SoA×4 pose array of `jointCount` joints (at least `joints.length`):
 * `joints` first, every other float (joints past them and the padding
 * lanes of the last group) set to `filler`.
 */
export function poseArray(
  joints: readonly Trs[],
  jointCount: number = joints.length,
  filler = NaN,
): Float32Array {
  const pose = new Float32Array(
    poseFloats(Math.max(jointCount, joints.length)),
  ).fill(filler);
  joints.forEach(({ t, q, s }, j) => {
    [...t, ...q, ...s].forEach((value, field) => {
      pose[poseIndex(j, field as PoseField)] = value;
    });
  });
  return pose;
}

/** Joint `joint` of a SoA×4 pose array. */
export function readJoint(pose: ArrayLike<number>, joint: number): Trs {
  const f = (field: number) => pose[poseIndex(joint, field as PoseField)];
  return {
    t: [f(0), f(1), f(2)],
    q: [f(3), f(4), f(5), f(6)],
    s: [f(7), f(8), f(9)],
  };
}

// ---------------------------------------------------------------- matrices

/** Matrix `index` of 3x4 row-major `m` as a 4x4 column-major array. */
export function toColumnMajor(m: ArrayLike<number>, index = 0): Float64Array {
  const o = index * MATRIX_FLOATS;
  const out = new Float64Array(16);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) out[c * 4 + r] = m[o + r * 4 + c];
  }
  out[15] = 1;
  return out;
}

/** A 4x4 column-major affine matrix as 3x4 row-major (last row dropped). */
export function fromColumnMajor(a: ArrayLike<number>): Float64Array {
  const out = new Float64Array(MATRIX_FLOATS);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) out[r * 4 + c] = a[c * 4 + r];
  }
  return out;
}

/** `T * R * S` of a joint pose, computed by gl-matrix in double. */
export function trsMatrix({ t, q, s }: Trs): Float32Array {
  const m = mat4.fromRotationTranslationScale(
    new Float64Array(16) as unknown as mat4,
    q,
    t,
    s,
  );
  return Float32Array.from(fromColumnMajor(m));
}

/** Matrices concatenated into one array of 12 floats each. */
export function concatMatrices(
  list: readonly ArrayLike<number>[],
): Float32Array {
  const out = new Float32Array(list.length * MATRIX_FLOATS);
  list.forEach((m, i) => out.set(Array.from(m), i * MATRIX_FLOATS));
  return out;
}

/** Ranges of {@linkcode affineArb}. */
export interface AffineOptions {
  /** Translations in `[-translation, translation]`. Default 10. */
  translation?: number;
  /** Singular values in `[minScale, maxScale]`. Default 0.5. */
  minScale?: number;
  /** Default 2. */
  maxScale?: number;
}

/**
 * General affine 3x4 matrices `R1 * diag(s) * R2 + t` (rotation, scale
 * and shear; condition number at most `maxScale / minScale`), with a
 * reflection in one case out of eight.
 */
export function affineArb(
  options: AffineOptions = {},
): fc.Arbitrary<Float32Array> {
  const { translation = 10, minScale = 0.5, maxScale = 2 } = options;
  const t = real(-translation, translation);
  const s = real(minScale, maxScale);
  return fc.tuple(
    quatArb,
    quatArb,
    fc.tuple(s, s, s),
    fc.tuple(t, t, t),
    fc.integer({ min: 0, max: 7 }),
  ).map(([q1, q2, scale, translate, flip]) => {
    const m1 = mat4.fromQuat(new Float64Array(16) as unknown as mat4, q1);
    const m2 = mat4.fromQuat(new Float64Array(16) as unknown as mat4, q2);
    if (flip === 0) scale[0] = -scale[0];
    mat4.scale(m1, m1, scale);
    const m = mat4.multiply(m1, m1, m2);
    m[12] = translate[0], m[13] = translate[1], m[14] = translate[2];
    return Float32Array.from(fromColumnMajor(m));
  });
}

/** `count` matrices of `arb` in one array. */
export function matricesArb(
  arb: fc.Arbitrary<Float32Array>,
  minCount: number,
  maxCount: number,
): fc.Arbitrary<Float32Array> {
  return fc.array(arb, { minLength: minCount, maxLength: maxCount })
    .map(concatMatrices);
}

/**
 * The per-element error bound of a 3x4 product `a * b`: for element
 * `(r, c)`, `sum_k |a[r][k]| |b[k][c]|` (plus `|a[r][3]|` in column 3),
 * the magnitude of the terms the kernel adds up.
 */
export function productMagnitude(
  a: ArrayLike<number>,
  ia: number,
  b: ArrayLike<number>,
  ib: number,
): Float64Array {
  const A = ia * MATRIX_FLOATS, B = ib * MATRIX_FLOATS;
  const out = new Float64Array(MATRIX_FLOATS);
  for (let r = 0; r < 3; r++) {
    for (let c = 0; c < 4; c++) {
      let sum = c === 3 ? Math.abs(a[A + r * 4 + 3]) : 0;
      for (let k = 0; k < 3; k++) {
        sum += Math.abs(a[A + r * 4 + k]) * Math.abs(b[B + k * 4 + c]);
      }
      out[r * 4 + c] = sum;
    }
  }
  return out;
}

// ---------------------------------------------------------------- skeleton

/**
 * Parent lists of `minJoints..maxJoints` joints, parents before children:
 * roots (10%), chains (`i - 1`, 40%) and random earlier joints.
 */
export function parentsArb(
  minJoints: number,
  maxJoints: number,
): fc.Arbitrary<number[]> {
  return fc.array(
    fc.tuple(fc.integer({ min: 0, max: 9 }), fc.nat()),
    { minLength: minJoints, maxLength: maxJoints },
  ).map((picks) =>
    picks.map(([kind, r], i) => i === 0 || kind === 0 ? -1 : kind <= 4 ? i - 1 : r % i)
  );
}

// ------------------------------------------------------------------- skins

/** Influences of one vertex: joints and weights, heaviest first. */
export interface VertexInfluences {
  joints: number[];
  weights: number[];
}

/**
 * Influences of one vertex: `count` (or 1..`maxPer`) distinct joints below
 * `jointCount` with `f32` weights that sum to one (up to rounding), sorted
 * by decreasing weight: the first positive, later ones sometimes zero.
 */
export function vertexInfluencesArb(
  jointCount: number,
  maxPer: number,
  count?: number,
): fc.Arbitrary<VertexInfluences> {
  const n = count === undefined
    ? fc.integer({ min: 1, max: Math.min(maxPer, jointCount) })
    : fc.constant(Math.min(count, jointCount));
  return n.chain((k) =>
    fc.tuple(
      fc.uniqueArray(fc.integer({ min: 0, max: jointCount - 1 }), {
        minLength: k,
        maxLength: k,
      }),
      // Some zero weights, as glTF pads its four influences with them.
      fc.array(
        fc.oneof(
          { weight: 6, arbitrary: real(0.01, 1) },
          { weight: 1, arbitrary: fc.constant<number>(0) },
        ),
        { minLength: k, maxLength: k },
      ),
    )
  ).map(([joints, raw]) => {
    if (Math.max(...raw) === 0) raw[0] = 1;
    const sum = raw.reduce((a, b) => a + b, 0);
    const weights = raw.map((w) => Math.fround(w / sum)).sort((a, b) => b - a);
    return { joints, weights };
  });
}

/** Influence lists of many vertices, as `WeightedBases` takes them. */
export interface Influences {
  counts: number[];
  joints: number[];
  weights: Float32Array;
}

/** Flattens per-vertex influences. */
export function flattenInfluences(
  list: readonly VertexInfluences[],
): Influences {
  return {
    counts: list.map((v) => v.joints.length),
    joints: list.flatMap((v) => v.joints),
    weights: Float32Array.from(list.flatMap((v) => v.weights)),
  };
}

/** Points `(x, y, z, 1)` with coordinates in `[-extent, extent]`. */
export function positionsArb(
  vertexCount: number,
  extent = 2,
): fc.Arbitrary<Float32Array> {
  const x = real(-extent, extent);
  return fc.array(fc.tuple(x, x, x), {
    minLength: vertexCount,
    maxLength: vertexCount,
  }).map((points) => Float32Array.from(points.flatMap(([a, b, c]) => [a, b, c, 1])));
}

/** Unit directions `(x, y, z, w)`, `w` from `ws` (0 for normals). */
export function directionsArb(
  vertexCount: number,
  ws: fc.Arbitrary<number> = fc.constant(0),
): fc.Arbitrary<Float32Array> {
  return fc.array(fc.tuple(quatArb, ws), {
    minLength: vertexCount,
    maxLength: vertexCount,
  }).map((list) =>
    Float32Array.from(list.flatMap(([[x, y, z], w]) => {
      const n = Math.hypot(x, y, z);
      return n < 1e-3 ? [0, 0, 1, w] : [x / n, y / n, z / n, w];
    }))
  );
}

/** A bind mesh as `SkinMesh` takes it, every stream present. */
export interface MeshData {
  parts: number[];
  joints: number[];
  weights: Float32Array;
  positions: Float32Array;
  normals: Float32Array;
  tangents: Float32Array;
}

/** Ranges of {@linkcode meshArb}. */
export interface MeshOptions {
  /** Joints the influences may use. */
  jointCount: number;
  /** Most influences per vertex. */
  maxPer: number;
  /** Most parts. Default 4. */
  maxParts?: number;
  /** Most vertices per part (parts may be empty). Default 5. */
  maxVertices?: number;
}

/**
 * Bind meshes in parts of equal influence count: positions in `[-2, 2]`,
 * unit normals, unit tangents with handedness `±1`.
 */
export function meshArb(options: MeshOptions): fc.Arbitrary<MeshData> {
  const { jointCount, maxPer, maxParts = 4, maxVertices = 5 } = options;
  const perVertex = fc.integer({ min: 1, max: Math.min(maxPer, jointCount) });
  return fc.array(
    fc.tuple(perVertex, fc.integer({ min: 0, max: maxVertices })),
    { minLength: 0, maxLength: maxParts },
  ).chain((pairs) => layoutMeshArb(pairs.flat(), jointCount));
}

/**
 * Bind meshes with the part layout `parts` (`[influences, vertices]`
 * pairs; influences above `jointCount` are lowered to it).
 */
export function layoutMeshArb(
  parts: readonly number[],
  jointCount: number,
): fc.Arbitrary<MeshData> {
  const pairs: [number, number][] = [];
  for (let p = 0; p < parts.length; p += 2) {
    pairs.push([Math.min(parts[p], jointCount), parts[p + 1]]);
  }
  const vertexCount = pairs.reduce((a, [, n]) => a + n, 0);
  return fc.record({
    influences: fc.tuple(
      ...pairs.map(([k, n]) =>
        fc.array(vertexInfluencesArb(jointCount, k, k), {
          minLength: n,
          maxLength: n,
        })
      ),
    ),
    positions: positionsArb(vertexCount),
    normals: directionsArb(vertexCount),
    tangents: directionsArb(vertexCount, fc.constantFrom(1, -1)),
  }).map(({ influences, positions, normals, tangents }) => {
    const flat = flattenInfluences(influences.flat());
    return {
      parts: pairs.flat(),
      joints: flat.joints,
      weights: flat.weights,
      positions,
      normals,
      tangents,
    };
  });
}

// ------------------------------------------------------------------- cores

const cores = new Map<CoreBuild, Core>();

/** This module's core of `build` (created once, shared by the tests). */
export function coreFor(build: CoreBuild): Core {
  let core = cores.get(build);
  if (!core) {
    core = Core.create(build);
    assertEquals(core.build, build);
    cores.set(build, core);
  }
  return core;
}

/**
 * Buffers of one core, made from plain arrays and freed together:
 * every allocating method copies its input into the new buffer.
 */
export class Arena {
  /** The core the buffers live in. */
  readonly core: Core;
  readonly #owned: CoreBuffer[] = [];

  constructor(core: Core) {
    this.core = core;
  }

  /** The core's build. */
  get build(): CoreBuild {
    return this.core.build;
  }

  /** Frees `buffer` with the others. */
  own<T extends CoreBuffer>(buffer: T): T {
    this.#owned.push(buffer);
    return buffer;
  }

  /** A pose of `jointCount` joints holding `data` (a whole SoA×4 array). */
  pose(data: ArrayLike<number>, jointCount: number): PoseBuffer {
    const pose = this.own(new PoseBuffer(jointCount, this.core));
    assertEquals(data.length, pose.array.length, "pose data length");
    pose.array.set(data);
    return pose;
  }

  /** Matrices holding `data` (12 floats each), or `data` identities. */
  matrices(data: ArrayLike<number> | number): MatrixBuffer {
    if (typeof data === "number") {
      return this.own(new MatrixBuffer(data, this.core));
    }
    assertEquals(data.length % MATRIX_FLOATS, 0, "matrix data length");
    const m = this.own(
      new MatrixBuffer(data.length / MATRIX_FLOATS, this.core),
    );
    m.array.set(data);
    return m;
  }

  /** A vertex stream holding `data` (4 floats each), or `data` zeros. */
  vertices(data: ArrayLike<number> | number): VertexBuffer {
    if (typeof data === "number") {
      return this.own(new VertexBuffer(data, this.core));
    }
    assertEquals(data.length % VERTEX_FLOATS, 0, "vertex data length");
    const v = this.own(
      new VertexBuffer(data.length / VERTEX_FLOATS, this.core),
    );
    v.array.set(data);
    return v;
  }

  /** Validated parent indices. */
  parents(parents: ArrayLike<number>): ParentIndices {
    return this.own(new ParentIndices(parents, this.core));
  }

  /** Weighted base vectors. */
  bases(
    positions: ArrayLike<number>,
    inverseBind: ArrayLike<number>,
    influences: InfluenceLists,
  ): WeightedBases {
    return this.own(
      new WeightedBases(positions, inverseBind, influences, this.core),
    );
  }

  /** A bind mesh. */
  mesh(data: SkinMeshData): SkinMesh {
    return this.own(new SkinMesh(data, this.core));
  }

  /**
   * Runs `call` and checks that it wrote nothing in the core's heap but
   * the blocks of `outputs`: every other byte up to the heap's peak (the
   * other buffers, the gaps between them, the reserved bytes at 0) is as
   * it was.
   */
  writesOnly(outputs: readonly CoreBuffer[], call: () => void): void {
    const memory = coreMemory(this.core);
    const end = Math.ceil(this.core.peakBytes / 4);
    const before = memory.views().u32.slice(0, end);
    call();
    const now = memory.views().u32;
    const allowed = outputs.map((
      b,
    ) => [b.byteOffset >> 2, (b.byteOffset + b.byteLength) >> 2])
      .sort((x, y) => x[0] - y[0]);
    let word = 0;
    for (const [from, to] of [...allowed, [end, end]]) {
      for (; word < Math.min(from, end); word++) {
        if (now[word] !== before[word]) {
          const owner = outputs.length ? ` (outputs at ${allowed.map((r) => r[0] * 4)})` : "";
          fail(
            `${this.build} core: byte ${word * 4} was written outside the outputs${owner}`,
          );
        }
      }
      word = Math.max(word, to);
    }
  }

  /** Frees every buffer that is still live. */
  free(): void {
    for (const buffer of this.#owned.splice(0)) {
      if (!buffer.freed) buffer.free();
    }
  }
}

/**
 * Runs `run` once per build with an arena of that build's core and returns
 * the results by build. `run` must return copies (`slice()`), not views:
 * the arena is freed when it returns.
 */
export function acrossBuilds<T>(
  run: (arena: Arena) => T,
  builds: readonly CoreBuild[] = BUILDS,
): Record<CoreBuild, T> {
  const results = {} as Record<CoreBuild, T>;
  for (const build of builds) {
    const arena = new Arena(coreFor(build));
    try {
      results[build] = run(arena);
    } finally {
      arena.free();
    }
  }
  return results;
}

// ------------------------------------------------------------- comparisons

/** The precision bound of `design/math.md`. */
export const EPSILON = 1e-5;

/** {@linkcode EPSILON} scaled by a magnitude above one. */
export function tolerance(magnitude: number): number {
  return EPSILON * Math.max(1, magnitude);
}

/** Describes float `i` of an output for failure messages. */
export type Where = (index: number) => string;

/** Float `i` of a matrix array. */
export const inMatrices: Where = (i) =>
  `matrix ${Math.floor(i / MATRIX_FLOATS)} element ${i % MATRIX_FLOATS}`;
/** Float `i` of a vertex stream. */
export const inVertices: Where = (i) =>
  `vertex ${Math.floor(i / VERTEX_FLOATS)} component ${i % VERTEX_FLOATS}`;
/** Float `i` of a SoA×4 pose. */
export const inPose: Where = (i) =>
  `joint ${Math.floor(i / 40) * 4 + (i % 4)} field ${Math.floor((i % 40) / 4)}`;

function bits(a: Float32Array): Uint32Array {
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

/** `actual` has exactly the bits of `expected`. */
export function assertBitwise(
  actual: Float32Array,
  expected: Float32Array,
  what: string,
  where: Where = String,
): void {
  assertEquals(actual.length, expected.length, `${what}: length`);
  const a = bits(actual), e = bits(expected);
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== e[i]) {
      fail(
        `${what}: ${where(i)} (float ${i}) is ${actual[i]}, expected exactly ` +
          `${expected[i]} (seed ${SEED})`,
      );
    }
  }
}

/**
 * `|actual[i] - expected[i]| <= bound(i)` for every float, with the
 * worst excess reported. `bound` is a number, a per-float array or a
 * per-float function.
 */
export function assertClose(
  actual: ArrayLike<number>,
  expected: ArrayLike<number>,
  bound: number | ArrayLike<number> | ((index: number) => number),
  what: string,
  where: Where = String,
): void {
  assertEquals(actual.length, expected.length, `${what}: length`);
  const limitAt = (i: number) =>
    typeof bound === "number" ? bound : typeof bound === "function" ? bound(i) : bound[i];
  let worst = -1, worstRatio = 1;
  for (let i = 0; i < actual.length; i++) {
    const limit = limitAt(i);
    const error = Math.abs(actual[i] - expected[i]);
    // NaN anywhere fails (the comparison below is false).
    const ratio = error <= limit ? 0 : error / limit;
    if (!(error <= limit) && (worst < 0 || !(ratio <= worstRatio))) {
      worst = i;
      worstRatio = Number.isNaN(ratio) ? Infinity : ratio;
    }
  }
  if (worst >= 0) {
    const limit = limitAt(worst);
    fail(
      `${what}: ${where(worst)} (float ${worst}) is ${actual[worst]}, expected ` +
        `${expected[worst]}: error ${
          Math.abs(actual[worst] - expected[worst])
        } > ${limit} (seed ${SEED})`,
    );
  }
}

/** `a` and `b` are the same rotation: equal up to sign within `bound`. */
export function assertSameRotation(
  a: readonly number[],
  b: readonly number[],
  bound: number,
  what: string,
): void {
  const plus = Math.max(...a.map((x, i) => Math.abs(x - b[i])));
  const minus = Math.max(...a.map((x, i) => Math.abs(x + b[i])));
  if (!(Math.min(plus, minus) <= bound)) {
    fail(
      `${what}: quaternion [${a.join(", ")}] is not ±[${b.join(", ")}] ` +
        `(error ${Math.min(plus, minus)} > ${bound}, seed ${SEED})`,
    );
  }
}

// ------------------------------------------------------------- bad input

/** A copy of every byte of each core's memory; call it to compare. */
export function snapshotCores(...list: Core[]): () => void {
  const snaps = [...new Set(list)].map((core) =>
    [core, coreMemory(core).views().u8.slice()] as const
  );
  return () => {
    for (const [core, before] of snaps) {
      const now = coreMemory(core).views().u8;
      assertEquals(
        now.length,
        before.length,
        `${core.build} core: memory size`,
      );
      for (let i = 0; i < now.length; i++) {
        if (now[i] !== before[i]) {
          fail(`${core.build} core: byte ${i} of the memory was written`);
        }
      }
    }
  };
}

/**
 * `call` throws an `ErrorClass` whose message matches `pattern` and
 * leaves the memory of every core in `cores` exactly as it was.
 */
/**
 * A registrar of bad-input tests for `kernel` on `core`: each test prepares
 * fresh buffers with `setUp`, builds the call (buffers of `other` stand for
 * a foreign core) and asserts it is rejected with nothing written in either
 * core.
 */
export function rejections<T>(
  kernel: string,
  core: Core,
  other: Core,
  setUp: (arena: Arena) => T,
): (
  name: string,
  prepare: (bufs: T, arena: Arena, foreign: Arena) => () => unknown,
  ErrorClass: typeof RangeError | typeof TypeError,
  pattern: RegExp,
) => void {
  return (name, prepare, ErrorClass, pattern) =>
    Deno.test(`${kernel} (${core.build}) rejects ${name}`, () => {
      const arena = new Arena(core), foreign = new Arena(other);
      try {
        const call = prepare(setUp(arena), arena, foreign);
        assertRejected([core, other], call, ErrorClass, pattern);
      } finally {
        arena.free();
        foreign.free();
      }
    });
}

export function assertRejected(
  cores: Core | readonly Core[],
  call: () => unknown,
  ErrorClass: typeof RangeError | typeof TypeError,
  pattern: RegExp,
): void {
  const unchanged = snapshotCores(...(cores instanceof Core ? [cores] : cores));
  const error = assertThrows(call, ErrorClass);
  assert(
    pattern.test(error.message),
    `${ErrorClass.name} message ${JSON.stringify(error.message)} does not ` +
      `match ${pattern}`,
  );
  unchanged();
}

/** A value of the wrong type, for argument checks. */
export function wrong<T>(value: unknown): T {
  return value as T;
}
