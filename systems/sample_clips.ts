/**
 * The sample clips system: advances every ClipPlayer by the frame's time
 * and samples its clip (and, during a cross-fade, the clip it fades to,
 * blended by the fade weight) into the entity's JointQuat, in one call into
 * the core for all entities. It runs first in the frame. Fields no clip
 * animates keep the skeleton's rest pose.
 *
 * Sampling reads the clips' compact form (`animation/compact_clip.ts`)
 * through each playback's cache, four joints at a time: rotations are
 * normalized-lerped along the shorter arc between the keys around the clip
 * time, translations and scales lerped, STEP keys held; a cross-fade blends
 * the two clips' poses by the fade weight in the same core call.
 *
 * An entity with layers (`components/layers.ts`) has each layer's clips
 * sampled into the layer's pose by that same call, then the layers blended
 * into its JointQuat by a second one (`blendLayersBatch`, for all layered
 * entities at once): two core calls per frame when any entity has layers,
 * one otherwise. Each playback (of a layer, of a locomotion blend) has its
 * own sampler, whose cache it frees when its layer or player goes. The
 * system also records the markers every
 * playback crossed (`getCrossedMarkers`) and, where enabled, takes root
 * motion out of the pose (`getRootMotion`). An entity with MorphWeights
 * has its clips' morph channels sampled and blended into its weights by the
 * same rules (`_morph_layers.ts`), in TypeScript: a few floats an entity.
 *
 * @module
 */

import { anyMorphed, selectEntities } from "../components/internal.ts";
import { checkedPlayer } from "../components/clip_player.ts";
import { checkedPose } from "../components/joint_quat.ts";
import { checkedSkeleton } from "../components/skeleton.ts";
import { stateOf } from "../components/internal.ts";
import { JOB_WORDS, LAYER_ENTRY_BYTES } from "../simd/abi.ts";
import { samplePlayback, SampleRows } from "./_sample_playback.ts";
import { type LayerOutput, layerRows, PlaybackSteps, writeLayers } from "./_layers.ts";
import { extractRootMotion, recordSteps } from "./_extras.ts";
import { wrapTime } from "../animation/clip.ts";
import { markersVersion } from "../animation/markers.ts";
import { PLAYING_ENTITIES } from "./_select.ts";
import { CHECK_PLAYER, CHECK_POSE, endVouch, firstUnchecked } from "./_checks.ts";
import type { Playback } from "../components/internal.ts";
import type { WorldState } from "../components/internal.ts";
import { Quarantine } from "../components/internal.ts";
import { retirePlayback } from "../components/internal.ts";
import { beginLodFrame, NOT_ANIMATED } from "./_lod.ts";
import { morphRecord } from "../components/internal.ts";
import { writeMorphWeights } from "./_morph_layers.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** Each world's outputs, begun again every frame: the frame allocates nothing. */
const outputs = new WeakMap<WorldState, LayerOutput>();
/** The entity's steps, the one being sampled (the system runs to the end before it runs again). */
const steps = new PlaybackSteps();

/**
 * Throws a `RangeError` unless `deltaSeconds` is a finite number >= 0. A
 * negative frame time is refused rather than read as "play backwards" (a
 * negative speed does that), so that a fade weight can only move from 0
 * to 1.
 */
export function checkFrameDelta(caller: string, deltaSeconds: number): void {
  if (typeof deltaSeconds !== "number" || !Number.isFinite(deltaSeconds) || deltaSeconds < 0) {
    throw new RangeError(
      `${caller}: deltaSeconds: expected a finite number >= 0 (the frame's duration in seconds), got ${
        describeValue(deltaSeconds)
      }`,
    );
  }
}

/**
 * `time`, or where it overflowed (a huge speed times a huge frame), the
 * clip time it wraps to: the clip starts over by `wrapTime`'s rule rather
 * than every later frame refusing the entity.
 */
function storableTime(time: number, playback: Playback): number {
  return Number.isFinite(time) ? time : wrapTime(time, playback.compact.duration, playback.wrap);
}

/**
 * The morph stage: the weights of the entities of `list` with MorphWeights
 * sampled from their clips (`_morph_layers.ts`), where their poses were.
 */
