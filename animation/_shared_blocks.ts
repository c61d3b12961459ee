/**
 * Compact clips on one shared timeline (`CLIP_SHARED_KEYS`): a clip whose
 * keyed channels are all LINEAR (a motion capture's) stored as four-lane
 * blocks of floats at the union of its channels' key times, intervals
 * halved where nlerp would leave slerp's curve, so that the kernel
 * (`simd/wasm/assembly/sample_shared.ts`) samples every group with one interval
 * search and one weight. The blocks share `SyncBlock`'s form
 * (`_sync_blocks.ts`).
 *
 * @module
 */

import type { ReducedChannel } from "./_reduce.ts";
import type { SyncBlock } from "./_sync_blocks.ts";
import type { ClipChannel } from "./clip.ts";
import { ChannelCursor } from "./_channel_cursor.ts";
import { slerpTerms, slerpWeight } from "../simd/scalar/sample.ts";
import { TRACK_RAW } from "../simd/wasm/assembly/abi.ts";

/**
 * `fileFactor`: the most bytes a shared-timeline clip may take, relative to
 * the bytes of the clip's own key arrays (times and values, each distinct
 * array once: about its share of the file). Floats on one timeline are
 * the fastest layout to sample and the largest: where a motion capture's
 * channels share their key times they cost about a third of the file, and
 * smallest-three keys about a fifth. Tests set it to build them anywhere,
 * or never.
 */
export const sharedPolicy = { fileFactor: 0.5 };

/**
 * Whether the clip of `channels` (reduced to `reduced`) can share one
 * timeline: it keeps keys, and its keyed channels are all LINEAR (a shared
 * clip's lanes all interpolate between keys at one weight).
 */
export function sharesTimeline(
  channels: readonly ClipChannel[],
  reduced: readonly ReducedChannel[],
): boolean {
  const keyed = channels.filter((_, i) => "keys" in reduced[i]);
  return keyed.length > 0 && keyed.every((c) => c.interpolation === "LINEAR");
}

/** The deepest a shared timeline's interval is halved for a rotation's sake. */
const MAX_SHARED_SPLITS = 6;
/** Where between two keys a shared rotation is checked against slerp. */
const SHARED_CHECKS = [0.125, 0.25, 0.375, 0.625, 0.75, 0.875];

// Scratch of the curve checks and sharedBlocks (synchronous, so sharing is safe).
const curveScratch = [new Float64Array(4)];
const curveCursor = new ChannelCursor();
const CHECK_TERMS = SHARED_CHECKS.map((u) => slerpTerms(Math.fround(u)));
const canonical = [new Float64Array([1, 0, 0, 0]), new Float64Array(4)];

/**
 * How far nlerp (with the slerp correction, `slerpWeight`, when
 * `corrected`) strays from slerp at {@linkcode SHARED_CHECKS} between two
 * rotations `angle` apart (quaternion-space radians, at most pi / 2).
 */
function nlerpStray(angle: number, corrected: boolean): number {
  const [a, b] = canonical;
  b[0] = Math.cos(angle), b[1] = Math.sin(angle);
  let worst = 0;
  for (let i = 0; i < SHARED_CHECKS.length; i++) {
    const u = SHARED_CHECKS[i];
    const w = corrected ? slerpWeight(CHECK_TERMS[i], a, b) : u;
    const qx = 1 - w + w * b[0], qy = w * b[1], length = Math.sqrt(qx * qx + qy * qy);
    const dx = qx / length - Math.cos(u * angle), dy = qy / length - Math.sin(u * angle);
    worst = Math.max(worst, Math.sqrt(dx * dx + dy * dy));
  }
  return worst;
}

/** Steps of {@linkcode STRAY_ANGLES} per halving of the angle. */
const STRAY_STEPS_PER_OCTAVE = 16;
/** Angles of the stray tables, from pi / 2 down by halvings (to about 1e-7 rad). */
const STRAY_ANGLES = Float64Array.from(
  { length: 24 * STRAY_STEPS_PER_OCTAVE + 1 },
  (_, k) => (Math.PI / 2) * 2 ** (-k / STRAY_STEPS_PER_OCTAVE),
);
/** {@linkcode nlerpStray} at {@linkcode STRAY_ANGLES}, plain and corrected: made once, when first needed. */
let strayTables: readonly Float64Array[] | undefined;

/**
 * The least dot product of two rotations between which nlerp (corrected or
 * not) stays within `limit` of slerp: within a key interval of a LINEAR
 * rotation (a shared timeline's intervals all are, for every channel:
 * their bounds include every channel's key times) the exact curve is the
 * slerp of its values at any two times, so how far the sampler strays
 * from it depends on their angle alone, and one dot product decides
 * where eight samples did. The angle is found in a table of the stray
 * (it grows with the angle), then bisected a few times between its
 * neighbours; the build measures the result anyway.
 */
