/**
 * The layer blending kernel: each SIMD build equals the scalar reference on
 * random layer stacks (fast-check), and the reference equals independent
 * formulas (gl-matrix quaternions, `blendPoses`) on the cases they cover.
 * The scalar build runs the reference itself, so its comparison finds only
 * bugs of its wrapper (job words, offsets); its arithmetic is checked by the
 * independent formulas.
 */
import "../scalar.ts";
import { assertLess } from "@std/assert";
import fc from "fast-check";
import { quat } from "gl-matrix";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import {
  JOB_WORDS,
  LAYER_ENTRY_BYTES,
  LAYER_ENTRY_MASK,
  LAYER_ENTRY_POSE,
  LAYER_ENTRY_REFERENCE,
  LAYER_ENTRY_WEIGHT,
  LAYERS_BLEND_COUNT,
  LAYERS_ENTRIES,
  LAYERS_JOINT_COUNT,
  LAYERS_OUT,
  LAYERS_REST,
  LAYERS_THRESHOLD,
  LAYERS_TOP_COUNT,
} from "../simd/abi.ts";
import { blendLayers, type LayerInput } from "../simd/scalar/layers.ts";
import { blendPoses } from "../simd/scalar/mod.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import {
  coreFor,
  fcParams,
  poseArray,
  readJoint,
  SIMD_BUILDS,
  trsArb,
  uniform,
} from "./_arbitrary.ts";
import type { CoreBuild } from "../kernels.ts";

interface Stack {
  jointCount: number;
  rest: Float32Array;
  layers: LayerInput[];
  blendCount: number;
  threshold: number;
}

// Weights of 0, or not tiny: with an accumulated weight near 0 the shorter-arc
// sign of the next rotation is decided by rounding, a discontinuity.
const weightArb = fc.oneof(uniform(0.01, 1), fc.constantFrom(0, 1));

/** Random stacks of at least `minBlends` blend layers (a property's layers drawn, never skipped). */
function stackArb(minBlends = 0): fc.Arbitrary<Stack> {
  return fc.integer({ min: 1, max: 13 }).chain((jointCount) => {
    const lanes = Math.ceil(jointCount / 4) * 4;
    const pose = fc.array(trsArb({ translation: 5 }), { minLength: lanes, maxLength: lanes })
      .map((joints) => poseArray(joints, lanes));
    const mask = fc.array(weightArb, { minLength: 3 * lanes, maxLength: 3 * lanes })
      .map((m) => Float32Array.from(m));
    const layer = fc.record({ pose, mask, weight: weightArb, reference: pose });
    // Layers on top of the blended ones: additive (with a reference) or override.
    const top = fc.record({ layer, additive: fc.boolean() })
      .map(({ layer, additive }) => additive ? layer : { ...layer, reference: undefined });
    return fc.record({
      jointCount: fc.constant(jointCount),
      rest: pose,
      blends: fc.array(layer, { minLength: minBlends, maxLength: Math.max(4, minBlends) }),
      tops: fc.array(top, { maxLength: 4 }),
      threshold: fc.oneof(uniform(0.01, 1), fc.constant(0.1)),
    }).map(({ jointCount, rest, blends, tops, threshold }) => ({
      jointCount,
      rest,
      layers: [...blends.map((l) => ({ ...l, reference: undefined })), ...tops],
      blendCount: blends.length,
      threshold: Math.fround(threshold),
    }));
  });
}

