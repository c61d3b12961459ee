/**
 * The systems keep their job rows between frames (issue #30); each public
 * change that feeds them must make the next frame write them again. After
 * every change below, the frame that may reuse rows (`animate(world, dt)`)
 * must give, bit for bit, what a frame that writes every row gives
 * (`animate(world, dt, entities)`: a game's list is never kept), from the
 * same poses, with the outputs poisoned before each: a row left pointing
 * at an entity's old blocks leaves the poison, or another entity's output.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import {
  addComponent,
  addEntity,
  createWorld,
  removeComponent,
  removeEntity,
  resetWorld,
} from "bitecs";
import {
  addCharacter,
  addJointMat,
  addSkin,
  clearFaults,
  createAnimation,
  createAnimationPipeline,
  getFaults,
  getModelMatrices,
  getPose,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
  multiplyInverseBindSystem,
  quatToMatSystem,
  removeJointMat,
  removeJointQuat,
  removeSkin,
  SkeletonAsset,
  SkinAsset,
  skinSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { Core } from "../kernels.ts";
import { createCylinder, wavePose } from "../procedural/cylinder.ts";
import { random } from "./_scene.ts";

const animate = createAnimationPipeline();
/** The systems that check a JointMat on their own, by the name their faults give. */
const matrixSystems: [string, (world: object) => void][] = [
  ["quatToMatSystem", (world) => quatToMatSystem(world)],
  ["transformSkeletonSystem", (world) => transformSkeletonSystem(world)],
  ["multiplyInverseBindSystem", (world) => multiplyInverseBindSystem(world)],
];
/** The skinning system of entity `eid`, by the name its faults give. */
function skinningOf(world: object, eid: number): [string, (world: object) => void] {
  return getSkinnedNormals(world, eid)
    ? ["skinWithTangentsSystem", (w) => skinWithTangentsSystem(w)]
    : ["skinSystem", (w) => skinSystem(w)];
}

interface Kind {
  readonly skeleton: SkeletonAsset;
  readonly skin: SkinAsset;
}

function kinds(core: Core): Kind[] {
  return [{ joints: 6, segments: 5, rings: 9 }, { joints: 6, segments: 4, rings: 3 }].map((s) => {
    const cylinder = createCylinder(s);
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    return { skeleton, skin: new SkinAsset(skeleton, cylinder.skin) };
  });
}

/** A character of `kind` on a new entity. */
function character(world: object, kind: Kind, normals: boolean): number {
  const eid = addEntity(world);
  addCharacter(world, eid, kind.skeleton, kind.skin, { normals, tangents: false });
  return eid;
}

/** Every skinned entity's outputs and palette, copied. */
function outputs(world: object, entities: Iterable<number>): Map<number, Float32Array[]> {
  const out = new Map<number, Float32Array[]>();
  for (const eid of entities) {
    const arrays = [
      getSkinnedPositions(world, eid).slice(),
      getSkinningPalette(world, eid).slice(),
    ];
    const normals = getSkinnedNormals(world, eid);
    if (normals) arrays.push(normals.slice());
    const bounds = getSkinnedBounds(world, eid);
    if (bounds) arrays.push(Float32Array.from([...bounds.min, ...bounds.max]));
    out.set(eid, arrays);
  }
  return out;
}

/**
 * Writes NaN over every entity's skinned outputs, and over the palettes of
 * those `posed` (an entity without a pose keeps its model matrices, the
 * game's, and its palette: a frame that transformed it would compound them).
 */
function poison(world: object, entities: Iterable<number>, posed: Set<number>): void {
  for (const eid of entities) {
    getSkinnedPositions(world, eid).fill(NaN);
    if (posed.has(eid)) getSkinningPalette(world, eid).fill(NaN);
    getSkinnedNormals(world, eid)?.fill(NaN);
  }
}

