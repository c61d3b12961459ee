/**
 * Synchronous blocks of compact clips: the keyed LINEAR lanes of one SoA×4
 * group path stored at the union of their kept key times, `span` lanes per
 * key in SoA, so that the kernel refills them with one interval test and
 * one 4-wide decode (`simd/wasm/assembly/sample_sync.ts`). A lane's key at a
 * time it did not keep is its reduced curve there (its kept keys
 * interpolated as the kernel does, then encoded), or its first or last key
 * outside them, so the lane's curve stays what the reduction measured up to
 * the encoding and, for rotations, nlerp's parametrization; the build
 * measures the result and falls back to per-lane tracks if it leaves the
 * tolerance.
 *
 * A group path becomes a block only where that costs at most
 * `syncPolicy.byteFactor` times the bytes of its per-lane tracks, and only
 * as far as the blocks that save bytes (a record per block instead of one
 * per lane, times stored once) pay for those that cost some, within
 * `syncPolicy.clipFactor`: a clip takes at most 25 % more bytes with blocks.
 * Blocks are for speed: with 16-byte track records a block saves less than
 * with 48-byte ones, and rotations that keep wide keys make their blocks
 * wide (the factors' history and measurements: docs/performance_notes.md).
 *
 * Values area of a block (offsets from its start; key k, component c,
 * lane l): smallest-three: the low words of a key's `span` lanes, then
 * their high words (`8 span` bytes a key); wide smallest-three: the three
 * words of each, word w at `(k * 3 + w) * span + l` (u32 index); ranged: min[3] then scale[3] as
 * four f32 each ({@linkcode SYNC_RANGE_BYTES}), then u16 codes at
 * `96 + ((k * 3 + c) * span + l) * 2`; raw: f32 at `((k * n + c) * span + l) * 4`.
 *
 * @module
 */

import { arrayKey } from "./_array_key.ts";
import type { KeyTrack, ReducedChannel } from "./_reduce.ts";
import {
  decodeRanged,
  encodeRanged,
  encodeSmallestThree,
  encodeSmallestThreeWide,
} from "./_quantize.ts";
import { decodeSmallestThree, decodeSmallestThreeWide } from "../simd/scalar/sample.ts";
import {
  SYNC_BYTES,
  SYNC_RANGE_BYTES,
  TRACK_BYTES,
  TRACK_RANGE_BYTES,
  TRACK_RANGED,
  TRACK_RAW,
  TRACK_SMALLEST_THREE,
  TRACK_SMALLEST_THREE_WIDE,
} from "../simd/wasm/assembly/abi.ts";

/**
 * `byteFactor`: the most bytes a block may take, relative to the per-lane
 * tracks it replaces (records, values, and times no other track shares);
 * `clipFactor`: the most bytes all of a clip's blocks may take beyond the
 * tracks they replace, relative to those tracks (blocks that save bytes pay
 * for those that cost some; the cheapest are taken first). Tests raise them
 * to build blocks anywhere.
 */
export const syncPolicy = { byteFactor: 2, clipFactor: 0.25 };

/** One synchronous block, before layout. */
export interface SyncBlock {
  readonly group: number;
  readonly path: number;
  /** Lanes of the group it holds (bit l: lane l). */
  readonly mask: number;
  /** Lanes stored per key: the highest lane of `mask` plus one. */
  readonly span: number;
  readonly format: number;
  readonly times: Float32Array;
  /** The values area (see the module's layout), a multiple of 16 bytes plus 16 of padding. */
  readonly bytes: Uint8Array;
  /** Bytes it takes beyond the per-lane tracks it replaces (estimated; may be negative). */
  readonly extra: number;
  /** Bytes of the per-lane tracks it replaces (estimated). */
  readonly perLane: number;
  /** A shared clip's rotations that interpolate with the slerp correction (`SHARED_SLERP`). */
  readonly slerp?: boolean;
}

/** Bytes of one key of one lane in `format` (path `path`). */
function valueBytes(format: number, path: number): number {
  return format === TRACK_SMALLEST_THREE
    ? 8
    : format === TRACK_RANGED
    ? 6
    : format === TRACK_SMALLEST_THREE_WIDE || path !== 1
    ? 12
    : 16;
}

/** One decoded key (a view per key was most of a layout's garbage). */
const decodedKey = new Float32Array(4);

/** A track's kept keys decoded as the kernel decodes them (n floats each). */
function decoded(track: KeyTrack, n: number): Float32Array {
  const count = track.times.length, out = new Float32Array(count * n), key = decodedKey;
  if (track.format === TRACK_SMALLEST_THREE) {
    const words = new Uint32Array(track.bytes.buffer, track.bytes.byteOffset, count * 2);
    for (let k = 0; k < count; k++) {
      decodeSmallestThree(words[k * 2], words[k * 2 + 1], key);
      out.set(key, k * 4);
    }
  } else if (track.format === TRACK_SMALLEST_THREE_WIDE) {
    const words = new Uint32Array(track.bytes.buffer, track.bytes.byteOffset, count * 3);
    for (let k = 0; k < count; k++) {
      decodeSmallestThreeWide(words[k * 3], words[k * 3 + 1], words[k * 3 + 2], key);
      out.set(key, k * 4);
    }
  } else if (track.format === TRACK_RANGED) {
    const codes = new Uint16Array(track.bytes.buffer, track.bytes.byteOffset, count * 3);
    for (let i = 0; i < count * 3; i++) out[i] = decodeRanged(codes[i], i % 3, track.range!);
  } else out.set(new Float32Array(track.bytes.buffer, track.bytes.byteOffset, count * n));
  return out;
}

