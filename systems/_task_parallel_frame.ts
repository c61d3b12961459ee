/**
 * The task-parallel frame (`createAnimationPipeline({ taskParallel: true })`):
 * the worker threads skin the previous frame from a snapshot of its
 * palettes while the calling thread does this frame's joint work
 * (`_task_parallel.ts` says how the two overlap and join).
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
 * Everything a frame uses is kept per world and rewritten (the copies'
 * records, the lists, the steps and their closures): a frame allocates
 * nothing.
 *
 * @module
 */

import type { JobTable } from "../components/internal.ts";
import type { WorldState } from "../components/registry.ts";
import type { SkeletonAsset } from "../animation/skeleton_asset.ts";
import type { SkinAsset } from "../animation/skin_asset.ts";
import { checkedMatrices } from "../components/joint_mat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { MAX_INFLUENCES } from "../simd/memory/internal.ts";
import { MATRIX_FLOATS } from "../simd/memory/layout.ts";
import { COPY_BYTES, COPY_FROM, COPY_TO, JOB_WORDS } from "../simd/abi.ts";
import { DUAL_QUATERNION_FLOATS } from "../simd/kernels/internal.ts";
import {
  type PaletteSource,
  runSkinCall,
  selectSkinned,
  type SkinJobs,
  type SkinSystemOptions,
  writeSkinJobs,
} from "./skin.ts";
import { toDualQuaternions } from "./_dual_palettes.ts";
import { type FrameSteps, type Join, SkinOverlap } from "./_task_parallel.ts";
import { CULLED, entityList, NOT_SKINNED } from "./_lod.ts";

/** One entity's copy of its palette, and what it was taken for; rewritten in place. */
interface Copy {
  skeleton: SkeletonAsset | undefined;
  skin: SkinAsset | undefined;
  matrices: number;
  skinBlock: number;
  generation: number;
  /** Byte offset of the copy in the snapshot table. */
  at: number;
  /** The snapshot's stamp when taken: a copy of an older one is not in it. */
  stamp: number;
}

/**
 * A job table's snapshot: the pipeline that took it (undefined: none) and
 * each entity's copy, by entity, those of its current stamp.
 */
interface Snapshot {
  owner: object | undefined;
  stamp: number;
  readonly copies: (Copy | undefined)[];
}

/** The snapshot tables' names, made once: a new string a frame would be hashed at each lookup. */
const SNAPSHOT_TABLES = ["animate: palette snapshot 0", "animate: palette snapshot 1"] as const;
/**
 * The snapshot's copies, a row per linear palette, made by one core call: a
 * copy per entity through a typed array of the shared memory was a sixth of
 * the calling thread's task-parallel frame in a crowd.
 */
const SNAPSHOT_COPIES = "animate: palette snapshot copies";
const snapshots = new WeakMap<JobTable, Snapshot>();

function snapshotOf(table: JobTable): Snapshot {
  let snapshot = snapshots.get(table);
  if (!snapshot) snapshots.set(table, snapshot = { owner: undefined, stamp: 0, copies: [] });
  return snapshot;
}

/** Entity `eid`'s copy in `snapshot`, if it holds one. */
function copyIn(snapshot: Snapshot | undefined, eid: number): Copy | undefined {
  const copy = snapshot?.copies[eid];
  return copy !== undefined && copy.stamp === snapshot!.stamp ? copy : undefined;
}

/** Whether `copy` is still entity `eid`'s palette's (same records, no release since). */
function holds(state: WorldState, eid: number, copy: Copy | undefined): boolean {
  const o = state.owned;
  return copy !== undefined && o.skeleton[eid] === copy.skeleton && o.skin[eid] === copy.skin &&
    o.matrices[eid] === copy.matrices && o.skinBlock[eid] === copy.skinBlock &&
    o.generation[eid] === copy.generation;
}

/** Entities per level of detail, then where each starts: the snapshot's counting sort. */
const lodCounts = new Uint32Array(MAX_INFLUENCES + 2);
const sorted: number[] = [];

