// Hostile use of the worker pool API: bad options are a typed error, and a closed pool leaves
// the pipelines that used it working.

import { assert, assertRejects } from "@std/assert";
import { createAnimationPipeline, getPose, playClip } from "../mod.ts";
import { createWorkerPool } from "../kernels.ts";
import { createScene, finite, wander } from "./_scene.ts";

Deno.test("hostile: worker pool options and a closed pool", async () => {
  for (const workers of [0, -1, 1e9, NaN, 1.5]) {
    await assertRejects(() => createWorkerPool({ workers }), RangeError);
  }
  const pool = await createWorkerPool({ workers: 2 });
  const a = createScene("simd", 2, undefined, undefined, pool.core);
  const b = createScene("simd", 2, undefined, undefined, pool.core);
  const animate = createAnimationPipeline({ pool });
  const plain = createAnimationPipeline();
  playClip(a.world, a.entities[0], wander("p", 1));
  playClip(b.world, b.entities[0], wander("p", 1));
  animate(a.world, 0.1);
  pool.close();
  animate(b.world, 0.1);
  plain(a.world, 0.1);
  assert(finite(getPose(a.world, a.entities[0])));
  pool[Symbol.dispose]();
});