function writeMorphs(
  state: WorldState,
  list: ArrayLike<number>,
  skipped: boolean,
  morphs: ReturnType<typeof morphRecord>,
): void {
  const owned = state.owned, quarantine = owned.quarantine, lodSkip = owned.lodSkip;
  const time = state.components.ClipPlayer.time;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i], morph = morphs.play[eid];
    if (morph === undefined || skipped && quarantine[eid] & Quarantine.Clip) continue;
    if (lodSkip[eid] & NOT_ANIMATED) continue;
    morph.time = time[eid];
    if (writeMorphWeights(morph, owned.player[eid]!)) morphs.morphDirty[eid] = 1;
  }
}

/**
 * Advances every clip player (or those of `entities`; others are skipped)
 * by `deltaSeconds` times its speed, and writes the sampled poses. Throws a
 * `RangeError` for a delta that is not a finite number >= 0 (play
 * backwards with a negative speed), before anything is written. A
 * `ClipPlayer.time` or `speed` that game code set to a non-finite value is
 * a `RangeError` naming the entity and field: in the world's default
 * `"isolate"` fault mode it goes to the world's faults (`getFaults`) and
 * the entity is not advanced or sampled (its pose stays as it is; checked
 * again every call); in the `"throw"` mode it is thrown before anything is
 * written.
 */
