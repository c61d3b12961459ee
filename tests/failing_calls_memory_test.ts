/**
 * A failing call keeps nothing: each add and set function of the public
 * API, run failing thousands of times (a bad argument after the clips were
 * checked, or the core out of memory after its clips were built), leaves
 * the core's allocated bytes where one failing call left them, and the
 * clips it was given stay collectable (a FinalizationRegistry probe on
 * them: the JS heap keeps nothing of theirs either). A failing
 * `addLocomotionLayer` used to keep its points' compact clips, 352 to
 * 1,504 bytes a call.
 */

import "../scalar.ts";
import { assert, assertEquals, assertThrows } from "@std/assert";
import { addEntity } from "bitecs";
import {
  addCharacter,
  addJointMat,
  addJointQuat,
  addSkeleton,
  addSkin,
  type Clip,
  crossFadeTo,
  playClip,
  setJointPose,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import {
  addLayer,
  addLocomotionLayer,
  setBlendThreshold,
  setLayerMask,
  setLayerTime,
  setLayerWeight,
  setLocomotionParameter,
} from "../layers.ts";
import { addAimIK, addTwoBoneIK, setIKTarget, updateIKChain } from "../ik.ts";
import {
  compactClip,
  disposeClip,
  enableRootMotion,
  setClipBudget,
  setClipMarkers,
} from "../clips.ts";
import { Core } from "../kernels.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { createScene, type Scene, wander } from "./_scene.ts";
import { collectUntil } from "./_collect.ts";

const CALLS = 10_000;
/** Calls that build a fresh clip each time cost a build each: fewer show the same. */
const BUILDING_CALLS = 500;

let clipCount = 0;
/** A clip never seen before: a failing call that kept its build would keep it per call. */
const freshClip = (): Clip => wander(`fresh ${clipCount++}`, clipCount, 1, 12, 1);

/**
 * Runs `call` (which must throw `expected`) `count` times; returns the core
 * bytes gained after the first call, or since before it when `fromFirst`
 * (a first call may make what an entity keeps once, its layer stack).
 */
function failRepeatedly(
  core: Core,
  count: number,
  call: () => unknown,
  expected: ErrorConstructor = Error,
  fromFirst = false,
): number {
  const first = core.allocatedBytes;
  assertThrows(call, expected);
  const before = fromFirst ? first : core.allocatedBytes;
  for (let i = 1; i < count; i++) {
    let threw = false;
    try {
      call();
    } catch (error) {
      threw = error instanceof expected;
    }
    assert(threw, `call ${i} did not throw a ${expected.name}`);
  }
  return core.allocatedBytes - before;
}

/** A scene whose first entity plays a clip, has a layer, a locomotion layer and an IK chain. */
function playingScene(core?: Core): Scene & { other: number } {
  const scene = createScene("scalar", 2, undefined, undefined, core);
  const [eid] = scene.entities;
  playClip(scene.world, eid, wander("walk", 1));
  addLayer(scene.world, eid, wander("wave", 2), { weight: 0.5 });
  addLocomotionLayer(scene.world, eid, [{ clip: wander("a", 3), at: 0 }, {
    clip: wander("b", 4),
    at: 1,
  }]);
  addTwoBoneIK(scene.world, eid, { start: 1, mid: 2, end: 3 });
  return { ...scene, other: addEntity(scene.world) };
}

Deno.test("every add and set function, failing on an argument, keeps no core memory", () => {
  const scene = playingScene();
  const { world, core, skeleton, skin, other } = scene;
  const [eid] = scene.entities;
  const foreign = new SkeletonAsset(createCylinder({ joints: 3 }).skeleton, core);
  const foreignSkin = new SkinAsset(foreign, createCylinder({ joints: 3 }).skin);
  const disposed = new SkeletonAsset(createCylinder({ joints: 3 }).skeleton, core);
  disposed.dispose();
  const walk = wander("walk", 1);
  const cases: [string, () => unknown, ErrorConstructor?][] = [
    ["addSkeleton (a disposed skeleton)", () => addSkeleton(world, other, disposed)],
    ["addJointQuat (no Skeleton)", () => addJointQuat(world, other)],
    ["addJointMat (no Skeleton)", () => addJointMat(world, other)],
    ["addSkin (no JointMat)", () => addSkin(world, other, skin)],
    [
      "addCharacter (a skin of another skeleton)",
      () => addCharacter(world, other, skeleton, foreignSkin),
    ],
    ["playClip (a bad time)", () => playClip(world, eid, walk, { time: NaN })],
    ["crossFadeTo (a bad speed)", () => crossFadeTo(world, eid, walk, 0.2, { speed: NaN })],
    ["addLayer (a bad weight)", () => addLayer(world, eid, walk, { weight: 2 })],
    [
      "addLayer (a bad reference)",
      () => addLayer(world, eid, walk, { mode: "additive", reference: NaN }),
    ],
    [
      "addLocomotionLayer (a bad parameter)",
      () => addLocomotionLayer(world, eid, [{ clip: walk, at: 0 }], { parameter: NaN }),
    ],
    ["setLayerWeight", () => setLayerWeight(world, eid, 1, 2)],
    ["setLayerMask", () => setLayerMask(world, eid, 1, [1])],
    ["setLayerTime", () => setLayerTime(world, eid, 1, NaN)],
    ["setBlendThreshold", () => setBlendThreshold(world, eid, NaN)],
    ["setLocomotionParameter", () => setLocomotionParameter(world, eid, 2, NaN)],
    ["setJointPose", () => setJointPose(world, eid, 99, [0, 0, 0], [0, 0, 0, 1], [1, 1, 1])],
    ["enableRootMotion", () => enableRootMotion(world, eid, { joint: 99 })],
    ["addTwoBoneIK", () => addTwoBoneIK(world, eid, { start: 1, mid: 1, end: 99 })],
    ["addAimIK", () => addAimIK(world, eid, { joint: 99 })],
    ["setIKTarget", () => setIKTarget(world, eid, 0, [NaN, 0, 0])],
    ["updateIKChain", () => updateIKChain(world, eid, 0, { weight: NaN })],
    ["setClipMarkers", () => setClipMarkers(walk, [{ name: "x", time: -1 }])],
    ["setClipBudget", () => setClipBudget(core, -1)],
  ];
  for (const [name, call, expected] of cases) {
    assertEquals(failRepeatedly(core, CALLS, call, expected), 0, name);
  }
});

Deno.test("failing calls given fresh clips keep no core memory and leave the clips collectable", async () => {
  const scene = playingScene();
  const { world, core } = scene;
  const [eid] = scene.entities;
  let collected = 0, registered = 0;
  const probe = new FinalizationRegistry(() => collected++);
  const fresh = () => {
    const clip = freshClip();
    probe.register(clip, undefined);
    registered++;
    return clip;
  };
  const cases: [string, () => unknown][] = [
    ["playClip", () => playClip(world, eid, fresh(), { wrap: "bounce" as "loop" })],
    ["crossFadeTo", () => crossFadeTo(world, eid, fresh(), 0.2, { wrap: "bounce" as "loop" })],
    ["addLayer", () => addLayer(world, eid, fresh(), { mask: [1] })],
    [
      "addLocomotionLayer (bad parameter)",
      () =>
        addLocomotionLayer(world, eid, [{ clip: fresh(), at: 0 }, { clip: fresh(), at: 1 }], {
          parameter: NaN,
        }),
    ],
    // The first point builds, the second is refused: the first's build goes back.
    [
      "addLocomotionLayer (a bad second clip)",
      () =>
        addLocomotionLayer(world, eid, [{ clip: fresh(), at: 0 }, {
          clip: { ...fresh(), channels: [{ ...freshClip().channels[0], joint: 99 }] },
          at: 1,
        }]),
    ],
  ];
  for (const [name, call] of cases) {
    assertEquals(failRepeatedly(core, BUILDING_CALLS, call), 0, name);
  }
  await collectUntil(() => collected >= registered * 0.9);
  assert(collected >= registered * 0.9, `${collected} of ${registered} clips collected`);
});

Deno.test("calls failing for core memory after building their clips keep no core memory", () => {
  const core = Core.create("scalar", { reserveBytes: 2 ** 21, maxBytes: 2 ** 21 });
  const scene = playingScene(core);
  const { world } = scene;
  const [eid] = scene.entities;
  const memory = coreMemory(core);
  // Fill the core but for room enough to build one clip, not to play it.
  const sample = freshClip();
  const room = playClipBytes(scene, sample);
  const filler = largestAllocation(memory) - room;
  const block = memory.alloc(filler);
  try {
    const cases: [string, () => unknown][] = [
      ["playClip", () => playClip(world, eid, freshClip())],
      ["crossFadeTo", () => crossFadeTo(world, eid, freshClip(), 0.2)],
      ["addLayer", () => addLayer(world, eid, freshClip())],
      ["addLocomotionLayer", () =>
        addLocomotionLayer(world, eid, [{ clip: freshClip(), at: 0 }, {
          clip: freshClip(),
          at: 1,
        }])],
    ];
    for (const [name, call] of cases) {
      assertEquals(failRepeatedly(core, 100, call, RangeError, true), 0, name);
    }
  } finally {
    memory.free(block);
  }
});

/** Bytes of a compact clip of `clip`'s shape, and a block's alignment: room to build one, not to play it. */
function playClipBytes(scene: Scene, clip: Clip): number {
  const bytes = compactClip(clip, scene.skeleton).bytes;
  disposeClip(clip);
  return bytes + 16;
}

/** The largest block `memory` can allocate now (binary search). */
function largestAllocation(memory: ReturnType<typeof coreMemory>): number {
  let low = 0, high = 2 ** 22;
  while (high - low > 16) {
    const mid = (low + high) >> 1;
    try {
      memory.free(memory.alloc(mid));
      low = mid;
    } catch {
      high = mid;
    }
  }
  return low;
}
