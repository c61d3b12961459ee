/**
 * Issue #30's per-entity cost: a crowd of small characters (20 joints, 300
 * vertices, 2 influences, normals), every one playing a clip and
 * cross-fading to another, animated by the single-threaded pipeline. Per
 * system, two rows: the system as the game calls it, and the same system's
 * core calls alone on the tables the system itself wrote (prebuilt: the
 * kernels' share of its time). The pipeline's whole frame beside the sum of
 * its kernels likewise. Each row's every iteration runs both (the other one
 * untimed, through `b.start()`/`b.end()`), so that the two rows of a pair
 * see the same caches and the same machine: (system − kernels) / entities
 * is the system's JavaScript per entity (issue #30's target: at most
 * 100 ns for the whole pipeline).
 *
 * `CROWD_BEFORE=<another checkout of Marrow>` adds the same rows for that
 * checkout's systems, in the same run (before/after on one machine state;
 * copy `bench/_crowd_modules.ts` into a checkout older than this bench);
 * `CROWD_COUNT` sets the crowd's size (default 1,000 and 10,000). Each
 * group is run again with 4-vertex characters, where the kernels cost
 * little and the systems' JavaScript stands out of the machine's noise.
 *
 * @module
 */

import { crowdScene, DELTA, type Modules, SMALL_CHARACTER } from "./_crowd.ts";
import * as mine from "./_crowd_modules.ts";

/** Two rows, `a` timed with `b` run untimed before it, and the other way round. */
function pair(
  group: string,
  names: readonly [string, string],
  a: () => void,
  b: () => void,
  baseline: boolean,
) {
  Deno.bench({
    name: names[0],
    group,
    baseline,
    fn: (t) => {
      b();
      t.start();
      a();
      t.end();
    },
  });
  Deno.bench({
    name: names[1],
    group,
    fn: (t) => {
      a();
      t.start();
      b();
      t.end();
    },
  });
}

const counts = (Deno.env.get("CROWD_COUNT") ?? "1000,10000").split(",").map(Number);
const before = Deno.env.get("CROWD_BEFORE");
const checkouts: [string, Modules][] = [["", mine]];
if (before) {
  const root = new URL(`file://${before.replace(/\/?$/, "/")}`);
  checkouts.unshift([
    "before: ",
    await import(new URL("bench/_crowd_modules.ts", root).href),
  ]);
}

/** The characters of the issue, and the same with 4 vertices: the systems' JavaScript stands out. */
const shapes = [
  ["", SMALL_CHARACTER],
  [", 4 vertices", { ...SMALL_CHARACTER, segments: 2, rings: 2 }],
] as const;

for (const count of counts) {
  for (const [suffix, shape] of shapes) {
    const label = `${count.toLocaleString("en")} small characters${suffix}`;
    for (const [prefix, m] of checkouts) {
      const scene = crowdScene(m, count, shape);
      pair(
        `crowd: ${label}, frame`,
        [`${prefix}kernels alone (tables prebuilt)`, `${prefix}pipeline`],
        scene.frameKernels,
        () => scene.pipeline(scene.world, DELTA),
        prefix === checkouts[0][0],
      );
      for (const system of scene.pipeline.systems) {
        const kernels = scene.kernelsOf[system.name];
        if (!kernels) continue;
        pair(
          `crowd: ${label}, ${system.name}`,
          [`${prefix}kernels alone (tables prebuilt)`, `${prefix}${system.name}`],
          kernels,
          () => system.run(scene.world, DELTA),
          prefix === checkouts[0][0],
        );
      }
    }
  }
}
