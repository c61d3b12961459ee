/**
 * The IK kernel (`solveIKBatch`), on random skeletons and chains, on every
 * build, by invariants:
 *
 * 1. Two-bone IK, about the chain's hinge axis (ozz's `mid_axis`) and about
 *    the pose's bend plane (any row axis): a reachable target is reached
 *    within 1e-5 of the chain's length (and reported so, with the distance),
 *    bone lengths are unchanged, the mid joint lies in the plane of
 *    target and pole vector, on the pole's side (a half-turn twist puts it
 *    on the other side); weight 0 leaves everything untouched; an
 *    unreachable target straightens the chain toward it; a softened target
 *    is approached, not reached. Joints outside the start joint's subtree
 *    are not written; inside it, `model = model[parent] * local`.
 * 2. Aim IK: the forward axis (from the offset) points at the target within
 *    1e-4 rad; the up axis lies in the plane of the aiming axis and the pole
 *    vector, on the pole's side.
 * 3. The WebAssembly builds equal the scalar reference on random tables of
 *    several chains of every kind with random settings, reported distances
 *    included.
 * 4. Degenerate geometry (target on the start joint, pole along the
 *    target, singular or almost zero joints, zero-length bones) writes only
 *    finite values.
 * 5. The one-chain reference solvers (`solveTwoBoneIK`, `solveAimIK`) give
 *    the corrections the kernel applies.
 */

import "../scalar.ts";
import fc from "fast-check";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { MATRIX_FLOATS } from "../kernels.ts";
import { solveAimIK, solveTwoBoneIK } from "../simd/scalar/mod.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, coreFor, fcParams, SIMD_BUILDS, uniform, type Vec3 } from "./_arbitrary.ts";
import {
  angle,
  chainArb,
  type ChainJob,
  cross,
  direction,
  dot,
  hingeAxis,
  IKScene,
  norm,
  position,
  type RandomChain,
  sub,
  subtreeLast,
  unit,
} from "./_ik.ts";

const RUNS = 100;

// Uniform, not fast-check's edge values: exactly aligned axes make exactly
// degenerate geometry (a pole along the target), tested on its own.
const unitVecArb = fc.tuple(uniform(-1, 1), uniform(-1, 1), uniform(-1, 1))
  .filter((v) => norm(v) > 0.2).map(unit);

function lengths(model: ArrayLike<number>, c: RandomChain): { l1: number; l2: number } {
  const s = position(model, c.start), m = position(model, c.mid), e = position(model, c.end);
  return { l1: norm(sub(m, s)), l2: norm(sub(e, m)) };
}

/** Runs `jobs` on `chain` in `build`'s core; the matrices after and the reached flags. */
function run(build: (typeof BUILDS)[number], chain: RandomChain, jobs: ChainJob[]) {
  const scene = new IKScene(coreFor(build), chain, jobs);
  try {
    scene.solve();
    return {
      ...scene.matrices(),
      reached: jobs.map((_, i) => scene.reached(i)),
      distance: jobs.map((_, i) => scene.distance(i)),
    };
  } finally {
    scene.free();
  }
}

/**
 * Inside `start`'s subtree, model = model[parent] * local; other joints
 * keep their local matrices bit for bit, and their model matrices too
 * outside `start..last`. The kernel transforms the range: a joint of
 * another branch that the skeleton's order puts in it is recomputed from
 * its unchanged parent and local matrix, so it keeps its model matrix to
 * float rounding (bit for bit where the model matrices came from the same
 * core's transform, as in the ECS; here they come from the reference).
 */
function assertSubtree(
  chain: RandomChain,
  start: number,
  after: { model: Float32Array; local: Float32Array },
): void {
  const last = subtreeLast(chain.parents, start);
  const expected = after.model.slice();
  ref.localToModel(after.local, expected, chain.parents, start, last);
  const scale = Math.max(1, ...after.model.map(Math.abs));
  for (let i = 0; i < after.model.length; i++) {
    assert(Math.abs(expected[i] - after.model[i]) <= 2e-5 * scale, `model float ${i}`);
  }
  const inside = new Set([start]);
  for (let j = start + 1; j <= last; j++) if (inside.has(chain.parents[j])) inside.add(j);
  for (let j = 0; j < chain.parents.length; j++) {
    if (inside.has(j)) continue;
    const range = [j * MATRIX_FLOATS, (j + 1) * MATRIX_FLOATS] as const;
    assertEquals(after.local.slice(...range), chain.local.slice(...range), `joint ${j} local`);
    if (j < start || j > last) {
      assertEquals(after.model.slice(...range), chain.model.slice(...range), `joint ${j} model`);
      continue;
    }
    for (let i = range[0]; i < range[1]; i++) {
      assert(Math.abs(after.model[i] - chain.model[i]) <= 2e-5 * scale, `joint ${j} model`);
    }
  }
}