/**
 * Takes the snapshot of `lists`' palettes into `table` (`snapshot`, its
 * owner left unset), right after the joint work: the
 * multiply-inverse-bind system has just checked them (a `PoseError` there
 * leaves no snapshot). Dual quaternions are converted here: a
 * `DualQuaternionError` with the single-threaded frame's message, and then
 * no snapshot.
 */
function takeSnapshot(
  state: WorldState,
  table: JobTable,
  snapshot: Snapshot,
  lists: readonly number[][],
  options: SkinSystemOptions,
): void {
  const o = state.owned, lods = state.components.Skin.maxInfluences;
  let words = 0, entities = 0;
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l];
    entities += list.length;
    for (let i = 0; i < list.length; i++) {
      const eid = list[i], dual = o.skin[eid]!.method === "dual-quaternion";
      words += (o.skeleton[eid]?.jointCount ?? 0) *
        (dual ? DUAL_QUATERNION_FLOATS : MATRIX_FLOATS);
    }
  }
  table.begin(words, 1);
  const copyRows = state.jobs(SNAPSHOT_COPIES);
  copyRows.begin(entities, JOB_WORDS);
  const rows = copyRows.staging(entities * JOB_WORDS);
  let copied = 0;
  const stamp = snapshot.stamp = snapshot.stamp % 0x3fff_ffff + 1;
  const copies = snapshot.copies;
  const cap = options.maxInfluences ?? MAX_INFLUENCES;
  let at = table.ptr;
  for (let l = 0; l < lists.length; l++) {
    const list = lists[l];
    // Dual quaternions are converted in the order the skinning system does
    // (by level of detail, stably): the first bad one is the same entity.
    lodCounts.fill(0);
    for (let i = 0; i < list.length; i++) lodCounts[lodOf(cap, lods, list[i]) + 1]++;
    for (let k = 1; k < lodCounts.length; k++) lodCounts[k] += lodCounts[k - 1];
    for (let i = 0; i < list.length; i++) sorted[lodCounts[lodOf(cap, lods, list[i])]++] = list[i];
    for (let i = 0; i < list.length; i++) {
      const eid = sorted[i];
      let n = 0;
      try {
        n = checkedSkeleton(state, eid).jointCount;
        const palette = checkedMatrices(state, eid, n) + n * MATRIX_FLOATS * 4;
        if (o.skin[eid]!.method === "dual-quaternion") {
          toDualQuaternions(state, eid, palette, n, at);
        } else {
          const row = copied++ * JOB_WORDS;
          rows[row + COPY_FROM] = palette, rows[row + COPY_TO] = at;
          rows[row + COPY_BYTES] = n * MATRIX_FLOATS * 4;
        }
      } catch (error) {
        // Isolated: not in the snapshot, so not skinned (its output stays).
        state.faults.isolate(eid, "animate", error);
        continue;
      }
      const copy = copies[eid] ??= {
        skeleton: undefined,
        skin: undefined,
        matrices: 0,
        skinBlock: 0,
        generation: 0,
        at: 0,
        stamp: 0,
      };
      copy.skeleton = o.skeleton[eid], copy.skin = o.skin[eid], copy.matrices = o.matrices[eid];
      copy.skinBlock = o.skinBlock[eid], copy.generation = o.generation[eid];
      copy.at = at, copy.stamp = stamp;
      at += n *
        (o.skin[eid]!.method === "dual-quaternion" ? DUAL_QUATERNION_FLOATS : MATRIX_FLOATS) * 4;
    }
  }
  copyRows.commit(copied * JOB_WORDS);
  if (copied > 0) state.kernels.copyBlocksBatch(copyRows.ptr, copied);
}

/** An entity's level of detail, as the skinning system sorts by it. */
function lodOf(cap: number, lods: Uint8Array, eid: number): number {
  return Math.min(cap, lods[eid] || MAX_INFLUENCES);
}

