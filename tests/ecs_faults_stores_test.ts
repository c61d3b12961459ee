/**
 * Per-entity faults that used to throw from the frame, isolated: a
 * dual-quaternion skin whose palette a non-uniform scale shears, and each
 * store field the core checks, changed by game code (on characters with an
 * aim IK chain, so that the ik system meets them too). In a world of 4
 * characters, 10 frames run without a throw on every build, on the calling
 * thread, on 2 worker threads and task-parallel; the 3 healthy characters
 * are bit for bit those of a control world, the faulty one's skin (and, for
 * a store field, every output) keeps its last good values, and the fault is
 * listed with a typed error naming the entity and the field.
 */
import { assert, assertEquals, assertInstanceOf } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type AnimationComponents,
  type Clip,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  DualQuaternionError,
  getFaults,
  getPose,
  playClip,
  setJointPose,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import { addAimIK } from "../ik.ts";
import { Core } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { BUILDS, wander } from "./_scene.ts";
import { assertSameBits, outputs, runFrame, THREADS, withThreads } from "./_fault_threads.ts";

interface World {
  world: object;
  components: AnimationComponents;
  entities: number[];
}

/**
 * Four characters on `core`, each playing a clip, but for the third, which
 * plays none (its pose is the game's) and skins with dual quaternions.
 */
function characters(core: Core): World {
  const world = createWorld();
  const components = createAnimation(world, { core });
  const cylinder = createCylinder({ joints: 8, segments: 6, rings: 6, influences: 2 });
  const skeleton = new SkeletonAsset(cylinder.skeleton, core);
  const linear = new SkinAsset(skeleton, cylinder.skin);
  const dual = new SkinAsset(skeleton, cylinder.skin, { method: "dual-quaternion" });
  const clip: Clip = wander("walk", 1, 1);
  const entities = Array.from({ length: 4 }, (_, i) => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, i === 2 ? dual : linear, { normals: i % 2 === 1 });
    // The ik system checks the stores too: the victim and a healthy one aim.
    if (i % 2 === 0) addAimIK(world, eid, { joint: 5, target: [2, 3, 1] });
    if (i === 2) {
      setJointPose(world, eid, 3, [0, 1, 0], [0, 0.38268343, 0, 0.9238795]);
    } else {
      playClip(world, eid, clip, { time: i * 0.3 });
    }
    return eid;
  });
  return { world, components, entities };
}

/** A corruption of the third character and what its fault names. */
interface Corruption {
  /** Returns how to undo a store write (the view functions check the stores too). */
  corrupt: (world: World, eid: number) => (() => void) | void;
  /** The error's type, component and field. */
  error: typeof ComponentError | typeof DualQuaternionError;
  component: string;
  field: string;
  /** Whether its joints' outputs are held too (else only its skin). */
  holdsJoints: boolean;
}

/** A store field written over with another entity's value, or a wrong count. */
function storeField(
  component: keyof AnimationComponents,
  field: string,
  holdsJoints: boolean,
  value: (w: World) => unknown = (w) => w.components.JointMat.modelByteOffset[w.entities[0]],
): Corruption {
  return {
    corrupt: (w, eid) => {
      const store = (w.components[component] as unknown as Record<string, unknown[]>)[field];
      const saved = store[eid], written = value(w);
      store[eid] = written;
      return () => void (store[eid] = saved);
    },
    error: ComponentError,
    component,
    field,
    holdsJoints,
  };
}

const CORRUPTIONS: Record<string, Corruption> = {
  "a non-uniform scale shears the dual-quaternion palette": {
    corrupt: (w, eid) => setJointPose(w.world, eid, 2, [0, 1, 0], [0, 0, 0, 1], [1, 2, 1]),
    error: DualQuaternionError,
    component: "JointMat",
    field: "palette[2]",
    holdsJoints: false,
  },
  "Skeleton.asset": storeField("Skeleton", "asset", true, () => ({})),
  "Skeleton.jointCount": storeField("Skeleton", "jointCount", true, () => 200),
  "JointQuat.byteOffset": storeField("JointQuat", "byteOffset", true),
  "JointMat.modelByteOffset": storeField("JointMat", "modelByteOffset", true, () => 64),
  "JointMat.paletteByteOffset": storeField("JointMat", "paletteByteOffset", true),
  "Skin.asset": storeField("Skin", "asset", false, () => ({})),
  "Skin.vertexCount": storeField("Skin", "vertexCount", false, () => 1e6),
  "Skin.positionsByteOffset": storeField("Skin", "positionsByteOffset", false),
  "Skin.normalsByteOffset": storeField("Skin", "normalsByteOffset", false),
  "Skin.tangentsByteOffset": storeField("Skin", "tangentsByteOffset", false),
};

