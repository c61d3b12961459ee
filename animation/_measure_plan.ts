/**
 * Where a compact clip's error is measured, joint by joint: a joint's
 * points move only with its own channels and its ancestors' (its chain),
 * so it is measured at its chain's key times (the clip's and the image's),
 * inside the measured intervals next to them ({@linkcode NLERP_WORST}),
 * and in the measured intervals holding the quarters of its chain's
 * longer intervals, not at every channel's key times. On a skeleton whose channels are keyed
 * at different times (fingers, faces, props), most of the points a
 * measurement at the union of every channel's times computed could not
 * have moved differently from their neighbours'.
 *
 * @module
 */

/** Most bytes of a plan's joint masks (times × joints); past them every joint is measured at every time. */
const MAX_MASK_BYTES = 1 << 22;

/**
 * The masks' bytes, kept between builds (a build's measurements are
 * synchronous, and each reads its mask before the next plan is made):
 * fresh arrays of up to a few hundred KB per measurement were most of a
 * build's garbage.
 */
let scratch = new Uint8Array(1 << 16);

/** `bytes` zeroed bytes of the scratch at `offset` (grown when short; up to `MAX_MASK_BYTES` * 2). */
function zeroed(offset: number, bytes: number): Uint8Array {
  if (scratch.length < offset + bytes) {
    scratch = new Uint8Array(Math.max(offset + bytes, scratch.length * 2));
  }
  return scratch.subarray(offset, offset + bytes).fill(0);
}

/**
 * Where in an arc nlerp's angle strays most from slerp's, as a share of
 * the arc (for arcs up to the pieces' 0.05 rad): 1/2 ∓ 1/(2√3), about 0.21
 * and 0.79. At the middle and the ends they agree.
 */
export const NLERP_WORST: readonly number[] = [0.5 - 0.5 / Math.sqrt(3), 0.5 + 0.5 / Math.sqrt(3)];

/**
 * Where between two neighbouring key times a curve is measured, besides
 * at the first: a LINEAR vector's error is linear between them (largest
 * at a key time), a rotation's strays most at {@linkcode NLERP_WORST}.
 * The quarters took a third more times for errors within a few percent of
 * these (`docs/performance_notes.md`).
 */
const BETWEEN = NLERP_WORST;
/** Measured times per interval between neighbouring key times. */
const PARTS = BETWEEN.length + 1;

/** Where in a chain's interval longer than a measured one its curve is measured. */
const QUARTERS = [0.25, 0.5, 0.75];

/** Times to measure at, and per time the joints measured there. */
interface MeasurePlan {
  /** Ascending measured times. */
  readonly times: Float64Array;
  /**
   * Per time `i`, byte `i * joints + j` is 1 when joint `j` is measured at
   * it (valid until the next plan is made); undefined: every joint at
   * every time.
   */
  readonly mask?: Uint8Array;
}

/** A sorted array of key times and the joints whose chains they belong to. */
export interface KeyTimeSource {
  readonly times: ArrayLike<number>;
  readonly joints: readonly number[];
}

/** The distinct values of `lists`, ascending. */
export function sortedUnique(lists: readonly ArrayLike<number>[]): Float64Array {
  // A glTF file's channels mostly share their samplers' time arrays: each
  // once, and copies of one (a build's clip copies each channel's) once.
  const distinct = distinctLists(lists);
  let count = 0;
  for (const times of distinct) count += times.length;
  const all = new Float64Array(count);
  count = 0;
  for (const times of distinct) all.set(times, count), count += times.length;
  all.sort();
  let unique = 0;
  for (let i = 0; i < all.length; i++) {
    if (i === 0 || all[i] !== all[unique - 1]) all[unique++] = all[i];
  }
  return all.subarray(0, unique);
}

/** Lists of equal contents a list is compared with before it is taken as new (bounds the comparisons). */
const SAME_LIST_CANDIDATES = 4;