/**
 * One task-parallel frame of pipeline `owner` on `world`: skins what the
 * snapshot holds (the previous frame) on the workers while this thread
 * runs `joints` (this frame's joint work), takes the new snapshot into the
 * world's other snapshot table, and skins from it the entities the old one
 * did not hold (new, changed, or every one on a first frame); then joins.
 * An error leaves no snapshot: the next frame starts over like a first.
 * The steps are the world's, rewritten by each frame (one frame at a time
 * runs on a core): run them before the next frame on the world starts.
 */
export function taskParallelFrame(
  world: object,
  state: WorldState,
  owner: object,
  options: SkinSystemOptions,
  joints: () => void,
): FrameSteps {
  return TaskParallelSteps.of(state).reset(world, owner, options, joints);
}

const NOT_STARTED = 0, JOINING = 1, DONE = 2;

/** {@linkcode taskParallelFrame}'s steps: one object per world, its lists and closures kept. */
class TaskParallelSteps implements FrameSteps {
  static #all = new WeakMap<WorldState, TaskParallelSteps>();
  readonly #state: WorldState;
  readonly #overlap: SkinOverlap;
  #world: object = {};
  #owner: object = {};
  #options: SkinSystemOptions = {};
  #joints: () => void = () => {};
  #phase = DONE;
  readonly #lists: number[][] = [[], []];
  /** The entities of `#lists` whose palettes this frame's snapshot takes (level of detail). */
  readonly #snapped: number[][] = [entityList(), entityList()];
  // Lists of entities, whose lengths rise and fall with levels of detail.
  readonly #previous: number[] = entityList();
  readonly #fresh: number[] = entityList();
  /**
   * Per entity, the call that last listed it (of `#calls`): an entity the
   * held snapshot does not hold waits for its copy only when the call
   * before listed it (its level of detail skipped its skinning). A frame on
   * a subset may have left it out, and the next one again: it waited for
   * ever in a game that alternates halves of its crowd.
   */
  #listedAt = new Uint32Array(0);
  #calls = 0;
  #held: Snapshot | undefined;
  #next: Snapshot | undefined;
  #nextTable: JobTable | undefined;
  #jobs: SkinJobs | undefined;
  readonly #during = () => this.#runDuring();
  readonly #heldPalettes: PaletteSource = { at: (eid) => copyIn(this.#held, eid)!.at };
  readonly #nextPalettes: PaletteSource = { at: (eid) => copyIn(this.#next, eid)!.at };
  readonly #joining: { done: false; value: Join } = { done: false, value: undefined! };
  readonly #done: { done: true; value: void } = { done: true, value: undefined };

  private constructor(state: WorldState) {
    this.#state = state;
    this.#overlap = SkinOverlap.of(state);
  }

  static of(state: WorldState): TaskParallelSteps {
    let steps = TaskParallelSteps.#all.get(state);
    if (!steps) TaskParallelSteps.#all.set(state, steps = new TaskParallelSteps(state));
    return steps;
  }

  reset(world: object, owner: object, options: SkinSystemOptions, joints: () => void): this {
    this.#world = world, this.#owner = owner, this.#options = options, this.#joints = joints;
    this.#phase = NOT_STARTED;
    return this;
  }

  next(): IteratorResult<Join, void> {
    const phase = this.#phase;
    this.#phase = DONE;
    if (phase === NOT_STARTED) {
      const join = this.#start();
      if (!join) return this.#done;
      this.#phase = JOINING;
      this.#joining.value = join;
      return this.#joining;
    }
    if (phase === JOINING) this.#finish();
    return this.#done;
  }

  throw(error: unknown): IteratorResult<Join, void> {
    const phase = this.#phase;
    this.#phase = DONE;
    if (phase !== JOINING) throw error;
    this.#overlap.fail(error);
    this.#finish();
    return this.#done;
  }

