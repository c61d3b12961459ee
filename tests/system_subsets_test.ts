/**
 * Systems over a game's own entity lists: only the listed entities change,
 * entities without the system's components are skipped, bad lists are
 * refused before anything is written; and the per-entity level of detail.
 */
import { assert, assertEquals, assertNotEquals, assertThrows } from "@std/assert";
import { addEntity } from "bitecs";
import {
  createAnimationPipeline,
  getModelMatrices,
  getPose,
  getSkinnedPositions,
  multiplyInverseBindSystem,
  quatToMatSystem,
  sampleClipsSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { wavePose } from "../procedural/cylinder.ts";
import { BUILDS, createScene } from "./_scene.ts";
import { coreMemory } from "../simd/memory/_instance.ts";

const animate = createAnimationPipeline();

for (const build of BUILDS) {
  Deno.test(`${build}: a frame on a subset writes only the listed entities`, () => {
    const scene = createScene(build, 4, { joints: 6, segments: 5, rings: 9, influences: 4 });
    const { world, entities } = scene;
    animate(world, 0);
    entities.forEach((eid, i) => wavePose(getPose(world, eid), 6, 0.7, i));
    const before = entities.map((eid) => getSkinnedPositions(world, eid).slice());
    const bare = addEntity(world); // no components: skipped, as a query would
    animate(world, 0, [entities[2], bare, entities[0]]);
    entities.forEach((eid, i) => {
      const after = getSkinnedPositions(world, eid);
      if (i === 0 || i === 2) assertNotEquals(Array.from(after), Array.from(before[i]));
      else assertEquals(after, before[i]);
    });
  });

  Deno.test(`${build}: bad entity lists are refused before anything is written`, () => {
    const scene = createScene(build, 2);
    const { world, entities, core } = scene;
    animate(world, 0);
    wavePose(getPose(world, entities[0]), 6, 0.3);
    const memory = () => coreMemory(core).views().u8.slice();
    const before = memory();
    for (
      const [list, message] of [
        [[entities[0], entities[0]], "entities[1]: entity " + entities[0] + " is listed twice"],
        [[entities[0], -1], "entities[1]: expected an entity id, got -1"],
        [[1.5], "entities[0]: expected an entity id, got 1.5"],
        [[NaN], "entities[0]: expected an entity id, got NaN"],
      ] as const
    ) {
      for (
        const system of [quatToMatSystem, transformSkeletonSystem, multiplyInverseBindSystem]
      ) {
        assertThrows(() => system(world, list as unknown as number[]), RangeError, message);
      }
      assertThrows(
        () => skinWithTangentsSystem(world, { entities: list as unknown as number[] }),
        RangeError,
        message,
      );
      // The level of detail's selection (made first) names the system called.
      const given = list as unknown as number[];
      assertThrows(
        () => sampleClipsSystem(world, 0, given),
        RangeError,
        `sampleClipsSystem: ${message}`,
      );
      assertThrows(() => animate(world, 0, given), RangeError, `animate: ${message}`);
    }
    assertEquals(memory(), before);
  });

  Deno.test(`${build}: the level of detail is per entity`, () => {
    const scene = createScene(build, 3, { joints: 6, segments: 5, rings: 9, influences: 4 });
    const { world, entities, components } = scene;
    entities.forEach((eid) => wavePose(getPose(world, eid), 6, 0.9));
    components.Skin.maxInfluences[entities[1]] = 1;
    components.Skin.maxInfluences[entities[2]] = 2;
    animate(world, 0);
    const [all, one, two] = entities.map((eid) => getSkinnedPositions(world, eid).slice());
    assertNotEquals(Array.from(one), Array.from(all));
    assertNotEquals(Array.from(two), Array.from(one));
    // The pipeline's own cap applies on top: capped at 1, everyone equals `one`.
    createAnimationPipeline({ maxInfluences: 1 })(world, 0);
    for (const eid of entities) assertEquals(getSkinnedPositions(world, eid), one);
    assert(getModelMatrices(world, entities[0]).length === 6 * 12);
  });
}