function leastDot(corrected: boolean, limit: number): number {
  const known = leastDots[corrected ? 1 : 0], dot = known.get(limit);
  if (dot !== undefined) return dot;
  if (known.size >= LEAST_DOTS_KEPT) known.clear();
  const found = bisectLeastDot(corrected, limit);
  known.set(limit, found);
  return found;
}

/**
 * {@linkcode leastDot}'s answers by limit, plain and corrected: a clip's
 * channels mostly share a few tolerances, and each answer bisects the
 * stray at 24 points (most of a small clip's shared timeline).
 */
const leastDots = [new Map<number, number>(), new Map<number, number>()];
/** Most answers {@linkcode leastDots} keeps (then it starts again). */
const LEAST_DOTS_KEPT = 4096;

/** {@linkcode leastDot}, computed. */
function bisectLeastDot(corrected: boolean, limit: number): number {
  const lo = strayIndex(corrected, limit);
  if (lo === 0) return 0;
  if (lo === STRAY_ANGLES.length) return 1;
  let good = STRAY_ANGLES[lo], bad = STRAY_ANGLES[lo - 1];
  for (let step = 0; step < 4; step++) {
    const mid = (good + bad) / 2;
    if (nlerpStray(mid, corrected) <= limit) good = mid;
    else bad = mid;
  }
  return Math.cos(good);
}

/**
 * At least the widest angle (quaternion-space radians) between two points
 * of an arc between which plain nlerp stays within `limit` of slerp (the
 * table's next angle up: within 5 %, never below it); pi / 2 past the
 * table.
 */
export function widestNlerpAngle(limit: number): number {
  const lo = strayIndex(false, limit);
  return STRAY_ANGLES[Math.max(0, lo - 1)];
}