  /** Up to the join: undefined when the frame is over. */
  #start(): Join | undefined {
    const state = this.#state, options = this.#options, lists = this.#lists;
    lists[0] = selectSkinned(this.#world, state, "skinSystem", options, false);
    lists[1] = selectSkinned(this.#world, state, "skinWithTangentsSystem", options, true);
    const first = state.jobs(SNAPSHOT_TABLES[0]), second = state.jobs(SNAPSHOT_TABLES[1]);
    const zero = snapshotOf(first), one = snapshotOf(second);
    const current = one.owner !== undefined ? one : zero;
    this.#held = current.owner === this.#owner ? current : undefined;
    this.#next = current === one ? zero : one;
    this.#nextTable = current === one ? first : second;
    zero.owner = one.owner = undefined;
    const previous = this.#previous, fresh = this.#fresh, skips = state.owned.lodSkip;
    const lodStates = state.owned.lodState, call = ++this.#calls;
    // Made again, zeros, when the world grows: its entities wait for no copy once.
    const listedAt = this.#listedAt.length < lodStates.length
      ? this.#listedAt = new Uint32Array(lodStates.length)
      : this.#listedAt;
    let p = 0, f = 0;
    for (let l = 0; l < lists.length; l++) {
      const list = lists[l], snapped = this.#snapped[l];
      let s = 0;
      for (let i = 0; i < list.length; i++) {
        const eid = list[i], skip = skips[eid];
        // Level of detail: the snapshot takes the palettes the frame would skin,
        // the overlap skins the last snapshot's but those culled now, and an
        // entity skinned before from palettes it still has waits for its copy.
        if ((skip & NOT_SKINNED) === 0) snapped[s++] = eid;
        if (holds(state, eid, copyIn(this.#held, eid))) {
          if ((skip & CULLED) === 0) previous[p++] = eid;
        } else if (
          (skip & NOT_SKINNED) === 0 &&
          (this.#held === undefined || lodStates[eid] === 0 || listedAt[eid] !== call - 1 ||
            !(holds(state, eid, zero.copies[eid]) || holds(state, eid, one.copies[eid])))
        ) fresh[f++] = eid;
        listedAt[eid] = call;
      }
      if (snapped.length !== s) snapped.length = s;
    }
    // Written over, then cut: `length = 0` and pushes would reallocate their stores every frame.
    if (previous.length !== p) previous.length = p;
    if (fresh.length !== f) fresh.length = f;
    if (p === 0) {
      this.#runDuring();
      return undefined;
    }
    const jobs = this.#jobs = writeSkinJobs(
      state,
      "animate",
      previous,
      options,
      this.#heldPalettes,
    );
    let join: Join | undefined;
    try {
      join = this.#overlap.start(state, jobs.calls, this.#during);
    } catch (error) {
      this.#failed(jobs);
      throw error;
    }
    if (!join) jobs.publish();
    return join;
  }

  /** After the join. */
  #finish(): void {
    const jobs = this.#jobs!;
    try {
      this.#overlap.end();
    } catch (error) {
      this.#failed(jobs);
      throw error;
    }
    jobs.publish();
  }

  /**
   * The previous frame's skinning completed (unless a worker trapped): its
   * bounds go with the positions it wrote; no snapshot is left.
   */
  #failed(jobs: SkinJobs): void {
    this.#next!.owner = undefined;
    jobs.publish();
  }

  /** This frame's joints, its snapshot, and the skinning of the entities the old one did not hold. */
  #runDuring(): void {
    const state = this.#state, next = this.#next!, fresh = this.#fresh;
    this.#joints();
    takeSnapshot(state, this.#nextTable!, next, this.#snapped, this.#options);
    // A fresh entity left out of the snapshot (isolated) is not skinned.
    let kept = 0;
    for (let i = 0; i < fresh.length; i++) {
      if (copyIn(next, fresh[i]) !== undefined) fresh[kept++] = fresh[i];
    }
    if (fresh.length !== kept) fresh.length = kept;
    if (kept > 0) {
      const jobs = writeSkinJobs(state, "animate: new", fresh, this.#options, this.#nextPalettes);
      for (let c = 0; c < jobs.calls.length; c++) runSkinCall(state, jobs.calls[c]);
      jobs.publish();
    }
    next.owner = this.#owner;
  }
}