/** `lists` without repeats: each object once, and a list equal to one taken (of a few of its length) left out. */
function distinctLists(lists: readonly ArrayLike<number>[]): ArrayLike<number>[] {
  const byLength = new Map<number, ArrayLike<number>[]>(), distinct: ArrayLike<number>[] = [];
  for (const list of new Set(lists)) {
    const same = byLength.get(list.length);
    if (same?.some((taken) => sameValues(taken, list))) continue;
    if (!same) byLength.set(list.length, [list]);
    else if (same.length < SAME_LIST_CANDIDATES) same.push(list);
    distinct.push(list);
  }
  return distinct;
}

/** Whether `a` and `b` (of one length) hold the same values. */
function sameValues(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The distinct values of `base` (ascending, distinct) and of `lists` (each
 * ascending), ascending: `base` itself when the lists add nothing (a
 * build's image keeps mostly its clip's key times). Each value is searched
 * from the last one found, by halving: no sort unless some are new.
 */
export function withTimes(base: Float64Array, lists: readonly ArrayLike<number>[]): Float64Array {
  const added: number[] = [];
  for (const list of lists) {
    // The first index whose value is not below the list's last value.
    let k = 0;
    for (let i = 0; i < list.length; i++) {
      const t = list[i];
      if (k < base.length && base[k] === t) continue;
      k = k + 1 < base.length && base[k + 1] === t ? k + 1 : lowerBound(base, t, k);
      if (k >= base.length || base[k] !== t) added.push(t);
    }
  }
  return added.length ? sortedUnique([base, added]) : base;
}

/** The first index of the ascending `sorted` from `from` on whose value is not below `t`. */
function lowerBound(sorted: Float64Array, t: number, from: number): number {
  let lo = from, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The plan for `sources` on a skeleton of `parents` (children after their
 * parents): `unique`, the distinct key times ascending, the times of
 * {@linkcode NLERP_WORST} between neighbours, and the times of `points`
 * (measured without times around them), at most `limit` times (evenly
 * picked, then every joint at each, and the points left out when the grid
 * fills the limit alone).
 */
export function measurePlan(
  unique: Float64Array,
  sources: readonly KeyTimeSource[],
  parents: Int16Array,
  points: readonly KeyTimeSource[] = [],
  limit = 4096,
): MeasurePlan {
  const u = unique.length, n = parents.length;
  const count = u > 0 ? PARTS * (u - 1) + 1 : 0;
  // The grid's time g: a key time, or a time between it and the next.
  const gridTime = (g: number) => {
    const k = Math.floor(g / PARTS), f = g - PARTS * k, t = unique[k];
    return f === 0 ? t : t + (unique[k + 1] - t) * BETWEEN[f - 1];
  };
  // The grid alone fills the limit (a long clip keyed at many times):
  // its times evenly picked, without the whole grid (up to tens of
  // thousands of times, most of such a build's garbage).
  if (count > limit) {
    const times = new Float64Array(limit);
    for (let i = 0; i < limit; i++) times[i] = gridTime(Math.floor((i * count) / limit));
    return { times };
  }
  const grid = new Float64Array(count);
  for (let g = 0; g < count; g++) grid[g] = gridTime(g);
  // The points' distinct times, ascending; none when the grid alone fills
  // the limit (sorting them was a tenth of a long clip's build).
  const extra = count >= limit ? new Float64Array(0) : sortedUnique(points.map((p) => p.times));
  const total = count + extra.length;
  const merged = new Float64Array(total);
  // Grid time g, extra time e, into merged order (a point on a grid time goes after it).
  const gridAt = new Int32Array(count), extraAt = new Int32Array(extra.length);
  for (let g = 0, e = 0; g + e < total;) {
    if (e >= extra.length || (g < count && grid[g] <= extra[e])) {
      merged[gridAt[g] = g + e] = grid[g++];
    } else merged[extraAt[e] = g + e] = extra[e++];
  }
  if (total > limit) {
    const times = new Float64Array(limit);
    for (let i = 0; i < limit; i++) times[i] = merged[Math.floor((i * total) / limit)];
    return { times };
  }
  if ((u + 2 * total) * n > MAX_MASK_BYTES) return { times: merged };
  // touch[k * n + j]: a time of joint j's chain is unique[k].
  const touch = touchedChains(unique, sources, parents);
  // Every joint's chain keyed at every time (a motion capture's), and no
  // points: every joint at every time.
  if (!points.length && touch.indexOf(0) < 0) return { times: merged };
  const mask = zeroed(u * n, total * n);
  markChains(mask, touch, unique, gridAt, count, n);
  markPoints(mask, points, extra, extraAt, parents);
  return { times: merged, mask };
}

// The plan's passes, each a function of its own: one function holding
// them all was compiled again at most measurements (a pass that one clip
// runs and the next skips left it without type feedback).

/** Per key time `k` of `unique` and joint `j`, byte `k * n + j`: 1 when a time of `j`'s chain is `unique[k]`. */
function touchedChains(
  unique: Float64Array,
  sources: readonly KeyTimeSource[],
  parents: Int16Array,
): Uint8Array {
  const u = unique.length, n = parents.length;
  const touch = zeroed(0, u * n);
  for (let s = 0; s < sources.length; s++) {
    const { times: keyTimes, joints } = sources[s];
    let k = 0;
    for (let i = 0; i < keyTimes.length; i++) {
      const t = keyTimes[i];
      // Sorted: search only from the previous hit on.
      if (t !== unique[k]) k = lowerBound(unique, t, t > unique[k] ? k : 0);
      for (let c = 0; c < joints.length; c++) if (joints[c] < n) touch[k * n + joints[c]] = 1;
    }
  }
  for (let k = 0; k < u; k++) {
    const row = k * n;
    for (let j = 0; j < n; j++) {
      const p = parents[j];
      if (p >= 0 && touch[row + p]) touch[row + j] = 1;
    }
  }
  return touch;
}

/**
 * Marks in `mask` each joint at its chain's key times, in the grid's
 * intervals beside them, and in those holding the quarters of its chain's
 * longer intervals (grid time `g` is row `gridAt[g]`).
 */
function markChains(
  mask: Uint8Array,
  touch: Uint8Array,
  unique: Float64Array,
  gridAt: Int32Array,
  count: number,
  n: number,
): void {
  const u = unique.length;
  const interval = (k: number, j: number) => {
    for (let f = 0; f <= PARTS && PARTS * k + f < count; f++) {
      mask[gridAt[PARTS * k + f] * n + j] = 1;
    }
  };
  for (let j = 0; j < n; j++) {
    let last = -1;
    for (let k = 0; k < u; k++) {
      if (!touch[k * n + j]) continue;
      mask[gridAt[PARTS * k] * n + j] = 1;
      if (last >= 0) interval(last, j);
      if (last >= 0 && k - 1 > last) {
        interval(k - 1, j);
        // The chain's interval spans several measured ones: also those
        // holding its quarters (where a curve between two keys strays most).
        let at = last;
        for (const f of QUARTERS) {
          const t = unique[last] + (unique[k] - unique[last]) * f;
          while (at + 1 < k && unique[at + 1] <= t) at++;
          interval(at, j);
        }
      }
      last = k;
    }
  }
}

/** Marks in `mask` each point's joints at its times (`extra[e]` is row `extraAt[e]`), and the joints below them. */
function markPoints(
  mask: Uint8Array,
  points: readonly KeyTimeSource[],
  extra: Float64Array,
  extraAt: Int32Array,
  parents: Int16Array,
): void {
  const n = parents.length;
  for (const { times: pointTimes, joints } of points) {
    let e = 0;
    for (let i = 0; i < pointTimes.length; i++) {
      if (pointTimes[i] !== extra[e]) {
        e = lowerBound(extra, pointTimes[i], pointTimes[i] > extra[e] ? e : 0);
      }
      for (const j of joints) if (j < n) mask[extraAt[e] * n + j] = 1;
    }
  }
  // A point's joint moves the joints below it.
  for (let e = 0; e < extra.length; e++) {
    const row = extraAt[e] * n;
    for (let j = 0; j < n; j++) {
      const p = parents[j];
      if (p >= 0 && mask[row + p]) mask[row + j] = 1;
    }
  }
}
