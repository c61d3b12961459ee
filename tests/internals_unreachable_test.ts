/**
 * No public object leads to the library's internals: walking every property
 * and getter (own and inherited) of the objects a game holds — assets,
 * compact clips, the world's components, pipelines, worker pools, what `getLayers`,
 * `getPlayback` and `importGltf` return — reaches no block of the core the
 * library owns (a `CoreBuffer` the game did not make), no lifetime and no
 * other internal handle. A getter tagged `@internal` on `SkinAsset` used to
 * hand out the skin's mesh, whose `free()` let the next allocation of that
 * size overwrite two other entities' outputs.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import { addEntity } from "bitecs";
import { createAnimationPipeline, getPlayback, playClip } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { addLayer, getLayers } from "../layers.ts";
import { compactClip } from "../clips.ts";
import { CoreBuffer, createWorkerPool } from "../kernels.ts";
import { Lifetime } from "../animation/_lifetime.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { createScene, wander } from "./_scene.ts";
import { FIXTURE_DIR } from "./_assets.ts";

/** A path from a root to an internal handle, or undefined. */
function findInternal(roots: Record<string, unknown>): string | undefined {
  const seen = new Set<unknown>();
  const queue: [unknown, string][] = Object.entries(roots).map(([k, v]) => [v, k]);
  while (queue.length) {
    const [value, path] = queue.shift()!;
    if ((typeof value !== "object" && typeof value !== "function") || value === null) continue;
    if (seen.has(value)) continue;
    seen.add(value);
    if (value instanceof CoreBuffer || value instanceof Lifetime || value instanceof ClipSampler) {
      return path;
    }
    // Typed arrays and memories are data (zero-copy views are documented); functions are not called.
    if (ArrayBuffer.isView(value) || value instanceof ArrayBuffer) continue;
    if (typeof value === "function") continue;
    const names = new Set<PropertyKey>();
    for (
      let o: object | null = value as object;
      o && o !== Object.prototype && o !== Array.prototype;
      o = Object.getPrototypeOf(o)
    ) {
      for (const key of Reflect.ownKeys(o)) if (key !== "constructor") names.add(key);
    }
    for (const key of names) {
      let child: unknown;
      try {
        child = (value as Record<PropertyKey, unknown>)[key];
      } catch {
        continue;
      }
      queue.push([child, `${path}.${String(key)}`]);
    }
  }
  return undefined;
}

Deno.test("no public object reaches a core block, lifetime or sampler of the library", async () => {
  const scene = createScene("scalar", 2);
  const clip = wander("walk", 1, 1, 8, 1);
  const [eid] = scene.entities;
  playClip(scene.world, eid, clip);
  addLayer(scene.world, eid, wander("wave", 2, 2, 8, 1), { weight: 0.5 });
  const animate = createAnimationPipeline();
  animate(scene.world, 1 / 60);
  const model = await importGltf(await Deno.readFile(new URL("RiggedSimple.glb", FIXTURE_DIR)));
  using pool = await createWorkerPool({ workers: 1 });
  const roots = {
    skeleton: scene.skeleton,
    skin: scene.skin,
    compact: compactClip(clip, scene.skeleton),
    components: scene.components,
    animate,
    pool,
    pooled: createAnimationPipeline({ pool }),
    layers: getLayers(scene.world, eid),
    playback: getPlayback(scene.world, eid),
    model,
    world: scene.world,
    other: addEntity(scene.world),
  };
  assertEquals(findInternal(roots), undefined);
});

Deno.test("the walk finds a handle planted on a public object", () => {
  const scene = createScene("scalar", 1);
  const planted = Object.create(scene.skin, {
    hidden: { get: () => ({ deeper: scene.core && new Lifetime({}, () => {}) }) },
  });
  assert(findInternal({ planted })?.endsWith(".hidden.deeper"));
});
