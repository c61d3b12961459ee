/**
 * The commands of `ecs_programs_test.ts`'s model-based programs: each a
 * fast-check arbitrary of one public call (adding and removing every
 * component through Marrow and through bitecs, removing entities,
 * resetting the world, playing and cross-fading clips, layers, poses,
 * levels of detail, IK chains and targets, tampering with store fields,
 * disposing assets, frames on all entities or on random subsets) that
 * updates the model of each entity, expects a typed error naming the
 * entity where the model says the call must fail, checks that no other
 * entity's bytes changed, and after a frame compares each skinned entity's
 * output with an independent scalar recomputation.
 *
 * @module
 */

import { assertEquals } from "@std/assert";
import fc from "fast-check";
import { addComponent, addEntity, removeComponent, removeEntity, resetWorld } from "bitecs";
import {
  addJointMat,
  addJointQuat,
  addSkeleton,
  addSkin,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  getPose,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
  removeClipPlayer,
  removeJointMat,
  removeJointQuat,
  removeSkeleton,
  removeSkin,
  setJointPose,
} from "../mod.ts";
import { addLayer, getLayers, removeLayer } from "../layers.ts";
import { addAimIK, addTwoBoneIK, removeIK, setIKTarget } from "../ik.ts";
import { uniform, type Vec3 } from "./_arbitrary.ts";
import {
  assertUnchanged,
  call,
  checked,
  dropFromModel,
  type EntityModel,
  expectedSkin,
  expectFailure,
  type Harness,
  has,
  KIND_COUNT,
  type Name,
  NAMES,
  snapshot,
} from "./_ecs_programs.ts";
import type { ChainJob } from "./_ik.ts";
import { lodSteps } from "./_ecs_program_lod.ts";
import { layerSteps } from "./_ecs_program_layers.ts";
import { systemSteps } from "./_ecs_program_systems.ts";

const animate = createAnimationPipeline();

/** The entity a pick selects: a live one, or (pick < 0) one that does not exist. */
export function entity(h: Harness, pick: number): number {
  const live = [...h.entities.keys()];
  return pick < 0 || live.length === 0 ? 1_000_000 + (pick & 7) : live[pick % live.length];
}

export type Step = (h: Harness) => void;

function spawn(h: Harness): number {
  h.calls++;
  const eid = addEntity(h.world);
  h.entities.set(eid, { pose: false, matrices: false, skin: false, player: false, ik: [] });
  return eid;
}

/** A whole character in five calls, so that programs reach frames with many skinned entities. */
const character = fc.tuple(fc.nat(KIND_COUNT - 1), fc.boolean()).map(([kind, clip]) =>
  [
    `character ${kind} ${clip}`,
    (h: Harness) => {
      if (h.disposed[kind]) return;
      const eid = spawn(h), m = h.entities.get(eid)!;
      const { skeleton, skin, clips } = h.kinds[kind];
      call(h, () => addSkeleton(h.world, eid, skeleton));
      call(h, () => addJointQuat(h.world, eid));
      call(h, () => addJointMat(h.world, eid));
      call(h, () => addSkin(h.world, eid, skin));
      Object.assign(m, { kind, pose: true, matrices: true, skin: true });
      if (clip) call(h, () => playClip(h.world, eid, clips[0])), m.player = true;
    },
  ] as [string, Step]
);

/** IK targets around the cylinders (uniform: no exactly degenerate geometry). */
const target = fc.tuple(uniform(-6, 6), uniform(-2, 12), uniform(-6, 6)) as fc.Arbitrary<Vec3>;

