/**
 * The core and its memory, for every build:
 *
 * - build detection and `Core.create(build)`;
 * - allocations are 16-byte aligned, disjoint and zero-filled (or
 *   initialized: identity poses and matrices), freed space is reused and
 *   neighbouring free blocks merge;
 * - growing the memory: `core_memory_growth_test.ts`;
 * - the scalar build, forced, runs the whole pipeline like the others.
 */

import "../scalar.ts";
import fc from "fast-check";
import {
  assert,
  assertEquals,
  assertExists,
  assertGreater,
  assertNotStrictEquals,
  assertStrictEquals,
  assertThrows,
} from "@std/assert";
import {
  Core,
  type CoreBuffer,
  type CoreBuild,
  localToModel,
  MatrixBuffer,
  multiplyMatrices,
  ParentIndices,
  PoseBuffer,
  quatToMat,
  SkinMesh,
  skinVertices,
  VertexBuffer,
  WeightedBases,
} from "../kernels.ts";
import {
  affineArb,
  assertClose,
  BUILDS,
  fcParams,
  inVertices,
  layoutMeshArb,
  matricesArb,
  parentsArb,
  poseArray,
  sampleOne,
  trsArb,
} from "./_arbitrary.ts";

// ------------------------------------------------------------------ builds

Deno.test("Core.default is the fastest build (relaxed-simd on this runtime)", () => {
  assertStrictEquals(Core.default, Core.default);
  assertEquals(Core.default.build, "relaxed-simd");
  assertEquals(Core.create().build, Core.default.build);
  assertNotStrictEquals(Core.create(), Core.default);
});

Deno.test("Core.create makes each build on request", () => {
  for (const build of BUILDS) {
    const core = Core.create(build);
    assert(core instanceof Core);
    assertEquals(core.build, build);
    assertEquals(core.allocatedBytes, 0);
  }
});

Deno.test("Core.create rejects an unknown build", () => {
  const error = assertThrows(
    () => Core.create("avx512" as CoreBuild),
    TypeError,
  );
  assert(/avx512/.test(error.message), `message: ${error.message}`);
});

Deno.test("buffers reject a core that is not a Core", () => {
  assertThrows(() => new MatrixBuffer(1, {} as Core), TypeError, "core");
  assertThrows(
    () => new VertexBuffer(1, null as unknown as Core),
    TypeError,
    "core",
  );
});

// ------------------------------------------------------------- allocation

/** Every live buffer of a test, with the checks below. */
function assertLayout(core: Core, buffers: readonly CoreBuffer[]): void {
  const ranges = buffers.map((b) => [b.byteOffset, b.byteOffset + b.byteLength] as const)
    .sort((a, b) => a[0] - b[0]);
  for (const b of buffers) {
    assertStrictEquals(b.core, core);
    assertEquals(
      b.byteOffset % 16,
      0,
      `${b.constructor.name} at ${b.byteOffset} is not 16-byte aligned`,
    );
    assertGreater(b.byteOffset, 0, "offset 0 is reserved");
  }
  for (let i = 1; i < ranges.length; i++) {
    assert(
      ranges[i - 1][1] <= ranges[i][0],
      `blocks overlap: ${ranges[i - 1]} and ${ranges[i]}`,
    );
  }
  const last = ranges.at(-1);
  if (last) assert(last[1] <= core.byteLength, "a block ends past the memory");
}