const reachableArb = fc.record({
  chain: chainArb,
  dir: unitVecArb,
  fraction: fc.double({ min: 0.05, max: 0.95, noNaN: true }),
  pole: unitVecArb,
  restAxis: unitVecArb,
});

Deno.test("two-bone IK reaches reachable targets, keeps bones and the pole plane", () => {
  for (const build of BUILDS) {
    fc.assert(
      fc.property(reachableArb, ({ chain, dir, fraction, pole, restAxis }) => {
        const { l1, l2 } = lengths(chain.model, chain);
        const length = l1 + l2, s = position(chain.model, chain.start);
        const d = Math.abs(l1 - l2) + (length - Math.abs(l1 - l2)) * fraction;
        const target = s.map((x, i) => x + dir[i] * d) as Vec3;
        fc.pre(angle(dir, pole) > 0.1 && angle(dir, pole) < Math.PI - 0.1);
        const axis = hingeAxis(chain.model, chain);
        fc.pre(axis.every(Number.isFinite));
        // ozz's solve about the bones' own hinge axis, and the pose-plane
        // solve, whose row axis (any) serves only a straight limb.
        for (
          const job of [
            { kind: "twoBone", ...chain, target, pole, axis },
            { kind: "twoBone", ...chain, target, pole, axis: restAxis, poseAxis: true },
          ] as ChainJob[]
        ) {
          const after = run(build, chain, [job]);
          const e = position(after.model, chain.end), m = position(after.model, chain.mid);
          assert(norm(sub(e, target)) <= 1e-5 * length, `${build}: end is off the target`);
          const now = lengths(after.model, chain);
          assert(Math.abs(now.l1 - l1) <= 1e-5 * length && Math.abs(now.l2 - l2) <= 1e-5 * length);
          const normal = unit(cross(sub(target, s), pole));
          const knee = sub(m, s);
          assert(Math.abs(dot(knee, normal)) <= 1e-5 * length, `${build}: knee off the pole plane`);
          const t = unit(sub(target, s));
          assert(
            dot(knee, pole) - dot(knee, t) * dot(t, pole) > 0,
            `${build}: knee not toward pole`,
          );
          assert(after.reached[0], `${build}: not reported reached`);
          assert(after.distance[0] <= 1e-5 * length, `${build}: distance ${after.distance[0]}`);
          assertSubtree(chain, chain.start, after);
        }
      }),
      fcParams(RUNS),
    );
  }
});

Deno.test("two-bone IK: weight 0 untouched, unreachable straightens, soften, half-turn twist", () => {
  for (const build of BUILDS) {
    fc.assert(
      fc.property(
        reachableArb,
        fc.double({ min: 1.05, max: 3, noNaN: true }),
        ({ chain, dir, fraction, pole }, far) => {
          fc.pre(angle(dir, pole) > 0.1 && angle(dir, pole) < Math.PI - 0.1);
          const axis = hingeAxis(chain.model, chain);
          fc.pre(axis.every(Number.isFinite));
          const { l1, l2 } = lengths(chain.model, chain);
          const length = l1 + l2, s = position(chain.model, chain.start);
          const at = (d: number) => s.map((x, i) => x + dir[i] * d) as Vec3;
          const job = (target: Vec3, more: Partial<ChainJob> = {}): ChainJob => ({
            kind: "twoBone",
            ...chain,
            target,
            pole,
            axis,
            ...more,
          });

          const still = run(build, chain, [job(at(length * fraction), { weight: 0 })]);
          assertEquals(still.model, chain.model);
          assertEquals(still.local, chain.local);
          assertEquals(still.reached, [false]);

          const straight = run(build, chain, [job(at(length * far))]);
          const e = position(straight.model, chain.end);
          assert(norm(sub(e, at(length))) <= 1e-5 * length, `${build}: not straightened`);
          assertEquals(straight.reached, [false]);

          const d = Math.abs(l1 - l2) + (length - Math.abs(l1 - l2)) * 0.97;
          const soft = run(build, chain, [job(at(d), { soften: 0.5 })]);
          const toEnd = sub(position(soft.model, chain.end), s);
          assert(angle(toEnd, dir) <= 1e-4 && norm(toEnd) < d, `${build}: soften`);
          assertEquals(soft.reached, [false]);

          const dd = Math.abs(l1 - l2) + (length - Math.abs(l1 - l2)) * fraction;
          const twisted = run(build, chain, [job(at(dd), { twist: Math.PI })]);
          const knee = sub(position(twisted.model, chain.mid), s);
          assert(norm(sub(position(twisted.model, chain.end), at(dd))) <= 1e-5 * length);
          assert(dot(knee, pole) - dot(knee, dir) * dot(dir, pole) < 0, `${build}: twist`);
        },
      ),
      fcParams(RUNS),
    );
  }
});