/**
 * Per union time `i`, where lane `track` takes its value, into `keys[i]`
 * and `weights[i]`: its kept key k and -1 (or the first or last key
 * outside its times), or keys k and k + 1 at weight u.
 */
function placement(
  track: KeyTrack,
  union: Float32Array,
  keys: Int32Array,
  weights: Float32Array,
): void {
  const times = track.times, last = times.length - 1, f = Math.fround;
  let k = 0;
  for (let i = 0; i < union.length; i++) {
    const t = union[i];
    let key = k, weight = -1;
    if (t <= times[0]) key = 0;
    else if (t >= times[last]) key = last;
    else {
      while (times[k + 1] <= t) k++;
      key = k;
      if (times[k] !== t) weight = f(f(t - times[k]) * f(1 / f(times[k + 1] - times[k])));
    }
    keys[i] = key, weights[i] = weight;
  }
}

/** Lane values at `u` between keys k and k + 1 of `values`, as the kernel interpolates them, into `out`. */
function between(values: Float32Array, k: number, u: number, n: number, out: Float32Array): void {
  const f = Math.fround;
  let length = 0;
  for (let c = 0; c < n; c++) {
    const a = values[k * n + c];
    out[c] = f(a + f(f(values[k * n + n + c] - a) * u));
    length += out[c] * out[c];
  }
  if (n === 4) { for (let c = 0; c < 4; c++) out[c] /= Math.sqrt(length); }
}

/** A lane of a block: a keyed channel's track, or a held value. */
type Lane = KeyTrack | Float32Array;

/** The block of `lanes` (by lane; undefined: not in the block), or undefined. */
function block(
  group: number,
  path: number,
  lanes: (Lane | undefined)[],
  wide: boolean,
  timesUse: Map<string, number>,
): SyncBlock | undefined {
  const used = lanes.flatMap((t, l) => (t ? [[l, t] as const] : []));
  const keyed = used.flatMap(([, t]) => (t instanceof Float32Array ? [] : [t]));
  if (keyed.length < 2) return undefined;
  const n = path === 1 ? 4 : 3;
  const quantized = path === 1 ? TRACK_SMALLEST_THREE : TRACK_RANGED;
  // Rotations of lanes that keep floats: wide smallest-three, near f32 precision.
  const format = keyed.every((t) => t.format === quantized)
    ? quantized
    : path === 1
    ? TRACK_SMALLEST_THREE_WIDE
    : TRACK_RAW;
  if (format === TRACK_SMALLEST_THREE_WIDE && !wide) return undefined;
  const all = new Set<number>();
  for (const t of keyed) for (const time of t.times) all.add(time);
  const union = Float32Array.from([...all].sort((a, b) => a - b));
  const span = used[used.length - 1][0] + 1;
  // Equal times are stored once per clip: times cost only where no track
  // outside the group path has them.
  const here = new Map<string, number>(), lengths = new Map<string, number>();
  for (const t of keyed) {
    const key = arrayKey(t.times);
    here.set(key, (here.get(key) ?? 0) + 1), lengths.set(key, t.times.length);
  }
  const own = (key: string) => (timesUse.get(key) ?? 0) === (here.get(key) ?? 0);
  let perLane = 0;
  for (const t of keyed) {
    perLane += TRACK_BYTES + (t.range ? TRACK_RANGE_BYTES : 0) +
      t.times.length * valueBytes(t.format, path);
  }
  for (const key of here.keys()) {
    if (own(key)) perLane += lengths.get(key)! * 4;
  }
  const unionTimes = (timesUse.get(arrayKey(union)) ?? 0) > 0 && !own(arrayKey(union))
    ? 0
    : union.byteLength;
  const keyBytes = span * valueBytes(format, path);
  const head = format === TRACK_RANGED ? SYNC_RANGE_BYTES : 0;
  const bytes = new Uint8Array(head + Math.ceil((union.length * keyBytes) / 16) * 16 + 16);
  const extra = SYNC_BYTES + unionTimes + bytes.length + 8 - perLane;
  if (extra > (syncPolicy.byteFactor - 1) * perLane) return undefined;
  const view = new DataView(bytes.buffer);
  const word = new Uint32Array(3), scratch = new Float32Array(4);
  const keys = new Int32Array(union.length), weights = new Float32Array(union.length);
  let mask = 0;
  for (const [l, lane] of used) {
    mask |= 1 << l;
    const track = lane instanceof Float32Array ? undefined : lane;
    // A held lane: one key at every time, in a range of its own value.
    const values = track ? decoded(track, n) : lane as Float32Array;
    const range = track?.range ?? { min: values, scale: new Float32Array(3) };
    const codes = track &&
      new Uint8Array(track.bytes.buffer, track.bytes.byteOffset, track.bytes.length);
    if (format === TRACK_RANGED) {
      for (let c = 0; c < 3; c++) {
        view.setFloat32(c * 16 + l * 4, range.min[c], true);
        view.setFloat32(48 + c * 16 + l * 4, range.scale[c], true);
      }
    }
    if (track) placement(track, union, keys, weights);
    else keys.fill(0), weights.fill(-1);
    for (let i = 0; i < union.length; i++) {
      const k = keys[i], u = weights[i];
      // The key's values, or the interpolated ones in the scratch.
      let value = values, at = k * n;
      if (u >= 0) between(values, k, u, n, scratch), value = scratch, at = 0;
      if (format === TRACK_SMALLEST_THREE) {
        if (u < 0 && codes) {
          // The kept key's own code (8 bytes, little-endian words).
          for (let w = 0; w < 2; w++) {
            const b = k * 8 + w * 4;
            word[w] = codes[b] | (codes[b + 1] << 8) | (codes[b + 2] << 16) | (codes[b + 3] << 24);
          }
        } else encodeSmallestThree(value, at, word, 0);
        view.setUint32(i * keyBytes + l * 4, word[0], true);
        view.setUint32(i * keyBytes + span * 4 + l * 4, word[1], true);
      } else if (format === TRACK_SMALLEST_THREE_WIDE) {
        encodeSmallestThreeWide(value, at, word, 0);
        for (let w = 0; w < 3; w++) {
          view.setUint32(i * keyBytes + (w * span + l) * 4, word[w], true);
        }
      } else if (format === TRACK_RANGED) {
        for (let c = 0; c < 3; c++) {
          const code = u < 0 && codes
            ? codes[k * 6 + c * 2] | (codes[k * 6 + c * 2 + 1] << 8)
            : encodeRanged(value[at + c], c, range);
          view.setUint16(head + i * keyBytes + (c * span + l) * 2, code, true);
        }
      } else {
        for (let c = 0; c < n; c++) {
          view.setFloat32(i * keyBytes + (c * span + l) * 4, value[at + c], true);
        }
      }
    }
  }
  return { group, path, mask, span, format, times: union, bytes, extra, perLane };
}

