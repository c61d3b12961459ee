/**
 * The harness of the model-based ECS test: a world on one core with three
 * kinds of character, the model of what each entity has, the independent
 * expectation of skinned output, and memory snapshots.
 *
 * @module
 */

import { assert, assertEquals } from "@std/assert";
import { createWorld } from "bitecs";
import {
  type AnimationComponents,
  type Clip,
  createAnimation,
  getModelMatrices,
  getPose,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
  SkeletonAsset,
  SkinAsset,
  type SkinDefinition,
} from "../mod.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import * as ref from "../simd/scalar/mod.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { type ChainJob, solveReferenceIK } from "./_ik.ts";
import { skeletonInternals, skinInternals } from "../animation/_asset_internals.ts";

/** One kind of character: its assets and what its skin streams. */
export interface Kind {
  readonly skeleton: SkeletonAsset;
  readonly skin: SkinAsset;
  readonly meshes: readonly SkinDefinition[];
  readonly normals: boolean;
  readonly clips: readonly Clip[];
}

/** What the model says an entity has. */
export interface EntityModel {
  kind?: number;
  pose: boolean;
  matrices: boolean;
  skin: boolean;
  player: boolean;
  /** IK chains with a target, in order. */
  ik: ChainJob[];
  /** Whether it has a LevelOfDetail (animated and skinned on some frames only). */
  lod?: boolean;
}

/** The system under test and the model of it. */
export interface Harness {
  readonly core: Core;
  readonly world: object;
  readonly components: AnimationComponents;
  readonly kinds: readonly Kind[];
  readonly disposed: boolean[];
  readonly entities: Map<number, EntityModel>;
  /** Calls made, for the count the issue asks for. */
  calls: number;
}

function turn(joint: number, name: string, keys: number): Clip {
  const times = Float32Array.from({ length: keys }, (_, k) => k / (keys - 1));
  const values = new Float32Array(keys * 4);
  for (let k = 0; k < keys; k++) {
    const angle = k * 0.7;
    values.set([Math.sin(angle / 2), 0, 0, Math.cos(angle / 2)], k * 4);
  }
  return {
    name,
    animation: 0,
    start: 0,
    duration: 1,
    channels: [{ joint, path: "rotation", interpolation: "LINEAR", times, values, node: joint }],
  };
}

/**
 * A motion capture's shape: every channel keyed at the same 30 times (each
 * its own copy, as exporters write them), rotations turning, translations
 * and scales keyed but still. The compact
 * build lays it out on one shared timeline (`sharedTimeline`), so that the
 * programs run both layouts.
 */
function capture(joints: number, name: string): Clip {
  const times = () => Float32Array.from({ length: 30 }, (_, k) => k / 29);
  const channel = (
    joint: number,
    path: "translation" | "rotation" | "scale",
    values: number[],
  ) => ({
    joint,
    path,
    interpolation: "LINEAR" as const,
    times: times(),
    values: Float32Array.from(values),
    node: joint,
  });
  const still = (v: number) => new Array<number>(30 * 3).fill(v);
  const channels = [];
  for (let joint = 0; joint < joints; joint++) {
    const rotation = Array.from({ length: 30 }, (_, k) => {
      const half = Math.sin(k * 0.2 + joint) * 0.3;
      return [0, Math.sin(half), 0, Math.cos(half)];
    }).flat();
    channels.push(
      channel(joint, "rotation", rotation),
      channel(joint, "translation", still(0)),
      channel(joint, "scale", still(1)),
    );
  }
  return { name, animation: 0, start: 0, duration: 1, channels };
}

/** The kinds of character of a harness: cylinders, their parts' shapes. */
const SHAPES = [
  { parts: [{ joints: 5, segments: 4, rings: 3, influences: 4 }], normals: false },
  { parts: [{ joints: 9, segments: 5, rings: 4, influences: 2 }], normals: true },
  {
    parts: [
      { joints: 6, segments: 3, rings: 3, influences: 3 },
      { joints: 6, segments: 4, rings: 2, influences: 1 },
    ],
    normals: true,
  },
  // Positions of two influences on scrambled joint pairs: no runs of a
  // pair, so the kernel skins them from the palette transposed into the
  // entity's scratch (at least four such vertices per joint).
  {
    parts: [{ joints: 12, segments: 8, rings: 10, influences: 2 }],
    normals: false,
    scramble: true,
  },
];

/** Kinds of character in a harness. */
export const KIND_COUNT = SHAPES.length;

/**
 * Replaces each two-influence vertex's joints by a pair of distinct joints
 * of `jointCount` that varies from vertex to vertex (deterministic).
 */
