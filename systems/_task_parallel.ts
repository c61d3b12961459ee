/**
 * Paper 003's task parallelism: the worker threads skin the previous
 * frame from a snapshot of its palettes while the calling thread does this
 * frame's joint work (sampling, quat→mat, transform skeleton, IK, inverse
 * bind), then claims what is left of the skinning's chunks and joins.
 * One synchronisation per frame.
 *
 * The snapshot (each entity's palette, or its dual quaternions, as the
 * skinning reads them) lives in one of two job tables of the world, each
 * as big as one frame's palettes, released with the world (reset,
 * delete). Its owner is the pipeline that wrote it last; each entity's
 * copy is used only while the entity keeps the skeleton, joint matrices,
 * skin and generation it had when the copy was taken. During the overlap
 * the workers read only last frame's table; the calling thread writes the
 * live palettes and then this frame's copies into the other table. After
 * the join nothing but the bounds is written: an awaited join lets the
 * game run, and change the world, before the frame settles.
 *
 * The frame is a generator that yields where it waits for the workers, so
 * that one body serves the blocking call and the awaitable one.
 *
 * @module
 */

import type { JobTable } from "../components/internal.ts";
import type { WorldState } from "../components/internal.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { MAX_INFLUENCES } from "../simd/memory/internal.ts";
import { JOB_WORDS } from "../simd/abi.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { DUAL_QUATERNION_FLOATS } from "../simd/kernels/internal.ts";
import {
  BATCH_NAMES,
  type BatchName,
  chunkBounds,
  ROW_COSTS,
  sharesOf,
  threadsOf,
} from "../simd/pool/internal.ts";
import type { Share, ThreadPool } from "../simd/pool/internal.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import {
  runSkinCall,
  selectSkinned,
  type SkinCall,
  type SkinSystemOptions,
  writeSkinJobs,
} from "./skin.ts";
import { toDualQuaternions } from "./_dual_palettes.ts";

/** A wait for the workers: the pool's task and the shares it handed out. */
interface Join {
  readonly pool: ThreadPool;
  readonly shares: readonly Share[];
}

/** A frame's steps; each yield is a {@linkcode Join} its driver completes. */
export type FrameSteps = Generator<Join, void, void>;

/** Runs `steps`, blocking at each join. */
export function runBlocking(steps: FrameSteps): void {
  let step = steps.next();
  while (!step.done) {
    try {
      step.value.pool.finish(step.value.shares);
    } catch (error) {
      step = steps.throw(error);
      continue;
    }
    step = steps.next();
  }
}

/**
 * Runs `steps`, awaiting each join (`Atomics.waitAsync`; a spin where the
 * runtime lacks it). Until it settles, blocks freed in `memory` stay
 * allocated: the game runs during the awaits, and a worker may still be
 * writing to an entity's output when the game removes the entity.
 */
export async function runAwaiting(steps: FrameSteps, memory: CoreMemory): Promise<void> {
  memory.holdFrees();
  awaiting.add(memory);
  try {
    let step = steps.next();
    while (!step.done) {
      try {
        await step.value.pool.finishAsync(step.value.shares);
      } catch (error) {
        step = steps.throw(error);
        continue;
      }
      step = steps.next();
    }
  } finally {
    awaiting.delete(memory);
    memory.releaseHeld();
  }
}

/** The memories of cores with a frame awaiting (from its start until it settles). */
const awaiting = new WeakSet<CoreMemory>();

/** Refuses a frame while an awaitable frame on the same core has not settled. */
export function checkIdle(state: WorldState, caller: string): void {
  if (awaiting.has(state.resources.memory)) {
    throw new Error(
      `${caller}: a frame is still running on this core (await animate.async's promise first)`,
    );
  }
}

/**
 * Runs `calls` (skinning batch calls) while the calling thread runs
 * `during`: the biggest call is cut into chunks the workers claim at
 * once and the calling thread claims too once its other work (the other
 * calls, unsplit, and `during`) is done, and joined once. Every row is
 * skinned even when `during` throws; its error is thrown after the join,
 * before a worker's. After the join nothing is touched: an awaited join
 * lets the game change the world. Without threads, the
 * calls run, then `during`: the same writes.
 */