/** Runs one stack through the core of `build`; returns the output pose. */
function runOnCore(build: CoreBuild, s: Stack): Float32Array {
  const core = coreFor(build), memory = coreMemory(core);
  const n = poseFloats(s.jointCount);
  const put = (data: Float32Array) => {
    const ptr = memory.alloc(data.byteLength);
    memory.views().f32.set(data, ptr >> 2);
    return ptr;
  };
  const owned: number[] = [];
  const keep = (ptr: number) => (owned.push(ptr), ptr);
  const out = keep(memory.alloc(n * 4));
  const rest = keep(put(s.rest));
  const table = keep(memory.alloc(Math.max(1, s.layers.length) * LAYER_ENTRY_BYTES));
  s.layers.forEach((layer, i) => {
    const at = (table + i * LAYER_ENTRY_BYTES) >> 2;
    const v = memory.views();
    v.u32[at + LAYER_ENTRY_POSE] = keep(put(layer.pose));
    v.u32[at + LAYER_ENTRY_MASK] = keep(put(layer.mask));
    v.f32[at + LAYER_ENTRY_WEIGHT] = layer.weight;
    v.u32[at + LAYER_ENTRY_REFERENCE] = layer.reference ? keep(put(layer.reference)) : 0;
  });
  const job = keep(memory.alloc(JOB_WORDS * 4));
  const v = memory.views(), at = job >> 2;
  v.u32[at + LAYERS_OUT] = out, v.u32[at + LAYERS_JOINT_COUNT] = s.jointCount;
  v.u32[at + LAYERS_REST] = rest, v.u32[at + LAYERS_ENTRIES] = table;
  v.u32[at + LAYERS_BLEND_COUNT] = s.blendCount;
  v.u32[at + LAYERS_TOP_COUNT] = s.layers.length - s.blendCount;
  v.f32[at + LAYERS_THRESHOLD] = s.threshold;
  coreKernels(core).blendLayersBatch(0, 0, job, 1);
  const result = memory.views().f32.slice(out >> 2, (out >> 2) + n);
  for (const ptr of owned) memory.free(ptr);
  return result;
}

function reference(s: Stack): Float32Array {
  const out = new Float32Array(poseFloats(s.jointCount));
  blendLayers(out, s.jointCount, s.rest, s.layers, s.blendCount, s.threshold);
  return out;
}

/** Largest difference, rotations compared up to sign. */
function poseDifference(a: Float32Array, b: Float32Array, jointCount: number): number {
  let max = 0;
  for (let j = 0; j < Math.ceil(jointCount / 4) * 4; j++) {
    const x = readJoint(a, j), y = readJoint(b, j);
    const sign = quat.dot(x.q as quat, y.q as quat) < 0 ? -1 : 1;
    for (let c = 0; c < 3; c++) {
      max = Math.max(max, Math.abs(x.t[c] - y.t[c]), Math.abs(x.s[c] - y.s[c]));
    }
    for (let c = 0; c < 4; c++) max = Math.max(max, Math.abs(x.q[c] - sign * y.q[c]));
  }
  return max;
}

/**
 * Whether a shorter-arc decision of the stack is a near tie: a rotation
 * almost orthogonal (in 4D) to the sum it joins or to the rotation an
 * override layer nlerps from, or an additive delta of almost 180°, at a
 * partial weight. There the result jumps between two answers, and
 * rounding (fused or not) picks one.
 */
function nearTie(s: Stack): boolean {
  const lanes = Math.ceil(s.jointCount / 4) * 4;
  const dot4 = (a: ArrayLike<number>, b: ArrayLike<number>) =>
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  for (let j = 0; j < lanes; j++) {
    const q = quat.fromValues(0, 0, 0, 0);
    let total = 0;
    for (let i = 0; i <= s.blendCount; i++) {
      const last = i === s.blendCount;
      const w = last
        ? Math.max(s.threshold - total, 0)
        : s.layers[i].weight * s.layers[i].mask[lanes + j];
      total += w;
      if (w === 0) continue;
      const p = readJoint(last ? s.rest : s.layers[i].pose, j).q;
      const dot = dot4(q, p);
      if (quat.length(q) > 0 && Math.abs(dot) < 1e-3) return true;
      for (let c = 0; c < 4; c++) q[c] += p[c] * (dot < 0 ? -w : w);
    }
    quat.normalize(q, q);
    // The rotation so far, through the layers on top (as gl-matrix computes them).
    for (let i = s.blendCount; i < s.layers.length; i++) {
      const { weight, mask, pose, reference } = s.layers[i];
      const w = weight * mask[lanes + j], p = readJoint(pose, j).q as quat;
      const partial = w > 0 && w < 1;
      if (reference) {
        const r = readJoint(reference, j).q as quat;
        if (partial && Math.abs(dot4(r, p)) < 1e-3) return true;
        const d = quat.multiply(quat.create(), quat.conjugate(quat.create(), r), p);
        const e = quat.lerp(quat.create(), quat.create(), d[3] < 0 ? quat.scale(d, d, -1) : d, w);
        quat.normalize(q, quat.multiply(q, q, e));
      } else {
        if (partial && Math.abs(dot4(q, p)) < 1e-3) return true;
        quat.normalize(
          q,
          quat.lerp(q, q, dot4(q, p) < 0 ? quat.scale(quat.create(), p, -1) : p, w),
        );
      }
    }
  }
  return false;
}