function scramblePairs(joints: Uint16Array, jointCount: number): void {
  for (let v = 0; v < joints.length / 2; v++) {
    const a = (v * 7) % jointCount;
    joints[2 * v] = a;
    joints[2 * v + 1] = (a + 1 + (v * v * 13 + v) % (jointCount - 1)) % jointCount;
  }
}

/** A world on a fresh core of `build` with the {@linkcode KIND_COUNT} kinds. */
export function createHarness(build: CoreBuild): Harness {
  const core = Core.create(build);
  const world = createWorld();
  const components = createAnimation(world, { core });
  const kinds = SHAPES.map(({ parts, normals, scramble }) => {
    const cylinders = parts.map((p) => createCylinder(p));
    if (scramble) cylinders.forEach((c) => scramblePairs(c.skin.joints, c.skeleton.parents.length));
    const skeleton = new SkeletonAsset(cylinders[0].skeleton, core);
    const meshes = cylinders.map((c) => c.skin);
    const skin = new SkinAsset(skeleton, meshes.length === 1 ? meshes[0] : meshes);
    const n = skeleton.jointCount;
    return { skeleton, skin, meshes, normals, clips: [turn(1, "a", 3), capture(n, "b")] };
  });
  return {
    core,
    world,
    components,
    kinds,
    disposed: kinds.map(() => false),
    entities: new Map(),
    calls: 0,
  };
}

/**
 * Skinned positions and normals of `kind` for `pose`, computed vertex by
 * vertex from the definitions (source order mapped to output order), with
 * at most `lod` influences (the heaviest, rescaled), after the IK chains
 * `ik` (the scalar reference's solver).
 */
export function expectedSkin(
  kind: Kind,
  pose: Float32Array,
  lod: number,
  ik: readonly ChainJob[] = [],
): {
  positions: Float64Array;
  normals: Float64Array;
} {
  const n = kind.skeleton.jointCount;
  const local = new Float32Array(n * MATRIX_FLOATS), model = new Float32Array(n * MATRIX_FLOATS);
  const palette = new Float32Array(n * MATRIX_FLOATS);
  ref.quatToMat(pose, local, n);
  ref.localToModel(local, model, kind.skeleton.parentIndices, 0, n - 1);
  if (ik.length) solveReferenceIK(local, model, kind.skeleton.parentIndices, ik);
  ref.multiplyMatrices(model, kind.skeleton.inverseBind, palette, n);
  const total = kind.skin.vertexCount;
  const positions = new Float64Array(total * 4), normals = new Float64Array(total * 4);
  let first = 0;
  for (const mesh of kind.meshes) {
    for (let v = 0, k = 0; v < mesh.vertexCount; k += mesh.influenceCounts[v], v++) {
      const list = Array.from(
        { length: mesh.influenceCounts[v] },
        (_, i) => [mesh.joints[k + i], mesh.weights[k + i]],
      ).sort((a, b) => b[1] - a[1]).slice(0, lod);
      const sum = list.reduce((s, [, w]) => s + w, 0);
      const out = kind.skin.outputIndex[first + v] * 4;
      for (const [j, w] of list) {
        const m = j * MATRIX_FLOATS;
        for (let r = 0; r < 3; r++) {
          const row = palette.subarray(m + r * 4, m + r * 4 + 4);
          const p = mesh.positions, q = mesh.normals;
          positions[out + r] += (w / sum) *
            (row[0] * p[v * 4] + row[1] * p[v * 4 + 1] + row[2] * p[v * 4 + 2] + row[3]);
          if (q) {
            normals[out + r] += (w / sum) *
              (row[0] * q[v * 4] + row[1] * q[v * 4 + 1] + row[2] * q[v * 4 + 2]);
          }
        }
      }
      positions[out + 3] = 1;
    }
    first += mesh.vertexCount;
  }
  return { positions, normals };
}

/** Every block of the core's memory an entity owns, by entity. */
export function entityBlocks(h: Harness): Map<number, number[]> {
  const { JointQuat, JointMat, Skin } = h.components;
  const blocks = new Map<number, number[]>();
  for (const [eid, m] of h.entities) {
    const list: number[] = [];
    if (m.pose) list.push(JointQuat.byteOffset[eid]);
    if (m.matrices) list.push(JointMat.modelByteOffset[eid]);
    if (m.skin) list.push(Skin.positionsByteOffset[eid]);
    blocks.set(eid, list);
  }
  return blocks;
}

