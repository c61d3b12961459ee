/**
 * The MorphWeights component's lifecycle through public calls and bitecs'
 * own: added without a Skin or on a skin without targets is a
 * ComponentError and allocates nothing; removing the Skin, the entity or
 * resetting the world gives its morphed streams back to the core; bitecs'
 * `addComponent` gives it zero weights; a `targetCount` game code changed
 * is refused by the frame's checks, naming the entity and field.
 */

import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { addComponent, addEntity, createWorld, removeComponent, removeEntity } from "bitecs";
import {
  addCharacter,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getFaults,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addMorphWeights, getMorphWeights, removeMorphWeights, setMorphWeights } from "../morph.ts";
import { parseGltf } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { writeGlb } from "./_gltf_rig.ts";
import { morphDocument } from "./_gltf_morph.ts";

const [character] = (await parseGltf(await writeGlb(morphDocument()))).skeletons;

Deno.test("MorphWeights: lifecycle, bitecs' own calls, tampering", () => {
  const core = Core.create("scalar");
  const world = createWorld();
  const components = createAnimation(world, { core });
  using skeleton = new SkeletonAsset(character.skeleton, core);
  using skin = new SkinAsset(skeleton, character.primitives[0].skin);
  const cylinder = createCylinder({ joints: 3, segments: 3, rings: 3 });
  using plainSkeleton = new SkeletonAsset(cylinder.skeleton, core);
  using plainSkin = new SkinAsset(plainSkeleton, cylinder.skin);
  const animate = createAnimationPipeline();

  const bare = addEntity(world);
  assertThrows(() => addMorphWeights(world, bare), ComponentError, "needs a Skin first");
  const before = core.allocatedBytes;
  assertThrows(() => addComponent(world, bare, components.MorphWeights), ComponentError);
  const cylinderEntity = addEntity(world);
  addCharacter(world, cylinderEntity, plainSkeleton, plainSkin);
  const withCylinder = core.allocatedBytes;
  assertThrows(
    () => addMorphWeights(world, cylinderEntity),
    ComponentError,
    "the skin has no morph targets",
  );
  assertThrows(() => addComponent(world, cylinderEntity, components.MorphWeights), ComponentError);
  assertEquals(core.allocatedBytes, withCylinder, "nothing allocated");
  assert(withCylinder > before);

  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  const withSkin = core.allocatedBytes;
  assertThrows(() => addMorphWeights(world, eid, [0, 1]), ComponentError, "expected 3 weights");
  assertEquals(core.allocatedBytes, withSkin);
  // bitecs' own add: zero weights.
  addComponent(world, eid, components.MorphWeights);
  assertEquals([...getMorphWeights(world, eid)], [0, 0, 0]);
  assert(core.allocatedBytes > withSkin);
  assertEquals(components.MorphWeights.targetCount[eid], 3);
  setMorphWeights(world, eid, [1, 0.5, 0]);
  animate(world, 1 / 60);
  // Removing the Skin removes MorphWeights and frees its streams.
  removeComponent(world, eid, components.Skin);
  assertThrows(() => getMorphWeights(world, eid), ComponentError, "no MorphWeights");
  assertThrows(() => setMorphWeights(world, eid, [0, 0, 0]), ComponentError, "no MorphWeights");
  animate(world, 1 / 60);

  const other = addEntity(world);
  addCharacter(world, other, skeleton, skin);
  const withOther = core.allocatedBytes;
  addMorphWeights(world, other, [0.5, 0, 0]);
  removeMorphWeights(world, other);
  assertEquals(core.allocatedBytes, withOther, "removeMorphWeights frees its streams");
  assertThrows(() => removeMorphWeights(world, other), ComponentError);
  addMorphWeights(world, other, [0.5, 0, 0]);
  // An array-like whose weight changes between reads: what was checked is what is written.
  let reads = 0;
  const fickle = {
    length: 3,
    get 0() {
      return reads++ === 0 ? 0.5 : NaN;
    },
    1: 0,
    2: 0,
  };
  setMorphWeights(world, other, fickle);
  assertEquals([...getMorphWeights(world, other)], [0.5, 0, 0]);
  // The public store's targetCount is informational: the frame reads the record.
  components.MorphWeights.targetCount[other] = 7;
  animate(world, 1 / 60);
  assertEquals(getFaults(world), []);
  components.MorphWeights.targetCount[other] = 3;
  removeEntity(world, other);
  assertEquals(core.allocatedBytes < withOther, true, "removeEntity frees it all");
  disposeAnimation(world);
});

Deno.test("MorphWeights: in the throw mode, a changed targetCount is refused before the frame writes", () => {
  const core = Core.create("scalar");
  const world = createWorld();
  const components = createAnimation(world, { core, faults: "throw" });
  using skeleton = new SkeletonAsset(character.skeleton, core);
  using skin = new SkinAsset(skeleton, character.primitives[0].skin);
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  addMorphWeights(world, eid);
  const animate = createAnimationPipeline();
  animate(world, 0);
  components.MorphWeights.targetCount[eid] = 2;
  const error = assertThrows(() => animate(world, 0), ComponentError);
  assertEquals([error.entity, error.component, error.field], [eid, "MorphWeights", "targetCount"]);
  disposeAnimation(world);
});
