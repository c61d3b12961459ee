/**
 * Fault isolation, issue 27's "Done means": a world of 4 characters, one of
 * them corrupted in each of the issue's ways (a `removeJointQuat` on a
 * playing character that keeps its JointMat; `setBlendThreshold(1e-40)`
 * with every layer weight 0; NaN and 1e20 written through `getPose` on a
 * character that plays no clip; NaN and -1e20 at once), runs 10 frames without a throw on every
 * build, on the calling thread, on 2 worker threads and task-parallel
 * (blocking and awaited frames); every frame the 3 healthy characters are
 * bit for bit those of a control world without the corruption, the
 * corrupted one publishes no NaN or infinity (model matrices, palette,
 * skinned positions and normals), and a value the frame cannot use is in
 * the world's faults with a typed error naming the entity.
 */
import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  getFaults,
  getModelMatrices,
  getPose,
  playClip,
  PoseError,
  removeClipPlayer,
  removeJointQuat,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addLayer, setBlendThreshold, setLayerWeight } from "../layers.ts";
import { Core, PoseField, poseIndex } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { BUILDS, wander } from "./_scene.ts";
import { assertSameBits, outputs, runFrame, THREADS, withThreads } from "./_fault_threads.ts";

/** The four characters of a world, on `core`, each playing a clip with a second layer. */
function characters(core: Core): { world: object; entities: number[] } {
  const world = createWorld();
  createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 8, segments: 6, rings: 6, influences: 2 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const skin = new SkinAsset(skeleton, cylinder.skin);
  const clips: Clip[] = [wander("walk", 1, 1), wander("wave", 2, 3)];
  const entities = Array.from({ length: 4 }, (_, i) => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin, { normals: i % 2 === 1 });
    playClip(world, eid, clips[0], { time: i * 0.3 });
    addLayer(world, eid, clips[1], { weight: 0.5 });
    return eid;
  });
  return { world, entities };
}

/** Every value finite and within ±1e18, the bound a published palette keeps. */
function assertBounded(arrays: Float32Array[], what: string): void {
  arrays.forEach((array, i) => {
    const k = array.findIndex((v) => !(Math.abs(v) < 1e18));
    assert(k < 0, `${what}: output ${i}[${k}] is ${array[k]}`);
  });
}

/**
 * The corruptions; `faulted`: whether the frame finds a value it
 * cannot use. A pose written through `getPose` is the game's only on a
 * character that plays no clip (sampling rewrites every field of it each
 * frame): `prepare` stops its clip, in the control world too.
 */
const CORRUPTIONS: Record<string, {
  faulted: boolean;
  prepare?: (world: object, eid: number) => void;
  corrupt: (world: object, eid: number) => void;
}> = {
  "removeJointQuat on a playing character": {
    faulted: false,
    corrupt: (world, eid) => removeJointQuat(world, eid),
  },
  "setBlendThreshold 1e-40, every weight 0": {
    faulted: false,
    corrupt: (world, eid) => {
      setLayerWeight(world, eid, 0, 0);
      setLayerWeight(world, eid, 1, 0);
      setBlendThreshold(world, eid, 1e-40);
    },
  },
  "NaN through getPose": {
    faulted: true,
    prepare: (world, eid) => removeClipPlayer(world, eid),
    corrupt: (world, eid) => void (getPose(world, eid)[poseIndex(2, PoseField.QY)] = NaN),
  },
  "1e20 through getPose": {
    faulted: true,
    prepare: (world, eid) => removeClipPlayer(world, eid),
    corrupt: (world, eid) => void (getPose(world, eid)[poseIndex(5, PoseField.TX)] = 1e20),
  },
  "NaN and -1e20 at once": {
    faulted: true,
    prepare: (world, eid) => removeClipPlayer(world, eid),
    corrupt: (world, eid) => {
      getPose(world, eid)[poseIndex(1, PoseField.SZ)] = NaN;
      getPose(world, eid)[poseIndex(6, PoseField.TY)] = -1e20;
    },
  },
};

for (const build of BUILDS) {
  for (const threads of THREADS) {
    Deno.test(`faults (${build}, ${threads}): one corrupted character of 4 never stops the frame`, async () => {
      await withThreads(build, threads, async (core, pipeline) => {
        for (const [how, { faulted, prepare, corrupt }] of Object.entries(CORRUPTIONS)) {
          // The control world: the same characters, uncorrupted, on a core
          // of its own, in the plain frame on the calling thread.
          const faulty = characters(core), control = characters(Core.create(build));
          const animate = pipeline(), controlAnimate = createAnimationPipeline();
          const victim = faulty.entities[2];
          prepare?.(faulty.world, victim);
          prepare?.(control.world, control.entities[2]);
          // Two frames played first: removeJointQuat meets a character mid-clip.
          for (let f = 0; f < 2; f++) {
            animate(faulty.world, 1 / 60);
            controlAnimate(control.world, 1 / 60);
          }
          // Task-parallel skins the previous frame: its skin is the control's of one frame before.
          let controlBefore = control.entities.map((eid) => outputs(control.world, eid));
          corrupt(faulty.world, victim);
          let lastModel = getModelMatrices(faulty.world, victim).slice();
          for (let frame = 0; frame < 10; frame++) {
            const dt = frame === 4 ? 0.25 : 1 / 60;
            await runFrame(animate, faulty.world, threads, frame, dt);
            controlAnimate(control.world, dt);
            const controlNow = control.entities.map((eid) => outputs(control.world, eid));
            const at = `${how}: frame ${frame}`;
            faulty.entities.forEach((eid, i) => {
              if (eid === victim) return;
              const actual = outputs(faulty.world, eid);
              const skin = (threads === "task-parallel" ? controlBefore : controlNow)[i].skin;
              assertSameBits(actual.joints, controlNow[i].joints, `${at}: healthy ${eid}'s joints`);
              assertSameBits(actual.skin, skin, `${at}: healthy ${eid}'s skin`);
            });
            controlBefore = controlNow;
            const published = outputs(faulty.world, victim);
            assertBounded([...published.joints, ...published.skin], `${at}: the victim`);
            if (how.startsWith("removeJointQuat")) {
              // Its JointMat is the game's now: kept as it was, never compounded.
              assertSameBits(
                [getModelMatrices(faulty.world, victim)],
                [lastModel],
                `${at}: the orphaned model matrices`,
              );
            }
            if (how.startsWith("setBlendThreshold")) {
              assertBounded([getPose(faulty.world, victim)], `${at}: the pose`);
            }
            lastModel = getModelMatrices(faulty.world, victim).slice();
            const faults = getFaults(faulty.world);
            if (!faulted) {
              assertEquals(faults, [], `${at}: a defined case, not a fault`);
              continue;
            }
            assert(faults.length > 0, `${at}: no fault recorded`);
            for (const fault of faults) {
              assertEquals(fault.entity, victim, `${at}: ${fault.error.message}`);
              assertInstanceOf(fault.error, PoseError);
              assertEquals((fault.error as PoseError).entity, victim);
              assert(fault.error.message.startsWith(`entity ${victim}: `), fault.error.message);
              assertEquals(fault.count, frame + 1, `${at}: retried every frame`);
            }
          }
        }
      });
    });
  }
}