/** Frames the world twice from new poses: rows kept, then every row written; bit for bit. */
function compareFrames(world: object, skinned: Set<number>, posed: Set<number>, seed: number) {
  const next = random(seed);
  for (const eid of posed) wavePose(getPose(world, eid), 6, next(), eid);
  const poses = new Map([...posed].map((eid) => [eid, getPose(world, eid).slice()]));
  // The game's model matrices of an entity without a pose, as both frames must find them.
  const models = new Map([...skinned].map((eid) => [eid, getModelMatrices(world, eid).slice()]));
  poison(world, skinned, posed);
  animate(world, 0);
  const kept = outputs(world, skinned);
  for (const [eid, pose] of poses) getPose(world, eid).set(pose);
  for (const [eid, model] of models) if (!posed.has(eid)) getModelMatrices(world, eid).set(model);
  poison(world, skinned, posed);
  animate(world, 0, [...posed, ...[...skinned].filter((e) => !posed.has(e))]);
  const written = outputs(world, skinned);
  for (const [eid, arrays] of written) {
    const other = kept.get(eid)!;
    assertEquals(other.length, arrays.length, `entity ${eid}`);
    arrays.forEach((array, i) => {
      assert(
        array.every((v, k) => Object.is(v, other[i][k])),
        `entity ${eid}: output ${i} differs from a frame that writes every row`,
      );
    });
  }
}

Deno.test("kept job rows follow every change that feeds them", () => {
  const core = Core.create("relaxed-simd");
  const w = createWorld();
  createAnimation(w, { core });
  const [a, b] = kinds(core);
  const skinned = new Set<number>(), posed = new Set<number>();
  const add = (kind: Kind, normals: boolean) => {
    const eid = character(w, kind, normals);
    skinned.add(eid), posed.add(eid);
    return eid;
  };
  for (let i = 0; i < 8; i++) add(i % 3 ? a : b, i % 2 === 0);
  let seed = 1;
  const step = (what: string, change: () => void) => {
    // Two frames first: the rows are kept.
    animate(w, 0), animate(w, 0);
    change();
    try {
      compareFrames(w, skinned, posed, seed++);
    } catch (error) {
      throw new Error(`after ${what}: ${(error as Error).message}`);
    }
  };
  const list = () => [...skinned];

  step("nothing", () => {});
  // Before any entity lacks a JointQuat: the transform's rows are kept.
  step("a pose that is not finite (quarantined), then good again", () => {
    const eid = list()[4];
    const saved = getPose(w, eid)[0];
    const model = getModelMatrices(w, eid).slice(), palette = getSkinningPalette(w, eid).slice();
    getPose(w, eid)[0] = NaN;
    animate(w, 0);
    assert(getFaults(w).some((f) => f.entity === eid), "the bad pose is a fault");
    // Quarantined: no later system of the frame touches its JointMat, kept rows included.
    assert(
      getModelMatrices(w, eid).every((v, k) => Object.is(v, model[k])) &&
        getSkinningPalette(w, eid).every((v, k) => Object.is(v, palette[k])),
      "the quarantined entity's JointMat keeps its last good values",
    );
    getPose(w, eid)[0] = saved;
    clearFaults(w);
  });
  step("removeEntity, then a new character of the other kind (as many entities)", () => {
    const gone = list()[2];
    removeEntity(w, gone), skinned.delete(gone), posed.delete(gone);
    add(b, true);
  });
  step("removeSkin, then addSkin of another skin", () => {
    const eid = list()[0];
    removeSkin(w, eid);
    addSkin(w, eid, b.skin, { normals: false });
  });
  step("removeJointMat (and its Skin), then both again", () => {
    const eid = list()[1];
    removeJointMat(w, eid);
    addJointMat(w, eid);
    addSkin(w, eid, a.skin, { normals: true });
  });
  step("bitecs removeComponent and addComponent of the JointQuat", () => {
    const eid = list()[3];
    const components = createAnimation(w);
    removeComponent(w, eid, components.JointQuat);
    addComponent(w, eid, components.JointQuat);
  });
  step("removeJointQuat only: its JointMat is the game's", () => {
    const eid = list()[6];
    removeJointQuat(w, eid), posed.delete(eid);
  });
  step("levels of detail mixed", () => {
    const components = createAnimation(w);
    list().forEach((eid, i) => components.Skin.maxInfluences[eid] = i % 2 ? 1 : 0);
  });
  step("levels of detail back to one", () => {
    const components = createAnimation(w);
    for (const eid of list()) components.Skin.maxInfluences[eid] = 0;
  });
  step("a frame on a game's list, and a standalone system renormalizing", () => {
    animate(w, 0, list().slice(0, 3));
    skinWithTangentsSystem(w, { renormalize: true });
  });
  step("the fault mode switched and back", () => {
    createAnimation(w, { faults: "throw" });
    animate(w, 0);
    createAnimation(w, { faults: "isolate" });
  });
  // A store field game code changed: the entity is isolated, its rows too.
  for (
    const [component, field] of [["Skin", "positionsByteOffset"], [
      "JointMat",
      "modelByteOffset",
    ]] as const
  ) {
    animate(w, 0), animate(w, 0);
    const eid = list()[5];
    const store = (createAnimation(w) as unknown as Record<string, Record<string, Uint32Array>>)[
      component
    ][field];
    const saved = store[eid];
    store[eid] = saved + 16;
    clearFaults(w);
    animate(w, 0);
    assert(
      getFaults(w).some((f) => f.entity === eid && f.component === component && f.field === field),
      `a tampered ${component}.${field} is a fault: ${JSON.stringify(getFaults(w))}`,
    );
    // Each system on its own, its rows kept from the frames before, checks the field too.
    store[eid] = saved;
    clearFaults(w);
    const systems = component === "Skin" ? [] : [...matrixSystems];
    systems.push(skinningOf(w, eid));
    for (const [name, system] of systems) {
      // From a healthy entity each time: one system's quarantine makes the next skip it.
      store[eid] = saved, animate(w, 0), animate(w, 0), store[eid] = saved + 16;
      clearFaults(w);
      system(w);
      assert(
        getFaults(w).some((f) => f.entity === eid && f.system === name && f.field === field),
        `${name} runs on a tampered ${component}.${field}`,
      );
    }
    store[eid] = saved;
    clearFaults(w);
    step(`${component}.${field} put back`, () => {});
  }
  step("resetWorld, then new characters", () => {
    resetWorld(w);
    createAnimation(w);
    skinned.clear(), posed.clear();
    for (let i = 0; i < 6; i++) add(i % 2 ? a : b, i % 3 === 0);
  });
});

