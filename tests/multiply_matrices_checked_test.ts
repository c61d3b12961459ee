/**
 * `multiplyMatricesCheckedBatch`: the multiply-inverse-bind system's kernel,
 * `multiplyMatricesBatch` with `firstBeyondBatch` fused in. On every build,
 * on random job tables whose inputs hold NaN, infinities and values whose
 * products overflow: the matrices written are bit for bit those of
 * `multiplyMatricesBatch`, and the job returned is the one an independent
 * scan of the scalar reference's products finds. With a `keep` word, a good
 * job's `a` matrices are copied there bit for bit, and a bad job's `keep`
 * block is left as it was (the fault isolation's last good copy).
 */
import "../scalar.ts";
import fc from "fast-check";
import { assertEquals } from "@std/assert";
import { Core } from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { BUILDS, fcParams } from "./_arbitrary.ts";

const SPECIALS = [NaN, Infinity, -Infinity, 3e18, -1e19, 2e9];

/** A matrix of values in [-2, 2], some replaced by `SPECIALS` when `spoiled`. */
const matrixArb = fc.tuple(
  fc.array(fc.float({ min: -2, max: 2, noNaN: true }), { minLength: 12, maxLength: 12 }),
  fc.array(fc.nat({ max: 300 }), { minLength: 12, maxLength: 12 }),
).map(([values, picks]) =>
  Float32Array.from(values, (v, i) => picks[i] < SPECIALS.length ? SPECIALS[picks[i]] : v)
);

const jobArb = fc.integer({ min: 0, max: 7 }).chain((count) =>
  fc.record({
    a: fc.array(matrixArb, { minLength: count, maxLength: count }),
    b: fc.array(matrixArb, { minLength: count, maxLength: count }),
  })
);

const limitArb = fc.constantFrom(1e18, Infinity, 4);

/** The index of the first job whose reference product has `!(|x| < limit)`, or -1. */
function expectedFirst(jobs: { a: Float32Array[]; b: Float32Array[] }[], limit: number): number {
  return badJobs(jobs, limit).indexOf(true);
}

/** Whether each job's reference product has `!(|x| < limit)`. */
function badJobs(jobs: { a: Float32Array[]; b: Float32Array[] }[], limit: number): boolean[] {
  const bound = Math.fround(limit);
  return jobs.map(({ a, b }) => {
    const out = new Float32Array(a.length * MATRIX_FLOATS);
    const flat = (m: Float32Array[]) => {
      const f = new Float32Array(m.length * MATRIX_FLOATS);
      m.forEach((x, i) => f.set(x, i * MATRIX_FLOATS));
      return f;
    };
    ref.multiplyMatrices(flat(a), flat(b), out, a.length);
    return out.some((x) => !(Math.abs(x) < bound));
  });
}

/** Runs `kernel` on a fresh table of `jobs` in a core of `build`: its result and outputs. */
function run(
  build: (typeof BUILDS)[number],
  jobs: { a: Float32Array[]; b: Float32Array[] }[],
  checked: boolean,
  limit: number,
  keep = false,
) {
  const core = Core.create(build), memory = coreMemory(core);
  const table = memory.alloc(Math.max(1, jobs.length) * JOB_WORDS * 4);
  const outs = jobs.map(({ a, b }) => {
    const bytes = Math.max(1, a.length) * MATRIX_FLOATS * 4;
    const at = { a: memory.alloc(bytes), b: memory.alloc(bytes), out: memory.alloc(bytes) };
    const { f32 } = memory.views();
    a.forEach((m, i) => f32.set(m, (at.a >> 2) + i * MATRIX_FLOATS));
    b.forEach((m, i) => f32.set(m, (at.b >> 2) + i * MATRIX_FLOATS));
    const kept = keep ? memory.alloc(bytes) : 0;
    // Each keep block starts with a value no product or input holds.
    if (kept) memory.views().f32.fill(KEEP_SENTINEL, kept >> 2, (kept + bytes) >> 2);
    return { ...at, kept, count: a.length };
  });
  const { u32 } = memory.views();
  outs.forEach((o, i) => u32.set([o.a, o.b, o.out, o.count, o.kept], (table >> 2) + i * JOB_WORDS));
  const kernels = coreKernels(core);
  const result = checked
    ? kernels.multiplyMatricesCheckedBatch(table, jobs.length, limit)
    : (kernels.multiplyMatricesBatch(table, jobs.length), undefined);
  const { f32 } = memory.views();
  return {
    result,
    outputs: outs.map((o) => f32.slice(o.out >> 2, (o.out >> 2) + o.count * MATRIX_FLOATS)),
    kept: outs.map((o) => f32.slice(o.kept >> 2, (o.kept >> 2) + o.count * MATRIX_FLOATS)),
  };
}

const KEEP_SENTINEL = 12345.5;

Deno.test("multiplyMatricesCheckedBatch writes multiplyMatricesBatch's bits and finds the first bad job", () => {
  fc.assert(
    fc.property(fc.array(jobArb, { maxLength: 6 }), limitArb, (jobs, limit) => {
      const expected = expectedFirst(jobs, limit);
      for (const build of BUILDS) {
        const plain = run(build, jobs, false, limit), checked = run(build, jobs, true, limit);
        assertEquals(checked.result, expected, `${build}: first job`);
        checked.outputs.forEach((out, i) => {
          assertEquals(
            new Uint32Array(out.buffer),
            new Uint32Array(plain.outputs[i].buffer),
            `${build}: job ${i}`,
          );
        });
      }
    }),
    fcParams(100),
  );
});

Deno.test("multiplyMatricesCheckedBatch copies a good job's a to its keep block, not a bad job's", () => {
  fc.assert(
    fc.property(fc.array(jobArb, { maxLength: 6 }), limitArb, (jobs, limit) => {
      const bad = badJobs(jobs, limit);
      for (const build of BUILDS) {
        const { result, kept } = run(build, jobs, true, limit, true);
        assertEquals(result, bad.indexOf(true), `${build}: first job`);
        kept.forEach((block, i) => {
          const expected = new Float32Array(jobs[i].a.length * MATRIX_FLOATS);
          if (bad[i]) expected.fill(KEEP_SENTINEL);
          else jobs[i].a.forEach((m, k) => expected.set(m, k * MATRIX_FLOATS));
          assertEquals(
            new Uint32Array(block.buffer),
            new Uint32Array(expected.buffer),
            `${build}: job ${i} (${bad[i] ? "bad" : "good"})`,
          );
        });
      }
    }),
    fcParams(100),
  );
});
