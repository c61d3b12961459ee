/**
 * The runs compared across runtimes by the Node suite (`tests/node/suite.ts`):
 * the same code, imported from source in Deno and from a bundle made by
 * `deno bundle` in Node, must produce the same bytes on the same core build.
 *
 * - "crowd": the generated characters of `procedural/cylinder.ts`, each
 *   playing a clip through the whole pipeline (sample clips → … → skin).
 * - "gltf": a glTF file parsed with `parseGltf(bytes)`, every skeleton with
 *   skinned primitives playing its first clip through the pipeline.
 * - "views": what kept views do across memory growth (`viewsSurviveGrowth`,
 *   and `reserveBytes` keeping them attached where growth would detach them).
 *
 * No runtime API (Deno's or Node's) is used here: the callers read files.
 *
 * @module
 */

import "../../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  type Clip,
  createAnimation,
  createAnimationPipeline,
  getSkinnedNormals,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../../mod.ts";
import { createCharacterAssets, parseGltf } from "../../gltf/mod.ts";
import { Core, type CoreBuild, MatrixBuffer } from "../../kernels.ts";
import { createCylinder } from "../../procedural/cylinder.ts";

/** Every build, fastest first. */
export const BUILDS: readonly CoreBuild[] = ["relaxed-simd", "simd", "scalar"];

const FRAMES = 5;
const DT = 1 / 30;

/** The builds this runtime can create (`Core.create` throws a `TypeError` for the others). */
export function supportedBuilds(): CoreBuild[] {
  return BUILDS.filter((build) => {
    try {
      Core.create(build, { maxBytes: 1 << 20 });
      return true;
    } catch (error) {
      if (error instanceof TypeError) return false;
      throw error;
    }
  });
}

/** A clip that swings joint `joint` about z and moves it in y, keyed without trigonometry. */
function swing(joint: number): Clip {
  const s = Math.SQRT1_2;
  return {
    name: `swing${joint}`,
    animation: 0,
    start: 0,
    duration: 1.5,
    channels: [{
      joint,
      path: "rotation",
      interpolation: "LINEAR",
      times: Float32Array.of(0, 0.5, 1.5),
      values: Float32Array.of(0, 0, 0, 1, 0, 0, s, s, 0, 0, -0.6, 0.8),
      node: joint,
    }, {
      joint: 1,
      path: "translation",
      interpolation: "CUBICSPLINE",
      times: Float32Array.of(0, 1.5),
      // in-tangent, value, out-tangent per key
      values: Float32Array.of(0, 0, 0, 0, 0.1, 0, 0, 1, 0, 0, -1, 0, 0, 0.4, 0, 0, 0, 0),
      node: 1,
    }],
  };
}

/** Positions then normals of every entity, in entity order, after {@linkcode FRAMES} frames. */
function runFrames(
  world: object,
  entities: number[],
  normals: boolean,
): Float32Array {
  const animate = createAnimationPipeline();
  for (let frame = 0; frame < FRAMES; frame++) animate(world, DT);
  const parts: Float32Array[] = [];
  for (const eid of entities) {
    parts.push(getSkinnedPositions(world, eid));
    const n = getSkinnedNormals(world, eid);
    if (normals && n) parts.push(n);
  }
  const out = new Float32Array(parts.reduce((sum, p) => sum + p.length, 0));
  let at = 0;
  for (const part of parts) out.set(part, at), at += part.length;
  return out;
}

/** The generated crowd on `build`: 12 cylinders of 24 joints, each playing a clip. */
export function crowd(build: CoreBuild): Float32Array {
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const character = createCylinder({ joints: 24 });
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const skin = new SkinAsset(skeleton, character.skin);
  const entities = Array.from({ length: 12 }, (_, i) => {
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    playClip(world, eid, swing(1 + (i % 20)), { time: i * 0.11, speed: 1 + i / 8 });
    return eid;
  });
  return runFrames(world, entities, true);
}

/** `bytes` parsed with `parseGltf` on `build`, every skinned skeleton playing its first clip. */
export async function gltf(
  build: CoreBuild,
  bytes: Uint8Array,
  name: string,
): Promise<Float32Array> {
  const model = await parseGltf(bytes, { name });
  const core = Core.create(build);
  const world = createWorld();
  createAnimation(world, { core });
  const entities: number[] = [];
  for (const gltfSkeleton of model.skeletons) {
    if (gltfSkeleton.primitives.length === 0) continue;
    const { skeleton, skin } = createCharacterAssets(gltfSkeleton, core);
    for (let i = 0; i < 3; i++) {
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin, { normals: skin.hasNormals, tangents: false });
      const clip = gltfSkeleton.clips[i % Math.max(1, gltfSkeleton.clips.length)];
      if (clip) playClip(world, eid, clip, { time: i * 0.37 });
      entities.push(eid);
    }
  }
  if (entities.length === 0) throw new Error(`${name}: no skinned skeleton`);
  return runFrames(world, entities, true);
}

/** What views kept across growth do on `build`, on this runtime. */
export interface ViewsReport {
  /** `core.viewsSurviveGrowth`. */
  readonly viewsSurviveGrowth: boolean;
  /** Whether a view made before the memory grew still reads what was written. */
  readonly keptViewReads: boolean;
  /** Whether a write through that kept view reaches the buffer. */
  readonly keptViewWrites: boolean;
  /** The same two, with `reserveBytes` covering every allocation: must both be true. */
  readonly reservedViewReads: boolean;
  readonly reservedViewWrites: boolean;
  /** Whether the memory grew in the reserved run (must be false). */
  readonly reservedGrew: boolean;
}

/** Keeps a view, allocates 4.8 MB (forcing growth unless reserved), then uses the view. */
function keepViewAcrossAllocations(core: Core): { reads: boolean; writes: boolean; grew: boolean } {
  const buffer = new MatrixBuffer(2, core);
  const kept = buffer.array;
  kept.fill(7);
  const before = core.byteLength;
  const filler = new MatrixBuffer(100_000, core); // 4.8 MB
  const grew = core.byteLength !== before;
  const reads = kept.length === 24 && kept[3] === 7;
  kept[5] = 9;
  const writes = buffer.array[5] === 9;
  filler.free();
  buffer.free();
  return { reads, writes, grew };
}

/** {@linkcode ViewsReport} for `build`. */
export function views(build: CoreBuild): ViewsReport {
  const plain = Core.create(build);
  const grown = keepViewAcrossAllocations(plain);
  if (!grown.grew) throw new Error(`${build}: the unreserved core did not grow`);
  const reserved = keepViewAcrossAllocations(Core.create(build, { reserveBytes: 8 << 20 }));
  return {
    viewsSurviveGrowth: plain.viewsSurviveGrowth,
    keptViewReads: grown.reads,
    keptViewWrites: grown.writes,
    reservedViewReads: reserved.reads,
    reservedViewWrites: reserved.writes,
    reservedGrew: reserved.grew,
  };
}