for (const build of BUILDS) {
  Deno.test(`memory (${build}): allocations are aligned, disjoint and initialized`, () => {
    const core = Core.create(build);
    const buffers: CoreBuffer[] = [];
    for (let n = 0; n < 10; n++) {
      const pose = new PoseBuffer(n, core);
      const matrices = new MatrixBuffer(n, core);
      const vertices = new VertexBuffer(n, core);
      const parents = new ParentIndices(
        Array.from({ length: n }, (_, i) => i - 1),
        core,
      );
      buffers.push(pose, matrices, vertices, parents);
      assertEquals(pose.array.length, Math.ceil(n / 4) * 40);
      assertEquals(matrices.array.length, n * 12);
      assertEquals(vertices.array.length, n * 4);
      // Identity poses (every lane, padding included), identity matrices,
      // zero vertices.
      for (let g = 0; g < pose.array.length; g += 40) {
        assertEquals(Array.from(pose.array.subarray(g, g + 40)), [
          ...[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
          ...[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
          ...[1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
        ]);
      }
      for (let m = 0; m < n; m++) {
        assertEquals(Array.from(matrices.array.subarray(m * 12, m * 12 + 12)), [
          1,
          0,
          0,
          0,
          0,
          1,
          0,
          0,
          0,
          0,
          1,
          0,
        ]);
      }
      assert(vertices.array.every((x) => x === 0));
    }
    buffers.push(
      new WeightedBases(
        [0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 1],
        new Array(24).fill(1),
        {
          counts: [1, 2, 1],
          joints: [0, 1, 0, 1],
          weights: [1, 0.5, 0.5, 1],
        },
        core,
      ),
      new SkinMesh({
        parts: [1, 3],
        joints: [0, 1, 0],
        weights: [1, 1, 1],
        positions: new Array(12).fill(1),
      }, core),
    );
    assertLayout(core, buffers);
    assertEquals(
      core.allocatedBytes,
      buffers.reduce(
        (a, b) => a + Math.max(16, Math.ceil(b.byteLength / 16) * 16),
        0,
      ),
    );
    for (const b of buffers) b.free();
    assertEquals(core.allocatedBytes, 0);
  });

  Deno.test(`memory (${build}): random allocation and free sequences stay consistent`, () => {
    const core = Core.create(build);
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.nat(3), fc.integer({ min: 0, max: 40 }), fc.nat()),
          { maxLength: 40 },
        ),
        (steps) => {
          const live: VertexBuffer[] = [];
          for (const [kind, size, pick] of steps) {
            if (kind === 0 && live.length) {
              live.splice(pick % live.length, 1)[0].free();
            } else {
              const v = new VertexBuffer(size, core);
              // Fresh blocks read as zeros even where freed data was.
              assert(
                v.array.every((x) => x === 0),
                `stale data in a new block at ${v.byteOffset}`,
              );
              v.array.fill(-(live.length + 1));
              live.push(v);
            }
            assertLayout(core, live);
          }
          // Every block still holds its own fill.
          live.forEach((v) => assert(v.array.every((x) => x === v.array[0])));
          for (const v of live) v.free();
          assertEquals(core.allocatedBytes, 0);
        },
      ),
      fcParams(200),
    );
  });

  Deno.test(`memory (${build}): freed space is reused, zero-filled, and merged`, () => {
    const core = Core.create(build);
    const a = new VertexBuffer(8, core);
    const b = new VertexBuffer(8, core);
    const c = new VertexBuffer(8, core);
    const guard = new VertexBuffer(1, core);
    a.array.fill(7);
    b.array.fill(8);
    const peak = core.peakBytes;
    a.free();
    assertEquals(core.allocatedBytes, 2 * 128 + 16);
    // Same size: a's block, zeroed.
    const a2 = new VertexBuffer(8, core);
    assertEquals(a2.byteOffset, a.byteOffset);
    assert(a2.array.every((x) => x === 0), "stale data in a reused block");
    // A matrix buffer reusing a block is identities, not leftovers.
    a2.array.fill(9);
    a2.free();
    const m = new MatrixBuffer(2, core);
    assertEquals(m.byteOffset, a.byteOffset);
    assertEquals(Array.from(m.array), [
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      1,
      0,
    ]);
    m.free();
    // Two neighbours freed: one block of both.
    b.free();
    const ab = new VertexBuffer(16, core);
    assertEquals(ab.byteOffset, a.byteOffset);
    assert(ab.array.every((x) => x === 0));
    assertEquals(core.peakBytes, peak);
    // Bigger than any hole: past the others.
    c.free();
    const big = new VertexBuffer(40, core);
    assertGreater(big.byteOffset, guard.byteOffset);
    for (const x of [ab, guard, big]) x.free();
    assertEquals(core.allocatedBytes, 0);
  });

  Deno.test(`memory (${build}): freed buffers refuse use`, () => {
    const core = Core.create(build);
    const v = new VertexBuffer(2, core);
    const p = new ParentIndices([-1, 0], core);
    v.free();
    p.free();
    assert(v.freed);
    assertThrows(() => v.array, TypeError, "VertexBuffer was freed");
    assertThrows(() => v.free(), TypeError, "VertexBuffer was already freed");
    assertThrows(() => p.toArray(), TypeError, "was freed");
    assertThrows(() => p.at(0), TypeError, "was freed");
  });
}

// ------------------------------------------------------------- all builds

Deno.test("the scalar build, forced, runs the pipeline like the SIMD builds", () => {
  const parents = sampleOne(parentsArb(9, 9), 101);
  const joints = sampleOne(
    fc.array(trsArb({ translation: 2, minScale: 0.8, maxScale: 1.25 }), {
      minLength: 9,
      maxLength: 9,
    }),
    102,
  );
  const inverseBind = sampleOne(
    matricesArb(affineArb({ translation: 2 }), 9, 9),
    103,
  );
  const meshData = sampleOne(
    layoutMeshArb([1, 2, 2, 3, 3, 1, 4, 4, 6, 2], 9),
    104,
  );
  const outputs = BUILDS.map((build) => {
    const core = Core.create(build);
    const pose = new PoseBuffer(9, core);
    pose.array.set(poseArray(joints, 9, 0));
    const local = new MatrixBuffer(9, core), model = new MatrixBuffer(9, core);
    const ib = new MatrixBuffer(9, core), palette = new MatrixBuffer(9, core);
    ib.array.set(inverseBind);
    const mesh = new SkinMesh(meshData, core);
    const out = {
      positions: new VertexBuffer(12, core),
      normals: new VertexBuffer(12, core),
      tangents: new VertexBuffer(12, core),
    };
    quatToMat(pose, local);
    localToModel(local, model, new ParentIndices(parents, core));
    multiplyMatrices(model, ib, palette);
    skinVertices(palette, mesh, out, { renormalize: true });
    assertExists(out.tangents);
    return {
      build,
      positions: out.positions.array.slice(),
      tangents: out.tangents.array.slice(),
    };
  });
  const scalar = outputs.find((o) => o.build === "scalar")!;
  for (const o of outputs) {
    assertClose(
      o.positions,
      scalar.positions,
      1e-3,
      `${o.build} positions`,
      inVertices,
    );
    assertClose(
      o.tangents,
      scalar.tangents,
      1e-3,
      `${o.build} tangents`,
      inVertices,
    );
  }
});