const steps: fc.Arbitrary<[string, Step]>[] = [
  fc.constant(["spawn", (h: Harness) => void spawn(h)]),
  fc.nat().map((pick) => [`removeEntity ${pick}`, (h: Harness) => {
    const eid = entity(h, pick);
    if (!h.entities.has(eid)) return;
    call(h, () => removeEntity(h.world, eid));
    h.entities.delete(eid);
  }]),
  fc.tuple(fc.integer({ min: -1, max: 50 }), fc.nat(KIND_COUNT - 1)).map(([pick, kind]) => [
    `addSkeleton ${pick} ${kind}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      const run = () => addSkeleton(h.world, eid, h.kinds[kind].skeleton);
      if (!m || m.kind !== undefined || h.disposed[kind]) return expectFailure(h, run, eid);
      call(h, run);
      m.kind = kind;
    },
  ]),
  fc.tuple(fc.nat(), fc.constantFrom("JointQuat", "JointMat"), fc.boolean()).map((
    [pick, name, viaBitecs],
  ) => [`add ${name} ${pick} ${viaBitecs ? "bitecs" : ""}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const present = name === "JointQuat" ? m.pose : m.matrices;
    const run = viaBitecs
      ? () => addComponent(h.world, eid, h.components[name])
      : () => (name === "JointQuat" ? addJointQuat : addJointMat)(h.world, eid);
    if (m.kind === undefined || (present && !viaBitecs)) return expectFailure(h, run, eid);
    call(h, run);
    if (name === "JointQuat") m.pose = true;
    else m.matrices = true;
  }]),
  fc.nat().map((pick) => [`addSkin ${pick}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const kind = m.kind ?? 0;
    const run = () => addSkin(h.world, eid, h.kinds[kind].skin);
    if (m.kind === undefined || !m.matrices || m.skin || h.disposed[kind]) {
      return expectFailure(h, run, eid);
    }
    call(h, run);
    m.skin = true;
  }]),
  fc.tuple(fc.nat(), fc.constantFrom(...NAMES), fc.boolean()).map(([pick, name, viaBitecs]) => [
    `remove ${name} ${pick} ${viaBitecs ? "bitecs" : ""}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m) return;
      const remove = {
        Skeleton: removeSkeleton,
        JointQuat: removeJointQuat,
        JointMat: removeJointMat,
        Skin: removeSkin,
        ClipPlayer: removeClipPlayer,
        IK: removeIK,
      }[name];
      const run = viaBitecs
        ? () => removeComponent(h.world, eid, h.components[name])
        : () => remove(h.world, eid);
      if (!has(m, name) && !viaBitecs) return expectFailure(h, run, eid);
      const others = snapshot(h, [...h.entities.keys()].filter((e) => e !== eid));
      call(h, run);
      dropFromModel(m, name);
      assertUnchanged(others, snapshot(h, [...h.entities.keys()].filter((e) => e !== eid)));
    },
  ]),
  fc.tuple(fc.nat(), fc.nat(1), fc.option(fc.double({ min: 0, max: 0.5, noNaN: true }))).map((
    [pick, clip, fade],
  ) => [`play ${pick} ${clip} ${fade}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const c = h.kinds[m.kind ?? 0].clips[clip];
    const run = fade === null
      ? () => playClip(h.world, eid, c, { time: clip * 0.3 })
      : () => crossFadeTo(h.world, eid, c, fade);
    if (m.kind === undefined || !m.pose) return expectFailure(h, run, eid);
    call(h, run);
    m.player = true;
  }]),
  fc.tuple(fc.nat(), fc.nat(1), fc.constantFrom("override", "additive", "masked", "remove"))
    .map(([pick, clip, how]) => [`layer ${pick} ${clip} ${how}`, (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m) return;
      const kind = h.kinds[m.kind ?? 0], c = kind.clips[clip];
      const mask = new Float32Array(kind.skeleton.jointCount).fill(0.5);
      const run = how === "remove"
        ? () => removeLayer(h.world, eid, 1)
        : () =>
          addLayer(h.world, eid, c, {
            weight: 0.6,
            mode: how === "additive" ? "additive" : "override",
            ...(how === "masked" ? { mask } : {}),
          });
      const layers = m.player ? getLayers(h.world, eid).length : 0;
      if (!m.player || (how === "remove" && layers < 2)) return expectFailure(h, run, eid);
      call(h, run);
    }]),
  fc.tuple(fc.nat(), fc.nat(8), fc.double({ min: -3, max: 3, noNaN: true })).map((
    [pick, joint, angle],
  ) => [`pose ${pick} ${joint} ${angle}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (!m) return;
    const run = () =>
      setJointPose(h.world, eid, joint, [0, angle, 0], [0, Math.sin(angle), 0, Math.cos(angle)]);
    const joints = m.kind === undefined ? 0 : h.kinds[m.kind].skeleton.jointCount;
    if (!m.pose || joint >= joints) return expectFailure(h, run, eid);
    call(h, run);
  }]),
  fc.tuple(fc.nat(), fc.nat(4)).map(([pick, lod]) => [`lod ${pick} ${lod}`, (h: Harness) => {
    const eid = entity(h, pick), m = h.entities.get(eid);
    if (m?.skin) h.components.Skin.maxInfluences[eid] = lod;
  }]),
  fc.tuple(fc.nat(), fc.constantFrom("modelByteOffset", "byteOffset", "positionsByteOffset"))
    .map(([pick, field]) => [`tamper ${pick} ${field}`, (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      const store = field === "modelByteOffset"
        ? m?.matrices && h.components.JointMat.modelByteOffset
        : field === "byteOffset"
        ? m?.pose && m.matrices && h.components.JointQuat.byteOffset
        : m?.skin && h.components.Skin.positionsByteOffset;
      if (!store) return;
      const saved = store[eid];
      const before = snapshot(h, h.entities.keys());
      store[eid] = saved + 16;
      // The "throw" fault mode refuses the whole frame (the default isolates
      // the entity: tests/ecs_faults_stores_test.ts).
      createAnimation(h.world, { faults: "throw" });
      expectFailure(h, () => animate(h.world, 0), eid);
      createAnimation(h.world, { faults: "isolate" });
      store[eid] = saved;
      assertUnchanged(before, snapshot(h, h.entities.keys()));
    }]),
  fc.tuple(fc.nat(), fc.boolean(), target).map(([pick, aim, at]) => [
    `addIK ${pick} ${aim} ${at}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m) return;
      // Joints 0, 1, 2 (every kind has them), no pole: the chain keeps its
      // plane; bent in the pose's plane, the straight rest's (0, 0, 1) serving.
      const job: ChainJob = aim
        ? { kind: "aim", start: 1, target: at }
        : { kind: "twoBone", start: 0, mid: 1, end: 2, target: at, poseAxis: true };
      const run = aim
        ? () => addAimIK(h.world, eid, { joint: 1, target: at })
        : () => addTwoBoneIK(h.world, eid, { start: 0, mid: 1, end: 2, target: at });
      if (m.kind === undefined || !m.matrices) return expectFailure(h, run, eid);
      call(h, run);
      m.ik.push(job);
    },
  ]),
  fc.tuple(fc.nat(), fc.nat(3), fc.option(target, { freq: 4 })).map(([pick, chain, at]) => [
    `setIKTarget ${pick} ${chain} ${at}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m) return;
      const value: Vec3 = at ?? [NaN, 0, 0];
      const run = () => setIKTarget(h.world, eid, chain, value);
      if (chain >= m.ik.length || at === null) return expectFailure(h, run, eid);
      call(h, run);
      m.ik[chain].target = at;
    },
  ]),
  fc.tuple(fc.nat(), fc.constantFrom("Skeleton", "Skin", "ClipPlayer", "IK")).map((
    [pick, name],
  ) => [
    `bitecs add ${name} ${pick}`,
    (h: Harness) => {
      const eid = entity(h, pick), m = h.entities.get(eid);
      if (!m || has(m, name as Name)) return;
      expectFailure(h, () => addComponent(h.world, eid, h.components[name]), eid);
    },
  ]),
  fc.nat(KIND_COUNT - 1).map((kind) => [`dispose ${kind}`, (h: Harness) => {
    h.kinds[kind].skin.dispose();
    h.kinds[kind].skeleton.dispose();
    h.disposed[kind] = true;
  }]),
  fc.constant(["resetWorld", (h: Harness) => {
    // bitecs has no hook for a reset: Marrow notices it at its next call on
    // the world, and the documented rule is to make one (createAnimation
    // again) before adding Marrow's components with bitecs' addComponent.
    resetWorld(h.world);
    call(h, () => createAnimation(h.world));
    h.entities.clear();
  }]),
  fc.tuple(
    fc.option(fc.array(fc.nat(), { maxLength: 6 }), { freq: 2 }),
    fc.double({ min: 0, max: 0.1, noNaN: true }),
  )
    .map(([picks, dt]) => [`frame ${picks} ${dt}`, (h: Harness) => frame(h, picks, dt)]),
];