/** The index of the first of {@linkcode STRAY_ANGLES} (largest first) whose stray is within `limit` (their count when none is). */
function strayIndex(corrected: boolean, limit: number): number {
  strayTables ??= [false, true].map((c) =>
    Float64Array.from(STRAY_ANGLES, (angle) => nlerpStray(angle, c))
  );
  const stray = strayTables[corrected ? 1 : 0];
  if (stray[0] <= limit) return 0;
  let lo = 1, hi = stray.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (stray[mid] <= limit) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** A rotation channel's cursor and least dot products (corrected: computed when first asked), for the curve checks. */
interface CurveCheck {
  readonly cursor: ChannelCursor;
  readonly limit: number;
  readonly plain: number;
  corrected?: number;
  /**
   * The rotation at the last check's `t1`, which mostly is the next one's
   * `t0` (intervals checked in order): sampled once, not twice.
   */
  readonly last: Float64Array;
  lastTime: number;
}

/** Whether the check's rotation at `t0` and at `t1` are farther apart than nlerp (corrected or not) may join. */
function offCurve(check: CurveCheck, t0: number, t1: number, corrected: boolean): boolean {
  const a = curveScratch[0], b = check.last;
  if (t0 === check.lastTime) a.set(b);
  else check.cursor.at(t0, a);
  check.cursor.at(t1, b);
  check.lastTime = t1;
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  return dot < (corrected ? (check.corrected ??= leastDot(true, check.limit)) : check.plain);
}

/**
 * The shared timeline of the `keyed` channels (with their tolerances), and
 * the rotations that need the sampler's slerp correction: those whose
 * plain nlerp between the union of the channels' own key times leaves
 * `slack` times their tolerance of their exact curve somewhere. Then each
 * interval is halved (at most {@linkcode MAX_SHARED_SPLITS} times) until
 * every rotation stays within that: rare with the correction (keys a
 * quarter turn apart are off slerp by 1.3e-5 rad). Undefined as soon as
 * it would pass `maxKeys` times: a clip of keys half a turn apart must
 * not make the build hold 64 times its keys before the byte policy
 * refuses them.
 */
function sharedTimes(
  keyed: readonly (readonly [ClipChannel, number])[],
  slack: number,
  maxKeys: number,
): { times: Float32Array; corrected: Set<ClipChannel> } | undefined {
  // Refused as soon as the union passes maxKeys (a clip keyed at many times
  // is refused at every build's first layouts: the whole union was most of
  // their cost).
  const all = new Set<number>();
  for (let i = 0; i < keyed.length; i++) {
    const times = keyed[i][0].times;
    for (let k = 0; k < times.length; k++) {
      if (all.add(times[k]).size > maxKeys) return undefined;
    }
  }
  const source = [...all].sort((a, b) => a - b);
  const rotations = keyed.filter(([c]) => c.path === "rotation");
  const checks = new Map(rotations.map(([c, tolerance]) => {
    const limit = slack * tolerance;
    const plain = leastDot(false, limit);
    return [c, {
      cursor: new ChannelCursor(c),
      limit,
      plain,
      last: new Float64Array(4),
      lastTime: NaN,
    }];
  }));
  const corrected = new Set<ClipChannel>();
  for (const [channel] of rotations) {
    const check = checks.get(channel)!;
    for (let i = 1; i < source.length; i++) {
      if (offCurve(check, source[i - 1], source[i], false)) {
        corrected.add(channel);
        break;
      }
    }
  }
  // A source interval of an uncorrected rotation was checked above.
  const off = (t0: number, t1: number, depth: number) =>
    rotations.some(([c]) =>
      (depth > 0 || corrected.has(c)) && offCurve(checks.get(c)!, t0, t1, corrected.has(c))
    );
  const times: number[] = [];
  // Keys still to come from the source: the splits may take only the rest.
  let budget = maxKeys - source.length;
  const split = (t0: number, t1: number, depth: number): boolean => {
    const mid = Math.fround((t0 + t1) / 2);
    if (depth >= MAX_SHARED_SPLITS || !(mid > t0 && mid < t1) || !off(t0, t1, depth)) return true;
    if (--budget < 0) return false;
    if (!split(t0, mid, depth + 1)) return false;
    times.push(mid);
    return split(mid, t1, depth + 1);
  };
  for (let i = 0; i < source.length; i++) {
    if (i > 0 && !split(source[i - 1], source[i], 0)) return undefined;
    times.push(source[i]);
  }
  return { times: Float32Array.from(times), corrected };
}

/**
 * The blocks of a clip on one shared timeline (`CLIP_SHARED_KEYS`; see
 * {@link sharesTimeline}, {@link sharedTimes}): every group path with a
 * keyed lane a four-lane block of floats (rotations marked where they
 * need the slerp correction), its keyed lanes' exact values at the
 * timeline's times (rotations kept in one hemisphere from key to key:
 * the kernel interpolates without a shorter-arc test), its other lanes
 * (padding lanes too) at their held value, `heldValue`. The build measures
 * the result: the channels' tolerances split the clip's as if errors added
 * up along every chain, which they rarely do, so a first build lets nlerp
 * take `slack` = 2 times them, and a second, if that measured over, less.
 * Undefined when the keys would take more than `maxBytes`.
 */
export function sharedBlocks(
  channels: readonly ClipChannel[],
  tolerances: ArrayLike<number>,
  slack: number,
  maxBytes: number,
  reduced: readonly ReducedChannel[],
  heldValue: (joint: number, path: number) => Float32Array,
): { blocks: SyncBlock[]; held: Set<ReducedChannel> } | undefined {
  // Lists grown in place: every layout of a clip of hundreds of channels
  // made them again, and most are refused at their key times.
  const keyed: (readonly [ReducedChannel, ClipChannel, number])[] = [];
  for (let i = 0; i < reduced.length; i++) {
    if ("keys" in reduced[i]) keyed.push([reduced[i], channels[i], tolerances[i]]);
  }
  const byPath = new Map<number, (typeof keyed)[number][]>();
  for (const entry of keyed) {
    const key = (entry[0].joint >> 2) * 3 + entry[0].path, list = byPath.get(key);
    if (list) list.push(entry);
    else byPath.set(key, [entry]);
  }
  // A key of every keyed group path: four lanes of three or four floats.
  let keyBytes = 0;
  for (const key of byPath.keys()) keyBytes += key % 3 === 1 ? 64 : 48;
  const timeline = sharedTimes(
    keyed.map(([, c, tolerance]) => [c, tolerance] as const),
    slack,
    Math.floor(maxBytes / (keyBytes + 4)),
  );
  if (!timeline) return undefined;
  const { times, corrected } = timeline;
  const blocks: SyncBlock[] = [], value = new Float64Array(4);
  for (const [key, lanes] of [...byPath].sort((a, b) => a[0] - b[0])) {
    const group = Math.floor(key / 3), path = key % 3, n = path === 1 ? 4 : 3;
    const bytes = new Uint8Array(times.length * n * 16 + 16);
    const values = new Float32Array(bytes.buffer, 0, times.length * n * 4);
    for (let l = 0; l < 4; l++) {
      const channel = lanes.find(([r]) => (r.joint & 3) === l)?.[1];
      const held = channel ? undefined : heldValue(group * 4 + l, path);
      const cursor = channel && curveCursor.reset(channel);
      times.forEach((t, k) => {
        if (cursor) cursor.at(t, value);
        else value.set(held!);
        let sign = 1;
        if (n === 4 && k > 0) {
          let dot = 0;
          for (let c = 0; c < 4; c++) dot += values[((k - 1) * n + c) * 4 + l] * value[c];
          if (dot < 0) sign = -1;
        }
        for (let c = 0; c < n; c++) values[(k * n + c) * 4 + l] = sign * value[c];
      });
    }
    blocks.push({
      group,
      path,
      mask: 15,
      span: 4,
      format: TRACK_RAW,
      times,
      bytes,
      extra: 0,
      perLane: 0,
      slerp: lanes.some(([, c]) => corrected.has(c)),
    });
  }
  return { blocks, held: new Set(keyed.map(([r]) => r)) };
}