for (const build of SIMD_BUILDS) {
  Deno.test(`blendLayersBatch (${build}) equals the scalar reference on random layer stacks`, () => {
    fc.assert(
      fc.property(stackArb(), (s) => {
        fc.pre(!nearTie(s));
        const ours = runOnCore(build, s), expected = reference(s);
        // Scaled by the magnitudes involved (translations up to 5, scales up to 4).
        assertLess(poseDifference(ours, expected, s.jointCount), 2e-5);
      }),
      fcParams(300),
    );
  });
}

for (const build of ["scalar", ...SIMD_BUILDS] as const) {
  Deno.test(`blendLayersBatch (${build}): an override layer at weight × mask 1 gives its pose, at 0 the one below, signs included`, () => {
    fc.assert(
      fc.property(stackArb(2), fc.array(fc.constantFrom(0, 1), { minLength: 52 }), (s, bits) => {
        const lanes = Math.ceil(s.jointCount / 4) * 4;
        const [below, layer] = s.layers;
        const mask = Float32Array.from({ length: 3 * lanes }, (_, i) => bits[i % bits.length]);
        const out = runOnCore(build, {
          ...s,
          layers: [{ ...below, reference: undefined }, {
            ...layer,
            mask,
            weight: 1,
            reference: undefined,
          }],
          blendCount: 1,
        });
        // The pose below on the same build: builds may give a blend's rotation either sign.
        const base = runOnCore(build, {
          ...s,
          layers: [{ ...below, reference: undefined }],
          blendCount: 1,
        });
        for (let j = 0; j < s.jointCount; j++) {
          const got = readJoint(out, j), from = [readJoint(base, j), readJoint(layer.pose, j)];
          const [t, q, sc] = [0, 1, 2].map((k) => from[mask[k * lanes + j]]);
          for (let c = 0; c < 4; c++) assertLess(Math.abs(got.q[c] - q.q[c]), 1e-6);
          for (let c = 0; c < 3; c++) {
            assertLess(Math.abs(got.t[c] - t.t[c]), 1e-5);
            assertLess(Math.abs(got.s[c] - sc.s[c]), 1e-5);
          }
        }
      }),
      fcParams(200),
    );
  });
}

Deno.test("blendLayers of two full-weight blended layers is blendPoses by their weight share", () => {
  fc.assert(
    fc.property(stackArb(2), uniform(0.05, 1), uniform(0.05, 1), (s, w1, w2) => {
      const lanes = Math.ceil(s.jointCount / 4) * 4;
      const ones = new Float32Array(3 * lanes).fill(1);
      const a = s.layers[0].pose, b = s.layers[1].pose;
      const stack = {
        ...s,
        layers: [{ pose: a, mask: ones, weight: w1 }, { pose: b, mask: ones, weight: w2 }],
        blendCount: 2,
        threshold: 0.1,
      };
      const expected = new Float32Array(a.length);
      blendPoses(a, b, expected, s.jointCount, w2 / (w1 + w2));
      assertLess(poseDifference(reference(stack), expected, s.jointCount), 1e-5);
    }),
    fcParams(200),
  );
});