/** The pipeline's frame on `picks` (all if null), or `oneByOne`'s systems (those skip what the last
 * pipeline frame's level of detail chose: such entities are not compared), checked with the model. */
export function frame(
  h: Harness,
  picks: number[] | null,
  dt: number,
  oneByOne?: (world: object, dt: number) => void,
): void {
  const subset = picks === null ? undefined : [...new Set(picks.map((p) => entity(h, p)))];
  const inFrame = new Set(subset ?? h.entities.keys());
  const outside = [...h.entities.keys()].filter((e) => !inFrame.has(e));
  const before = snapshot(h, outside);
  const kept = new Map<number, Float32Array>();
  for (const eid of inFrame) {
    const m = h.entities.get(eid);
    if (m?.lod && m.skin) kept.set(eid, getSkinnedPositions(h.world, eid).slice());
  }
  call(h, () => oneByOne ? oneByOne(h.world, dt) : animate(h.world, dt, subset));
  checked.frames++;
  assertUnchanged(before, snapshot(h, outside));
  for (const eid of inFrame) {
    const m = h.entities.get(eid);
    if (!m?.skin || !m.pose || m.kind === undefined) continue;
    const kind = h.kinds[m.kind];
    const lod = h.components.Skin.maxInfluences[eid] || 255;
    const pose = getPose(h.world, eid).slice(), ik = m.ik.map((job) => ({ ...job }));
    // Level of detail: the inputs of its last frames, newest first (a stale
    // entity is skinned, on a frame that does not animate it, from the
    // palette of the one that last did).
    const inputs = m.lod ? (lodInputs.get(m) ?? []) : [];
    if (m.lod) lodInputs.set(m, [{ pose, ik }, ...inputs].slice(0, LOD_INPUTS));
    if (oneByOne && m.lod) continue;
    const expected = expectedSkin(kind, pose, lod, ik);
    checked.skins++;
    if (m.ik.some((job) => job.target)) checked.ik++;
    const size = 12; // the cylinders' extent
    const positions = getSkinnedPositions(h.world, eid), normals = getSkinnedNormals(h.world, eid);
    // Level of detail: not skinned this frame, it publishes what it did.
    if (kept.has(eid) && sameFloats(positions, kept.get(eid)!)) continue;
    const differs = (skin: typeof expected) =>
      mismatch(`entity ${eid} positions`, positions, skin.positions, size) ??
        (normals && mismatch(`entity ${eid} normals`, normals, skin.normals, 1, true));
    const earlier = inputs.map((input) => expectedSkin(kind, input.pose, lod, input.ik));
    if (differs(expected) && earlier.every(differs)) throw new Error(differs(expected)!);
  }
}