/** The bytes of `blocks` (and of every live asset's immutable blocks). */
export function snapshot(h: Harness, entities: Iterable<number>): Map<string, Uint8Array> {
  const memory = coreMemory(h.core).views();
  const bytes = new Map<string, Uint8Array>();
  const take = (key: string, ptr: number) => {
    const size = memory.sizeOf(ptr);
    assert(size !== undefined, `${key}: block ${ptr} is not allocated`);
    bytes.set(key, memory.u8.slice(ptr, ptr + size));
  };
  const blocks = entityBlocks(h);
  for (const eid of entities) {
    for (const ptr of blocks.get(eid) ?? []) take(`entity ${eid} @${ptr}`, ptr);
  }
  h.kinds.forEach((kind, i) => {
    if (kind.skeleton.disposed || kind.skin.disposed) return;
    take(`kind ${i} parents`, skeletonInternals(kind.skeleton).parentsByteOffset);
    take(`kind ${i} inverse bind`, skeletonInternals(kind.skeleton).inverseBindByteOffset);
    take(`kind ${i} mesh`, skinInternals(kind.skin).mesh.byteOffset);
  });
  return bytes;
}

/** Throws naming the first snapshot entry that changed. */
export function assertUnchanged(before: Map<string, Uint8Array>, after: Map<string, Uint8Array>) {
  for (const [key, bytes] of before) {
    const now = after.get(key);
    assert(now !== undefined, `${key}: no longer allocated`);
    for (let i = 0; i < bytes.length; i++) {
      if (bytes[i] !== now[i]) throw new Error(`${key}: byte ${i} changed`);
    }
  }
}

/**
 * What entity `eid` of `h` publishes, copied: its pose, model matrices,
 * palette and skinned streams (those it has), for the fault programs'
 * comparison with a control world.
 */
export function published(h: Harness, eid: number): Float32Array[] {
  const m = h.entities.get(eid)!, out: Float32Array[] = [];
  if (m.pose) out.push(getPose(h.world, eid).slice());
  if (m.matrices) {
    out.push(getModelMatrices(h.world, eid).slice(), getSkinningPalette(h.world, eid).slice());
  }
  if (m.skin) {
    out.push(getSkinnedPositions(h.world, eid).slice());
    const normals = getSkinnedNormals(h.world, eid);
    if (normals) out.push(normals.slice());
  }
  return out;
}

/** A component, by name, in the model. */
export type Name = "Skeleton" | "JointQuat" | "JointMat" | "Skin" | "ClipPlayer" | "IK";
export const NAMES: Name[] = ["Skeleton", "JointQuat", "JointMat", "Skin", "ClipPlayer", "IK"];

/** Removes `name` from the model with everything that needs it. */
export function dropFromModel(m: EntityModel, name: Name): void {
  if (name === "Skeleton") {
    m.kind = undefined, m.lod = false;
    dropFromModel(m, "JointQuat"), dropFromModel(m, "JointMat");
  }
  if (name === "JointQuat") m.pose = false, m.player = false;
  if (name === "JointMat") m.matrices = false, m.skin = false, m.ik = [];
  if (name === "IK") m.ik = [];
  if (name === "Skin") m.skin = false;
  if (name === "ClipPlayer") m.player = false;
}

export function has(m: EntityModel, name: Name): boolean {
  return name === "Skeleton"
    ? m.kind !== undefined
    : name === "JointQuat"
    ? m.pose
    : name === "JointMat"
    ? m.matrices
    : name === "Skin"
    ? m.skin
    : name === "IK"
    ? m.ik.length > 0
    : m.player;
}

/** What the programs checked, for their closing line. */
export const checked = { frames: 0, skins: 0, ik: 0, failures: 0 };

/** Runs `call`, which the model says must fail: a typed error naming `eid`. */
export function expectFailure(h: Harness, call: () => unknown, eid?: number): void {
  checked.failures++;
  if (!attempt(h, call, eid)) throw new Error("the model expected this call to fail");
}

/**
 * Runs `run`, which may succeed or be refused; whether it was refused.
 * Refused, it threw a typed error naming `eid` and holds nothing of the
 * core's memory.
 */
export function attempt(h: Harness, run: () => unknown, eid?: number): boolean {
  h.calls++;
  const memory = coreMemory(h.core), allocated = memory.allocatedBytes;
  try {
    run();
    return false;
  } catch (error) {
    assert(!(error instanceof WebAssembly.RuntimeError), `a RuntimeError: ${error}`);
    assert(error instanceof TypeError || error instanceof RangeError, `untyped: ${error}`);
    if (eid !== undefined) {
      assert((error as Error).message.includes(`entity ${eid}`), (error as Error).message);
    }
    assertEquals(memory.allocatedBytes, allocated, `core bytes after the refused call (${error})`);
    return true;
  }
}

export function call(h: Harness, run: () => unknown): void {
  h.calls++;
  run();
}