Deno.test("blendLayers: a full-weight additive layer multiplies by conjugate(reference) * pose", () => {
  fc.assert(
    fc.property(stackArb(3), (s) => {
      const lanes = Math.ceil(s.jointCount / 4) * 4;
      const ones = new Float32Array(3 * lanes).fill(1);
      const [base, clip, ref] = s.layers.map((l) => l.pose);
      const stack = {
        ...s,
        layers: [
          { pose: base, mask: ones, weight: 1 },
          { pose: clip, mask: ones, weight: 1, reference: ref },
        ],
        blendCount: 1,
        threshold: 1,
      };
      const out = reference(stack);
      for (let j = 0; j < s.jointCount; j++) {
        const b = readJoint(base, j), c = readJoint(clip, j), r = readJoint(ref, j);
        const delta = quat.multiply(quat.create(), quat.conjugate(quat.create(), r.q), c.q);
        const q = quat.multiply(quat.create(), b.q as quat, delta);
        const got = readJoint(out, j);
        const sign = quat.dot(q, got.q as quat) < 0 ? -1 : 1;
        for (let k = 0; k < 4; k++) assertLess(Math.abs(got.q[k] - sign * q[k]), 1e-5);
        for (let k = 0; k < 3; k++) {
          assertLess(Math.abs(got.t[k] - (b.t[k] + c.t[k] - r.t[k])), 1e-4);
          assertLess(Math.abs(got.s[k] - (b.s[k] + c.s[k] - r.s[k])), 1e-4);
        }
      }
    }),
    fcParams(200),
  );
});

Deno.test("blendLayers falls back to the rest pose where the weight is below the threshold", () => {
  const s = fc.sample(stackArb(), { seed: 5, numRuns: 1 })[0];
  const lanes = Math.ceil(s.jointCount / 4) * 4;
  const zeros = new Float32Array(3 * lanes);
  const out = reference({
    ...s,
    layers: [{ pose: s.layers[0]?.pose ?? s.rest, mask: zeros, weight: 1 }],
    blendCount: 1,
  });
  assertLess(poseDifference(out, s.rest, s.jointCount), 1e-6);
});

Deno.test("blendLayers: an override layer lerps translations and scales and nlerps rotations to its pose by weight × mask", () => {
  fc.assert(
    fc.property(stackArb(2), (s) => {
      const lanes = Math.ceil(s.jointCount / 4) * 4;
      const ones = new Float32Array(3 * lanes).fill(1);
      const [base, layer] = s.layers;
      const stack = {
        ...s,
        layers: [{ pose: base.pose, mask: ones, weight: 1 }, { ...layer, reference: undefined }],
        blendCount: 1,
        threshold: 0.1,
      };
      const out = reference(stack);
      for (let j = 0; j < s.jointCount; j++) {
        const b = readJoint(base.pose, j), p = readJoint(layer.pose, j), got = readJoint(out, j);
        const [wt, wr, ws] = [0, 1, 2].map((k) => layer.weight * layer.mask[k * lanes + j]);
        const bq = quat.normalize(quat.create(), b.q as quat), pq = p.q as quat;
        const far = quat.dot(bq, pq) < 0;
        if (far && wr > 0 && wr < 1 && Math.abs(quat.dot(bq, pq)) < 1e-3) continue;
        const q = quat.lerp(quat.create(), bq, far ? quat.scale(quat.create(), pq, -1) : pq, wr);
        quat.normalize(q, q);
        // The side weighted less is the one negated: weight 1 is the layer's rotation, sign included.
        const sign = far && wr >= 0.5 ? -1 : 1;
        for (let k = 0; k < 4; k++) assertLess(Math.abs(got.q[k] - sign * q[k]), 1e-5);
        for (let k = 0; k < 3; k++) {
          assertLess(Math.abs(got.t[k] - (b.t[k] + (p.t[k] - b.t[k]) * wt)), 1e-4);
          assertLess(Math.abs(got.s[k] - (b.s[k] + (p.s[k] - b.s[k]) * ws)), 1e-4);
        }
      }
    }),
    fcParams(200),
  );
});