Deno.test("a skinning system on its own scans, with its kept rows, the palettes of the entities it skins now", () => {
  const core = Core.create("relaxed-simd");
  const w = createWorld();
  createAnimation(w, { core });
  const [a, b] = kinds(core);
  const entities = [0, 1, 2, 3, 4, 5].map((i) => character(w, i % 2 ? a : b, i % 3 === 0));
  const frame = () => {
    for (const [, system] of matrixSystems) system(w);
    skinSystem(w), skinWithTangentsSystem(w);
  };
  /** Two frames (the rows kept), then a palette entry beyond range: the next call of its system must report it. */
  const caught = (eid: number, what: string) => {
    frame(), frame();
    clearFaults(w);
    const [name, system] = skinningOf(w, eid);
    const positions = getSkinnedPositions(w, eid).slice();
    getSkinningPalette(w, eid)[5] = 1e30;
    system(w);
    assert(
      getFaults(w).some((f) => f.entity === eid && f.system === name && f.component === "JointMat"),
      `${what}: ${name} skins entity ${eid}'s palette beyond range: ${
        JSON.stringify(getFaults(w))
      }`,
    );
    assert(
      getSkinnedPositions(w, eid).every((v, k) => Object.is(v, positions[k])),
      `${what}: entity ${eid}'s outputs keep their last values`,
    );
    clearFaults(w);
  };
  caught(entities[1], "rows kept");
  caught(entities[0], "rows kept, the other system");
  removeEntity(w, entities[2]);
  // Of the other kind, in the removed entity's place in the query.
  caught(character(w, a, true), "a new character after removeEntity");
  removeSkin(w, entities[3]);
  addSkin(w, entities[3], a.skin, { normals: false, tangents: false });
  caught(entities[3], "removeSkin, then addSkin without normals (the other system)");
});
