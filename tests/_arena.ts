/**
 * The cores the kernel tests run on: one shared core per build, an
 * {@linkcode Arena} of buffers in it (inputs copied in, freed together,
 * {@linkcode Arena.writesOnly} checking that a call wrote nothing outside
 * its outputs), {@linkcode acrossBuilds} running one input through every
 * build; and, for bad input, {@linkcode assertRejected}: the right error and
 * nothing written to any core's memory.
 *
 * @module
 */

import "../scalar.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
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
  PoseField,
  poseFloats,
  poseIndex,
  SkinMesh,
  type SkinMeshData,
  VERTEX_FLOATS,
  VertexBuffer,
  WeightedBases,
} from "../kernels.ts";

/** The rest pose of `joints` joints at the origin, unrotated, unit scale. */
export function identityPose(joints: number): Float32Array {
  const pose = new Float32Array(poseFloats(joints));
  for (let j = 0; j < joints; j++) {
    for (const field of [PoseField.QW, PoseField.SX, PoseField.SY, PoseField.SZ]) {
      pose[poseIndex(j, field)] = 1;
    }
  }
  return pose;
}

// ------------------------------------------------------------------- cores

/** Every build, the scalar reference last. */
export const BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd", "scalar"];
/** The WebAssembly builds, compared against the scalar reference. */
export const SIMD_BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd"];

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

/**
 * `call` throws an `ErrorClass` whose message matches `pattern` and
 * leaves the memory of every core in `cores` exactly as it was.
 */
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