/**
 * The synchronous blocks of `reduced` when `sync` (the skeleton's joint
 * count) is given, and the keyed channels they hold (which then have no
 * track of their own). A block takes in its group's held lanes of real
 * joints (at their value, `heldValue`) up to its last keyed lane, so that most blocks hold all four
 * lanes and the kernel writes them without a mask; STEP lanes keep tracks.
 */
export function syncBlocks(
  reduced: readonly ReducedChannel[],
  sync: number | false,
  heldValue: (joint: number, path: number) => Float32Array,
  wide: boolean,
): { blocks: SyncBlock[]; held: Set<ReducedChannel> } {
  const blocks: SyncBlock[] = [], held = new Set<ReducedChannel>();
  if (sync === false) return { blocks, held };
  const byPath = new Map<number, ReducedChannel[]>();
  for (const r of reduced) {
    if (!("keys" in r)) continue;
    const key = (r.joint >> 2) * 3 + r.path, list = byPath.get(key);
    if (list) list.push(r);
    else byPath.set(key, [r]);
  }
  const timesUse = new Map<string, number>();
  for (const r of reduced) {
    if ("keys" in r) {
      timesUse.set(arrayKey(r.keys.times), (timesUse.get(arrayKey(r.keys.times)) ?? 0) + 1);
    }
  }
  const candidates: { block: SyncBlock; channels: ReducedChannel[] }[] = [];
  for (const [key, channels] of byPath) {
    const group = Math.floor(key / 3), path = key % 3;
    const lanes: (Lane | undefined)[] = [0, 1, 2, 3].map((l) =>
      group * 4 + l < sync ? heldValue(group * 4 + l, path) : undefined
    );
    for (const r of channels) {
      if ("keys" in r) {
        // STEP and bisected lanes keep their own tracks: a block's lanes nlerp between its keys.
        lanes[r.joint & 3] = r.keys.step || r.keys.bisect ? undefined : r.keys;
      }
    }
    // Held lanes past the last keyed one would only lengthen every key.
    for (let l = 3; l >= 0 && lanes[l] instanceof Float32Array; l--) lanes[l] = undefined;
    const b = block(group, path, lanes, wide, timesUse);
    if (b) candidates.push({ block: b, channels });
  }
  // The blocks that save bytes pay for those that cost some: the clip takes
  // no more than with per-lane tracks.
  candidates.sort((a, b) => a.block.extra - b.block.extra);
  const budget = syncPolicy.clipFactor * candidates.reduce((sum, c) => sum + c.block.perLane, 0);
  let extra = 0;
  for (const { block, channels } of candidates) {
    if ((extra += block.extra) > budget) break;
    blocks.push(block);
    for (const r of channels) if ("keys" in r && !r.keys.step && !r.keys.bisect) held.add(r);
  }
  return { blocks, held };
}
