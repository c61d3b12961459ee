/**
 * Level of detail in frames on a subset of the entities (`animate(world,
 * dt, entities)`): an entity's update rate counts the frames that include
 * it. A game alternating two halves of its crowd, every entity at rate 2,
 * has each entity animated every other frame that includes it, equal to
 * its full-rate twin then (bit for bit) and keeping its outputs between;
 * its first frame animates it, whichever frame that is. In the
 * task-parallel frame, such an entity is skinned on the frames that animate
 * it (a frame that left it out does not make it wait for a copy of its
 * palette that the next frame's snapshot, of the other half, never takes).
 */

import { assert, assertEquals } from "@std/assert";
import { createAnimationPipeline } from "../mod.ts";
import { setLevelOfDetail } from "../lod.ts";
import { createLodScene, outputsOf, sameBits } from "./_lod.ts";

const PAIRS = 6, ROUNDS = 8, RATE = 2;

Deno.test("level of detail: a frame on a subset counts for its entities only", async () => {
  const scene = await createLodScene("simd", PAIRS);
  const { world, full, lod } = scene;
  for (const eid of lod) setLevelOfDetail(world, eid, { updateRate: RATE });
  const animate = createAnimationPipeline();
  // Two halves, each pair (twin and full-rate entity) in one of them.
  const halves = [0, 1].map((h) => full.flatMap((eid, i) => i % 2 === h ? [eid, lod[i]] : []));
  const updates: number[][] = lod.map(() => []);
  const previous = lod.map((eid) => outputsOf(world, eid));
  for (let round = 0; round < ROUNDS; round++) {
    for (const half of [0, 1]) {
      animate(world, 1 / 60, halves[half]);
      for (let i = half; i < PAIRS; i += 2) {
        const now = outputsOf(world, lod[i]), twin = outputsOf(world, full[i]);
        const updated = sameBits(now.joints, twin.joints);
        const kept = sameBits(now.joints, previous[i].joints);
        assert(updated !== kept, `round ${round}, pair ${i}: updated ${updated}, kept ${kept}`);
        if (updated) updates[i].push(round);
        previous[i] = now;
      }
    }
  }
  // Its first frame, its second update within RATE frames (staggered), then every RATE.
  updates.forEach((rounds, i) => {
    assertEquals(rounds[0], 0, `pair ${i}: ${rounds}`);
    assert(rounds[1] <= RATE, `pair ${i}: ${rounds}`);
    for (let k = 2; k < rounds.length; k++) {
      assertEquals(rounds[k] - rounds[k - 1], RATE, `pair ${i}: ${rounds}`);
    }
    assert(rounds.length >= ROUNDS / RATE, `pair ${i}: ${rounds}`);
  });
});

Deno.test("level of detail, task-parallel: an entity a subset frame left out is skinned when next animated", async () => {
  const scene = await createLodScene("simd", PAIRS);
  const { world, full, lod } = scene;
  for (const eid of lod) setLevelOfDetail(world, eid, { updateRate: RATE });
  const animate = createAnimationPipeline({ taskParallel: true });
  const halves = [0, 1].map((h) => full.flatMap((eid, i) => i % 2 === h ? [eid, lod[i]] : []));
  // Its skin changes on the frames that animate it: every RATE-th frame that includes it.
  const changes = lod.map(() => 0);
  const previous = lod.map((eid) => outputsOf(world, eid).skinned);
  for (let round = 0; round < ROUNDS; round++) {
    for (const half of [0, 1]) {
      animate(world, 1 / 60, halves[half]);
      for (let i = half; i < PAIRS; i += 2) {
        const skinned = outputsOf(world, lod[i]).skinned;
        if (!sameBits(skinned, previous[i])) changes[i]++;
        previous[i] = skinned;
      }
    }
  }
  changes.forEach((n, i) => assert(n >= ROUNDS / RATE - 1, `pair ${i}: skinned ${n} times`));
});