/** Frames of inputs kept per entity with a level of detail: its largest update rate, twice. */
const LOD_INPUTS = 8;
/** Per entity model with a level of detail, the pose and IK chains of its last frames. */
const lodInputs = new WeakMap<EntityModel, { pose: Float32Array; ik: ChainJob[] }[]>();

function sameFloats(a: Float32Array, b: Float32Array): boolean {
  return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
}

/** The first value of `actual` farther than 1e-4 × `size` from `expected`, said; else undefined. */
function mismatch(
  what: string,
  actual: Float32Array,
  expected: Float64Array,
  size: number,
  xyz = false,
): string | undefined {
  assertEquals(actual.length, expected.length, what);
  for (let i = 0; i < actual.length; i++) {
    if (xyz && i % 4 === 3) continue;
    if (!(Math.abs(actual[i] - expected[i]) <= 1e-4 * size)) {
      return `${what}[${i}]: ${actual[i]}, expected ${expected[i]}`;
    }
  }
  return undefined;
}

export const program = fc.oneof(
  { arbitrary: character, weight: 14 },
  ...[...steps, ...lodSteps, ...layerSteps, ...systemSteps].map((arbitrary) => ({
    arbitrary,
    weight: 2,
  })),
);

// The ComponentError import documents the expected class; keep it referenced.
void ComponentError;