export function sampleClipsSystem(
  world: object,
  deltaSeconds: number,
  entities?: ArrayLike<number>,
): void {
  const state = stateOf(world, "sampleClipsSystem");
  checkFrameDelta("sampleClipsSystem", deltaSeconds);
  // Outside a pipeline (which begins its own), this system begins the frame.
  if (state.faults.depth === 0) beginLodFrame(world, state, "sampleClipsSystem", entities);
  const owned = state.owned, c = state.components.ClipPlayer;
  const list = selectEntities(
    world,
    state,
    "sampleClipsSystem",
    PLAYING_ENTITIES,
    entities,
  );
  if (list.length === 0) return;
  const quarantine = owned.quarantine, players = owned.player, lodSkip = owned.lodSkip;
  const layerStacks = state.resources.layerStacks;
  let skipped = false;
  let rowCapacity = 0, entryCapacity = 0, layered = 0;
  // The checks run only from an entity whose store fields the compares
  // below do not vouch for: the others' cannot fail.
  let unchecked = firstUnchecked(state, list, CHECK_PLAYER | CHECK_POSE, 0);
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    // Read first: a flag written back unchanged is a store per entity per frame.
    if (quarantine[eid] & Quarantine.Clip) quarantine[eid] &= ~Quarantine.Clip;
    if (i === unchecked) {
      try {
        unchecked = firstUnchecked(state, list, CHECK_PLAYER | CHECK_POSE, i + 1);
        checkedPlayer(state, eid);
        checkedPose(state, eid);
        checkedSkeleton(state, eid);
      } catch (error) {
        // Isolated as a bad clip time is: this call leaves its pose as it is.
        state.faults.isolate(eid, "sampleClipsSystem", error);
        quarantine[eid] |= Quarantine.Clip;
        endVouch();
        skipped = true;
        continue;
      }
    }
    // `x - x` is 0 exactly for a finite x: no call that would box the double.
    const time = c.time[eid], speed = c.speed[eid];
    if (time - time === 0 && speed - speed === 0) {
      // Sampled: its rows and layer entries counted in the same pass (two
      // rows at most without layers: its player not read while none has).
      const player = layerStacks === 0 ? undefined : players[eid]!;
      if (!player?.stack) rowCapacity += 2;
      else {
        rowCapacity += layerRows(player), entryCapacity += player.stack.layers.length, layered++;
      }
      continue;
    }
    const field = time - time === 0 ? "speed" : "time";
    const value = field === "time" ? time : speed;
    const error = new RangeError(`entity ${describeValue(eid)}: ClipPlayer: ${field} is ${value}`);
    state.faults.report(eid, "sampleClipsSystem", "ClipPlayer", field, error);
    // Isolated: this call leaves the entity's pose as it is.
    quarantine[eid] |= Quarantine.Clip;
    endVouch();
    skipped = true;
  }
  const memory = state.memory;
  let out = outputs.get(state);
  if (!out) {
    const table = state.jobs("sampleClips.entries");
    outputs.set(
      state,
      out = { memory, time: 0.5, rows: new SampleRows(), entries: table, jobs: table },
    );
  }
  // Tables looked up each frame: a world reset forgets them.
  out.memory = memory;
  out.rows.begin(state.jobs("sampleClips"), rowCapacity);
  out.entries = state.jobs("sampleClips.entries");
  out.jobs = state.jobs("sampleClips.layers");
  const rows = out.rows;
  out.entries.begin(entryCapacity, LAYER_ENTRY_BYTES / 4);
  out.jobs.begin(layered, JOB_WORDS);
  let extended = false;
  const poses = owned.pose;
  // No clip has markers before the process sets some: no playback's lookup.
  const marked = markersVersion() !== 0;
  for (let i = 0; i < list.length; i++) {
    const eid = list[i];
    if (skipped && quarantine[eid] & Quarantine.Clip) continue;
    const player = players[eid]!;
    const pose = poses[eid];
    steps.count = 0;
    const from = c.time[eid];
    c.time[eid] = storableTime(from + deltaSeconds * c.speed[eid], player.current);
    const next = player.next;
    // Steps are recorded only for what reads them: layers, markers, root motion.
    const track = player.stack !== undefined || player.extras !== undefined ||
      marked && (player.current.sampler!.hasMarkers(player.current.clip) ||
          (next !== undefined && next.sampler!.hasMarkers(next.clip)));
    if (next) {
      player.fade = player.fadeDuration > 0
        ? Math.min(1, Math.max(0, player.fade + deltaSeconds / player.fadeDuration))
        : 1;
    }
    if (track) {
      const step = steps.add(player.current.clip, player.current, 0, true);
      step.from = from, step.to = c.time[eid], step.share = next ? 1 - player.fade : 1;
    }
    if (next) {
      const nextFrom = next.time;
      next.time += deltaSeconds * next.speed;
      if (track) {
        const step = steps.add(next.clip, next, 0, true);
        step.from = nextFrom, step.to = next.time, step.share = player.fade;
      }
      if (player.fade >= 1) {
        retirePlayback(player, player.current);
        player.current = next;
        player.next = undefined;
        player.fade = 0;
        // Finite (as nearly always) without the call, which a fade's end seldom makes: a double
        // passed to a call V8 has not inlined is boxed.
        const time = next.time;
        c.time[eid] = time - time === 0 ? time : storableTime(time, next);
        c.speed[eid] = next.speed;
      }
    }
    // Level of detail: the clocks above advance every frame, the pose only when animated.
    const animated = (lodSkip[eid] & NOT_ANIMATED) === 0;
    if (player.stack) {
      out.time = c.time[eid];
      const joints = owned.skeleton[eid]!.jointCount;
      writeLayers(out, player, player.stack, joints, pose, deltaSeconds, steps, animated);
    } else if (animated) {
      rows.time = c.time[eid];
      samplePlayback(rows, player.current, pose);
      if (player.next) {
        rows.time = player.next.time, rows.weight = player.fade;
        samplePlayback(rows, player.next, player.scratch, pose);
      }
    }
    if (track) extended = recordSteps(memory, player, steps) || extended;
  }
  rows.commit();
  state.kernels.sampleCompactBatch(rows.ptr, rows.count);
  if (out.jobs.count > 0) state.kernels.blendLayersBatch(0, 0, out.jobs.ptr, out.jobs.count);
  // Apart from the loop above, which stays as it was; not even called in a world without
  // MorphWeights (the scalar zero-allocation run counts its code settling as garbage; and the
  // record's array spans every entity id, a loop over the whole list every frame).
  if (anyMorphed(state)) writeMorphs(state, list, skipped, morphRecord(state));
  if (extended) {
    for (let i = 0; i < list.length; i++) {
      const eid = list[i], player = owned.player[eid]!;
      if (skipped && quarantine[eid] & Quarantine.Clip || lodSkip[eid] & NOT_ANIMATED) continue;
      if (player.extras?.rootMotion) {
        extractRootMotion(memory, player, owned.pose[eid]);
      }
    }
  }
  state.faults.notify();
}
