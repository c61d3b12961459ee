import "../scalar.ts";
import { assertEquals } from "@std/assert";
import fc from "fast-check";
import { addEntity, createWorld, removeEntity } from "bitecs";
import { addCharacter, createAnimation, SkeletonAsset, SkinAsset, skinSystem } from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { selectEntities, stateOf } from "../components/internal.ts";
import { SKINNED_ENTITIES } from "../systems/_select.ts";
import { selectSkinned } from "../systems/skin.ts";
import { groupBySkin } from "../systems/_skin_order.ts";
import { fcParams } from "./_arbitrary_numbers.ts";

/** What grouping should give: skins in the order of their first entity, each skin's entities in order. */
function grouped<S>(entities: readonly number[], skins: readonly S[]): number[] {
  const order: S[] = [];
  for (const eid of entities) if (!order.includes(skins[eid])) order.push(skins[eid]);
  return order.flatMap((skin) => entities.filter((eid) => skins[eid] === skin));
}

Deno.test("groupBySkin puts each skin's entities together, in their order, skins by first entity", () => {
  const [a, b, c] = ["a", "b", "c"].map((name) => ({ name }) as unknown as SkinAsset);
  const skins = [a, b, a, c, b, a, undefined, c];
  const entities = [7, 0, 1, 2, 3, 4, 5, 6];
  groupBySkin(entities, skins);
  assertEquals(entities, [7, 3, 0, 2, 5, 1, 4, 6]);
  fc.assert(
    fc.property(
      fc.array(fc.integer({ min: 0, max: 4 }), { maxLength: 60 }),
      fc.integer(),
      (skinOf, salt) => {
        const pool = [a, b, c, undefined, { name: "d" } as unknown as SkinAsset];
        const skins = skinOf.map((k) => pool[k]);
        // The entities in a shuffled order: a query's order is not the entities'.
        const entities = skins.map((_, eid) => eid)
          .sort((x, y) => ((x * 2654435761 + salt) >>> 0) - ((y * 2654435761 + salt) >>> 0));
        const expected = grouped(entities, skins);
        groupBySkin(entities, skins);
        assertEquals(entities, expected);
      },
    ),
    fcParams(200),
  );
});

Deno.test("skinSystem skins a query's entities grouped by skin, also after entities leave and join", () => {
  const core = Core.create("scalar");
  const world = createWorld();
  createAnimation(world, { core });
  const cylinders = [{ joints: 3, segments: 3, rings: 4, radius: 1 }, {
    joints: 3,
    segments: 4,
    rings: 5,
    radius: 2,
  }].map((shape) => createCylinder(shape));
  const skeleton = new SkeletonAsset(cylinders[0].skeleton, core);
  const skins = cylinders.map((cylinder) => new SkinAsset(skeleton, cylinder.skin));
  const skinOf: SkinAsset[] = [];
  const add = (kind: number) => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skins[kind], { normals: false, tangents: false });
    skinOf[eid] = skins[kind];
    return eid;
  };
  const state = stateOf(world, "test");
  const order = () => selectSkinned(world, state, "skinSystem", {}, false).slice();
  const queried = () => Array.from(selectEntities(world, state, "test", SKINNED_ENTITIES));
  const entities = [0, 1, 0, 1, 1, 0].map(add);
  skinSystem(world);
  assertEquals(queried(), entities);
  assertEquals(order(), [0, 2, 5, 1, 3, 4].map((i) => entities[i]));
  // A removal reorders the query (the last entity takes the removed one's place).
  removeEntity(world, entities[0]);
  add(1), add(0);
  skinSystem(world);
  const expected = grouped(queried(), skinOf);
  assertEquals(order(), expected);
  assertEquals(new Set(expected.slice(0, 3).map((eid) => skinOf[eid])).size, 1);
});
