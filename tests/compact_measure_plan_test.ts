/**
 * The measurement plan of compact clip builds (`animation/_measure_plan.ts`):
 * each joint is measured at the key times of its chain (its channels' and
 * its ancestors'), and not at the key times of channels that cannot move
 * it; a bisected track's piece times measure its joint and the joints below
 * it only; past the time limit, every joint is measured at evenly picked
 * times.
 */
import { assert, assertEquals } from "@std/assert";
import { measurePlan, sortedUnique, withTimes } from "../animation/_measure_plan.ts";
import { random } from "./_scene.ts";

// Root 0; 1 below it, 2 below 1; 3 below the root.
const parents = Int16Array.from([-1, 0, 1, 0]);
const fine = Float32Array.from({ length: 11 }, (_, i) => i);
const coarse = Float32Array.from([0, 10]);
const sources = [{ times: fine, joints: [1] }, { times: coarse, joints: [3] }];

/** Whether joint `j` is measured at a time strictly between `lo` and `hi`. */
function measuredWithin(
  plan: ReturnType<typeof measurePlan>,
  lo: number,
  hi: number,
  j: number,
): boolean {
  let found = false;
  plan.times.forEach((time, i) => {
    if (time > lo && time < hi && (!plan.mask || plan.mask[i * parents.length + j])) found = true;
  });
  return found;
}

/** Whether joint `j` is measured at time `t` (at some row of that time). */
function measuredAt(plan: ReturnType<typeof measurePlan>, t: number, j: number): boolean {
  let found = false;
  plan.times.forEach((time, i) => {
    if (time === t && (!plan.mask || plan.mask[i * parents.length + j])) found = true;
  });
  return found;
}

Deno.test("measure plan: each joint at its chain's key times, not at other channels'", () => {
  const unique = sortedUnique([fine, coarse]);
  const plan = measurePlan(unique, sources, parents);
  // Each key interval at its start and twice inside (where nlerp strays most).
  assertEquals(plan.times.length, 3 * 10 + 1);
  assert(plan.mask, "a plan this small has a mask");
  for (let t = 0; t <= 10; t++) {
    assert(measuredAt(plan, t, 1), `joint 1 at ${t}`);
    assert(measuredAt(plan, t, 2), `joint 2 (below 1) at ${t}`);
    assert(!measuredAt(plan, t, 0), `joint 0 (no channel moves it) at ${t}`);
  }
  assert(measuredAt(plan, 0, 3) && measuredAt(plan, 10, 3));
  // Joint 3's one interval spans the grid: measured in the grid's
  // intervals holding its quarters (2.5, 5, 7.5), not at joint 1's key 4.
  for (const [lo, hi] of [[2, 3], [5, 6], [7, 8]]) {
    assert(measuredAt(plan, lo, 3) && measuredAt(plan, hi, 3), `joint 3 at ${lo} and ${hi}`);
    assert(measuredWithin(plan, lo, hi, 3), `joint 3 between ${lo} and ${hi}`);
  }
  assert(!measuredAt(plan, 4, 3), "joint 3 at joint 1's key 4");
  assert(!measuredWithin(plan, 3, 4, 3), "joint 3 between joint 1's keys 3 and 4");
});

Deno.test("measure plan: a point measures its joint and the joints below it", () => {
  const unique = sortedUnique([fine, coarse]);
  const point = Math.fround(4.3);
  const plan = measurePlan(unique, sources, parents, [{
    times: Float32Array.from([point]),
    joints: [1],
  }]);
  assertEquals(plan.times.length, 3 * 10 + 2);
  for (let i = 1; i < plan.times.length; i++) assert(plan.times[i] >= plan.times[i - 1]);
  assert(measuredAt(plan, point, 1) && measuredAt(plan, point, 2));
  assert(!measuredAt(plan, point, 3) && !measuredAt(plan, point, 0));
});

Deno.test("measure plan: past its limit, every joint at evenly picked times", () => {
  const unique = sortedUnique([fine, coarse]);
  const plan = measurePlan(unique, sources, parents, [], 16);
  assertEquals(plan.times.length, 16);
  assertEquals(plan.mask, undefined);
  assertEquals(plan.times[0], 0);
});

Deno.test("measure plan: a clip's key times with an image's are their distinct union, ascending", () => {
  for (let seed = 1; seed <= 50; seed++) {
    const next = random(seed);
    const list = (length: number) =>
      Float32Array.from({ length }, () => Math.floor(next() * 40) / 4).sort();
    const base = sortedUnique([list(1 + Math.floor(next() * 30)), list(5)]);
    // Subsets of the base (a reduction's kept keys) and lists with new times.
    const lists = Array.from(
      { length: 1 + Math.floor(next() * 4) },
      () => next() < 0.5 ? base.filter(() => next() < 0.5) : list(Math.floor(next() * 12)),
    );
    assertEquals([...withTimes(base, lists)], [...sortedUnique([base, ...lists])], `seed ${seed}`);
  }
});