for (const build of BUILDS) {
  for (const threads of THREADS) {
    Deno.test(`store and dual-quaternion faults (${build}, ${threads}): isolated, the others untouched`, async () => {
      await withThreads(build, threads, async (core, pipeline) => {
        for (const [how, expected] of Object.entries(CORRUPTIONS)) {
          const faulty = characters(core), control = characters(Core.create(build));
          const animate = pipeline(), controlAnimate = createAnimationPipeline();
          const victim = faulty.entities[2];
          // Two frames first: task-parallel has skinned the previous frame once.
          for (let f = 0; f < 3; f++) {
            animate(faulty.world, 1 / 60);
            controlAnimate(control.world, 1 / 60);
          }
          let controlBefore = control.entities.map((eid) => outputs(control.world, eid));
          const held = outputs(faulty.world, victim);
          const undo = expected.corrupt(faulty, victim);
          // The victim's outputs, read with the store field put back for the view functions.
          const victimOutputs = () => {
            if (!undo) return outputs(faulty.world, victim);
            undo();
            const read = outputs(faulty.world, victim);
            expected.corrupt(faulty, victim);
            return read;
          };
          for (let frame = 0; frame < 10; frame++) {
            const at = `${how}: frame ${frame}`;
            await runFrame(animate, faulty.world, threads, frame);
            controlAnimate(control.world, 1 / 60);
            const controlNow = control.entities.map((eid) => outputs(control.world, eid));
            faulty.entities.forEach((eid, i) => {
              if (eid === victim) return;
              const actual = outputs(faulty.world, eid);
              const skin = (threads === "task-parallel" ? controlBefore : controlNow)[i].skin;
              assertSameBits(actual.joints, controlNow[i].joints, `${at}: healthy ${eid}'s joints`);
              assertSameBits(actual.skin, skin, `${at}: healthy ${eid}'s skin`);
            });
            controlBefore = controlNow;
            const victimNow = victimOutputs();
            // Task-parallel's first faulty frame may skin the snapshot taken before the corruption.
            if (threads === "task-parallel" && frame === 0) held.skin = victimNow.skin;
            assertSameBits(victimNow.skin, held.skin, `${at}: the victim's skin is held`);
            if (expected.holdsJoints) {
              assertSameBits(victimNow.joints, held.joints, `${at}: the victim's joints are held`);
            }
            const faults = getFaults(faulty.world);
            assert(faults.length > 0, `${at}: no fault recorded`);
            for (const fault of faults) {
              assertEquals(fault.entity, victim, `${at}: ${fault.error.message}`);
              assertInstanceOf(fault.error, expected.error);
              assertEquals((fault.error as ComponentError).entity, victim);
              assert(fault.error.message.startsWith(`entity ${victim}: `), fault.error.message);
              assertEquals([fault.component, fault.field], [expected.component, expected.field]);
              if (expected.error === ComponentError) {
                assertEquals((fault.error as ComponentError).field, expected.field);
              }
            }
          }
        }
      });
    });
  }
}

for (const build of BUILDS) {
  Deno.test(`store and dual-quaternion faults (${build}): the "throw" mode throws them`, () => {
    for (const [how, expected] of Object.entries(CORRUPTIONS)) {
      const faulty = characters(Core.create(build));
      createAnimation(faulty.world, { faults: "throw" });
      const animate = createAnimationPipeline();
      animate(faulty.world, 1 / 60);
      expected.corrupt(faulty, faulty.entities[2]);
      let thrown: unknown;
      try {
        animate(faulty.world, 1 / 60);
      } catch (error) {
        thrown = error;
      }
      assertInstanceOf(thrown, expected.error, how);
      assertEquals(getFaults(faulty.world), [], how);
    }
  });
}

/** Poses the frame cannot use: one quat→mat refuses, one whose palette overflows. */
const BAD_POSES = { "a NaN": NaN, "an overflowing 1e20": 1e20 };

for (const build of BUILDS) {
  for (const threads of THREADS) {
    Deno.test(`a bad pose after a skinning fault (${build}, ${threads}): the character publishes nothing new`, async () => {
      await withThreads(build, threads, async (core, pipeline) => {
        for (const [how, value] of Object.entries(BAD_POSES)) {
          const faulty = characters(core), animate = pipeline();
          // The third character plays no clip: its pose is the game's.
          const victim = faulty.entities[2];
          for (let f = 0; f < 3; f++) animate(faulty.world, 1 / 60);
          // A frame whose skinning skips it (a Skin field written over): its
          // joints move on, its skin is held, made from the palette before.
          setJointPose(faulty.world, victim, 3, [0, 1, 0], [0, 0.6, 0, 0.8]);
          const undo = CORRUPTIONS["Skin.positionsByteOffset"].corrupt(faulty, victim)!;
          animate(faulty.world, 1 / 60);
          undo();
          // Task-parallel skins the snapshot of the frame before: one more frame.
          if (threads === "task-parallel") animate(faulty.world, 1 / 60);
          const held = outputs(faulty.world, victim);
          // Then a pose the frame cannot use: at fault, it publishes nothing new
          // (the skinning skips its kept palette, whose skin it never published).
          getPose(faulty.world, victim)[0] = value;
          for (let frame = 0; frame < 4; frame++) {
            const at = `${how}: frame ${frame}`;
            await runFrame(animate, faulty.world, threads, frame);
            const now = outputs(faulty.world, victim);
            assertSameBits(now.joints, held.joints, `${at}: the victim's joints`);
            assertSameBits(now.skin, held.skin, `${at}: the victim's skin`);
          }
          // Found every frame: by quat→mat (NaN), or by the inverse-bind multiply (1e20).
          const found = getFaults(faulty.world).filter((f) => f.count > 1).map((f) => f.component);
          assertEquals(found, [Number.isNaN(value) ? "JointQuat" : "JointMat"], how);
        }
      });
    });
  }
}