export function* skinWhile(
  state: WorldState,
  calls: readonly SkinCall[],
  during: () => void,
): FrameSteps {
  const split = threadsOf(state.kernels);
  if (!split || calls.length === 0) {
    for (const call of calls) runSkinCall(state, call);
    during();
    return;
  }
  const u32 = state.memory.u32;
  const costsOf = (call: SkinCall) =>
    Array.from(
      { length: call.count },
      (_, i) =>
        ROW_COSTS[nameOf(call)](u32, (call.jobs >> 2) + i * JOB_WORDS, [call.maxInfluences]),
    );
  const costs = calls.map(costsOf);
  const total = (row: number[]) => row.reduce((sum, cost) => sum + cost, 0);
  let main = 0;
  for (let c = 1; c < calls.length; c++) if (total(costs[c]) > total(costs[main])) main = c;
  const call = calls[main], name = nameOf(call);
  // The calling thread claims chunks once its other work is done: by then
  // the workers have taken as many as that work was worth.
  const bounds = chunkBounds(costs[main], split.pool.maxChunks);
  const shares = sharesOf(name, bounds, call.jobs, [call.maxInfluences, call.bounds]);
  split.pool.start(BATCH_NAMES.indexOf(name), shares);
  let error: unknown, threw = false;
  const fail = (e: unknown) => {
    if (!threw) [error, threw] = [e, true];
  };
  try {
    // The pool is busy: these run on this thread alone.
    for (let c = 0; c < calls.length; c++) if (c !== main) runSkinCall(state, calls[c]);
    during();
  } catch (e) {
    fail(e);
  }
  split.pool.claim(shares, split.serial[name] as (...args: number[]) => number);
  try {
    yield { pool: split.pool, shares };
  } catch (e) {
    fail(e);
  }
  if (threw) throw error;
}

const nameOf = (call: SkinCall): BatchName =>
  call.dual ? "skinDualQuaternionsBatch" : "skinVerticesBatch";

/** One entity's copy of its palette, and what it was taken for. */
interface Copy {
  readonly skeleton: SkeletonAsset | undefined;
  readonly skin: SkinAsset | undefined;
  readonly matrices: number;
  readonly skinBlock: number;
  readonly generation: number;
  /** Byte offset of the copy in the snapshot table. */
  readonly at: number;
}

/** A world's snapshot: the pipeline that took it and each entity's copy. */
interface Snapshot {
  readonly owner: object;
  readonly copies: Map<number, Copy>;
}

const SNAPSHOT = "animate: palette snapshot";
const snapshots = new WeakMap<JobTable, Snapshot>();

/** Whether `copy` is still entity `eid`'s palette's (same records, no release since). */
function holds(state: WorldState, eid: number, copy: Copy | undefined): copy is Copy {
  const o = state.owned;
  return copy !== undefined && o.skeleton[eid] === copy.skeleton && o.skin[eid] === copy.skin &&
    o.matrices[eid] === copy.matrices && o.skinBlock[eid] === copy.skinBlock &&
    o.generation[eid] === copy.generation;
}

/**
 * Takes the snapshot of `lists`' palettes, right after the joint work: the
 * multiply-inverse-bind system has just checked them (a `PoseError` there
 * leaves no snapshot). Dual quaternions are converted here: a
 * `DualQuaternionError` with the single-threaded frame's message, and then
 * no snapshot.
 */