Deno.test("aim IK points the forward axis at the target, up toward the pole", () => {
  for (const build of BUILDS) {
    fc.assert(
      fc.property(
        chainArb,
        fc.nat(),
        unitVecArb,
        unitVecArb,
        unitVecArb,
        unitVecArb,
        fc.double({ min: 0.5, max: 5, noNaN: true }),
        fc.oneof(fc.constant<Vec3>([0, 0, 0]), unitVecArb.map((v) => v.map((x) => x * 0.3))),
        (chain, pick, forward, up, pole, dir, distance, offset) => {
          const joint = pick % chain.parents.length;
          const p = position(chain.model, joint);
          const target = p.map((x, i) => x + dir[i] * distance) as Vec3;
          fc.pre(angle(forward, up) > 0.1 && angle(forward, up) < Math.PI - 0.1);
          // The aiming ray starts inside the target's sphere: reachable.
          fc.pre(norm(direction(chain.model, joint, offset)) < 0.9 * distance);
          const after = run(build, chain, [
            { kind: "aim", start: joint, target, axis: forward, up, pole, offset: offset as Vec3 },
          ]);
          const j = position(after.model, joint);
          const origin = j.map((x, i) => x + direction(after.model, joint, offset)[i]);
          const aimed = direction(after.model, joint, forward);
          assert(angle(aimed, sub(target, origin)) <= 1e-4, `${build}: forward off target`);
          assertEquals(after.reached, [true]);
          const t = unit(sub(target, j));
          fc.pre(angle(t, pole) > 0.1 && angle(t, pole) < Math.PI - 0.1);
          const u = unit(direction(after.model, joint, up));
          fc.pre(angle(u, t) > 0.05 && angle(u, t) < Math.PI - 0.05);
          assert(Math.abs(dot(u, unit(cross(t, pole)))) <= 1e-4, `${build}: up off the pole plane`);
          assert(dot(u, pole) - dot(u, t) * dot(t, pole) > 0, `${build}: up away from the pole`);
          assertSubtree(chain, joint, after);
        },
      ),
      fcParams(RUNS),
    );
  }
});

const settingsArb = fc.record({
  aim: fc.boolean(),
  dir: unitVecArb,
  // Not at the joint itself, where the direction is rounding noise.
  distance: uniform(0.1, 8),
  weight: fc.oneof(fc.constant(1), fc.constant(0), uniform(-1, 2)),
  soften: fc.oneof(fc.constant(1), uniform(-0.5, 1.5)),
  twist: fc.oneof(fc.constant(0), uniform(-7, 7)),
  pole: unitVecArb,
  axis: unitVecArb,
  poseAxis: fc.boolean(),
  up: unitVecArb,
  offset: unitVecArb.map((v) => v.map((x) => x * 0.5) as Vec3),
  pick: fc.tuple(fc.nat(), fc.nat(), fc.nat()),
});

Deno.test("solveIKBatch: every WebAssembly build equals the scalar reference", () => {
  fc.assert(
    fc.property(
      chainArb,
      fc.array(settingsArb, { minLength: 1, maxLength: 4 }),
      (chain, settings) => {
        const jobs: ChainJob[] = settings.map((s) => {
          const joint = s.pick[0] % chain.parents.length;
          const origin = position(chain.model, s.aim ? joint : chain.start);
          const target = origin.map((x, i) => x + s.dir[i] * s.distance) as Vec3;
          return s.aim
            ? { kind: "aim", start: joint, target, ...s, axis: s.axis }
            : { kind: "twoBone", ...chain, target, ...s };
        });
        const expected = run("scalar", chain, jobs);
        for (const build of SIMD_BUILDS) {
          const actual = run(build, chain, jobs);
          const scale = Math.max(1, ...expected.model.map(Math.abs));
          for (let i = 0; i < expected.model.length; i++) {
            assert(Math.abs(actual.model[i] - expected.model[i]) <= 1e-5 * scale, `model ${i}`);
            assert(Math.abs(actual.local[i] - expected.local[i]) <= 1e-5 * scale, `local ${i}`);
          }
          assertEquals(actual.reached[0], expected.reached[0]);
          expected.distance.forEach((d, i) => {
            assert(Math.abs(actual.distance[i] - d) <= 1e-5 * scale, `distance ${i}`);
          });
        }
      },
    ),
    fcParams(RUNS),
  );
});