function takeSnapshot(
  state: WorldState,
  table: JobTable,
  lists: readonly number[][],
  options: SkinSystemOptions,
): Map<number, Copy> {
  let words = 0;
  for (const list of lists) {
    for (const eid of list) {
      const dual = state.owned.skin[eid]!.method === "dual-quaternion";
      words += (state.owned.skeleton[eid]?.jointCount ?? 0) *
        (dual ? DUAL_QUATERNION_FLOATS : MATRIX_FLOATS);
    }
  }
  table.begin(words, 1);
  const copies = new Map<number, Copy>();
  const o = state.owned, store = state.components.Skin;
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  const lodOf = (eid: number) => Math.min(cap, store.maxInfluences[eid] || MAX_INFLUENCES);
  let at = table.ptr;
  for (const list of lists) {
    if (list.length === 0) continue;
    // Dual quaternions are converted in the order the skinning system does
    // (by level of detail): the first bad one is the same entity.
    for (const eid of [...list].sort((a, b) => lodOf(a) - lodOf(b))) {
      let n = 0;
      try {
        n = checkedSkeleton(state, eid).jointCount;
        const palette = checkedMatrices(state, eid, n) + n * MATRIX_FLOATS * 4;
        if (o.skin[eid]!.method === "dual-quaternion") {
          toDualQuaternions(state, eid, palette, n, at);
        } else {
          const f32 = state.memory.f32;
          f32.copyWithin(at >> 2, palette >> 2, (palette >> 2) + n * MATRIX_FLOATS);
        }
      } catch (error) {
        // Isolated: not in the snapshot, so not skinned (its output stays).
        state.faults.isolate(eid, "animate", error);
        continue;
      }
      copies.set(eid, {
        skeleton: o.skeleton[eid],
        skin: o.skin[eid],
        matrices: o.matrices[eid],
        skinBlock: o.skinBlock[eid],
        generation: o.generation[eid],
        at,
      });
      at += n *
        (o.skin[eid]!.method === "dual-quaternion" ? DUAL_QUATERNION_FLOATS : MATRIX_FLOATS) * 4;
    }
  }
  return copies;
}

/**
 * One task-parallel frame of pipeline `owner` on `world`: skins what the
 * snapshot holds (the previous frame) on the workers while this thread
 * runs `joints` (this frame's joint work), takes the new snapshot into the
 * world's other snapshot table, and skins from it the entities the old one
 * did not hold (new, changed, or every one on a first frame); then joins.
 * An error leaves no snapshot: the next frame starts over like a first.
 */
export function* taskParallelFrame(
  world: object,
  state: WorldState,
  owner: object,
  options: SkinSystemOptions,
  joints: () => void,
): FrameSteps {
  const lists = [
    selectSkinned(world, state, "skinSystem", options, false),
    selectSkinned(world, state, "skinWithTangentsSystem", options, true),
  ];
  const tables = [state.jobs(`${SNAPSHOT} 0`), state.jobs(`${SNAPSHOT} 1`)];
  const current = snapshots.has(tables[1]) ? 1 : 0, next = tables[1 - current];
  const snapshot = snapshots.get(tables[current]);
  for (const table of tables) snapshots.delete(table);
  const held = snapshot?.owner === owner ? snapshot.copies : new Map<number, Copy>();
  const previous: number[] = [], fresh: number[] = [];
  for (const list of lists) {
    for (const eid of list) (holds(state, eid, held.get(eid)) ? previous : fresh).push(eid);
  }
  const during = () => {
    joints();
    const copies = takeSnapshot(state, next, lists, options);
    // A fresh entity left out of the snapshot (isolated) is not skinned.
    for (let i = fresh.length - 1; i >= 0; i--) if (!copies.has(fresh[i])) fresh.splice(i, 1);
    if (fresh.length > 0) {
      const jobs = writeSkinJobs(
        state,
        "animate: new",
        fresh,
        options,
        { at: (eid) => copies.get(eid)!.at },
      );
      for (const call of jobs.calls) runSkinCall(state, call);
      jobs.publish();
    }
    snapshots.set(next, { owner, copies });
  };
  if (previous.length === 0) return during();
  const jobs = writeSkinJobs(state, "animate", previous, options, {
    at: (eid) => held.get(eid)!.at,
  });
  try {
    yield* skinWhile(state, jobs.calls, during);
  } catch (error) {
    // The previous frame's skinning completed (unless a worker trapped):
    // its bounds go with the positions it wrote.
    snapshots.delete(next);
    jobs.publish();
    throw error;
  }
  jobs.publish();
}