Deno.test("solveIKBatch: degenerate geometry writes only finite values", () => {
  const chain = fc.sample(chainArb, { seed: 7, numRuns: 1 })[0];
  const s = position(chain.model, chain.start);
  const e = position(chain.model, chain.end);
  const along = unit(sub(e, s));
  const cases: ChainJob[] = [
    { kind: "twoBone", ...chain, target: s },
    { kind: "twoBone", ...chain, target: e, pole: along },
    { kind: "twoBone", ...chain, target: e, axis: [0, 0, 0] },
    { kind: "aim", start: chain.start, target: s },
    { kind: "aim", start: chain.start, target: e, pole: along, axis: along, up: along },
    { kind: "aim", start: chain.start, target: e, offset: [1e3, 0, 0] },
  ];
  const singular = { ...chain, model: chain.model.slice(), local: chain.local.slice() };
  singular.model.fill(0, chain.mid * MATRIX_FLOATS, chain.mid * MATRIX_FLOATS + 11);
  const collapsed = { ...chain, model: chain.model.slice() };
  for (const j of [chain.mid, chain.end]) {
    collapsed.model.set(position(chain.model, chain.start), 0);
    [3, 7, 11].forEach((k, i) => collapsed.model[j * MATRIX_FLOATS + k] = s[i]);
  }
  // A start joint scaled to almost nothing: the target is huge in its space.
  const tiny = { ...chain, model: chain.model.slice() };
  for (const k of [0, 1, 2, 4, 5, 6, 8, 9, 10]) {
    tiny.model[chain.start * MATRIX_FLOATS + k] *= 1e-38;
  }
  for (const build of BUILDS) {
    for (const c of [chain, singular, collapsed, tiny]) {
      for (const job of cases) {
        const after = run(build, c, [job]);
        assert(after.model.every(Number.isFinite) && after.local.every(Number.isFinite));
      }
    }
  }
});

Deno.test("solveTwoBoneIK and solveAimIK give the corrections the kernel applies", () => {
  fc.assert(
    fc.property(reachableArb, ({ chain, dir, fraction, pole }) => {
      const m = (j: number) => chain.model.slice(j * MATRIX_FLOATS, (j + 1) * MATRIX_FLOATS);
      const { l1, l2 } = lengths(chain.model, chain);
      const s = position(chain.model, chain.start);
      const target = s.map((x, i) => x + dir[i] * (l1 + l2) * fraction) as Vec3;
      const axis = hingeAxis(chain.model, chain);
      fc.pre(axis.every(Number.isFinite));
      const result = solveTwoBoneIK(m(chain.start), m(chain.mid), m(chain.end), {
        target,
        poleVector: pole,
        midAxis: axis,
      });
      const after = run("scalar", chain, [{ kind: "twoBone", ...chain, target, pole, axis }]);
      const rotated = (j: number, q: readonly number[]) => {
        const r = new Float32Array(MATRIX_FLOATS);
        const pose = new Float32Array(40);
        pose.set([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, q[0], 0, 0, 0, q[1], 0, 0, 0, q[2]]);
        pose[24] = q[3];
        pose[28] = pose[32] = pose[36] = 1;
        ref.quatToMat(pose, r, 1);
        const out = new Float32Array(MATRIX_FLOATS);
        ref.multiplyMatrices(chain.local.subarray(j * MATRIX_FLOATS), r, out, 1);
        return out;
      };
      const start = after.local.slice(chain.start * 12, chain.start * 12 + 12);
      const expected = rotated(chain.start, result.start);
      for (let i = 0; i < 12; i++) assert(Math.abs(start[i] - expected[i]) <= 1e-5 * 4);
      const mid = after.local.slice(chain.mid * 12, chain.mid * 12 + 12);
      const expectedMid = rotated(chain.mid, result.mid);
      for (let i = 0; i < 12; i++) assert(Math.abs(mid[i] - expectedMid[i]) <= 1e-5 * 4);
      assertEquals(result.reached, after.reached[0]);
      const aimed = solveAimIK(m(chain.end), { target, poleVector: pole });
      assert(Math.abs(Math.hypot(...aimed.start) - 1) < 1e-9);
    }),
    fcParams(100),
  );
  assertThrows(
    () =>
      solveTwoBoneIK(new Float32Array(12), new Float32Array(12), new Float32Array(12), {
        target: [NaN, 0, 0],
      }),
    RangeError,
    "target",
  );
});
