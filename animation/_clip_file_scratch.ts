/**
 * What the checks of a compact clip file's images (`_clip_file_image.ts`)
 * keep between images instead of making them per image: the tables of the
 * key arrays checked, and what the lanes say of each track, block and
 * group. Objects made per image cost more than a small image's checks.
 *
 * @module
 */

/**
 * The key arrays an image's records name, by offset, with the key count
 * (or end) each was checked for, as a Map would keep them: in tables
 * reused by every image (two Maps per image cost more than its checks),
 * hashed with a multiplier drawn per process, so that no file can choose
 * offsets that collide.
 */
class CheckedOffsets {
  readonly #offsets: Uint32Array;
  readonly #values: Uint32Array;
  readonly #stamps: Uint32Array;
  readonly #shift: number;
  #stamp = 0;

  /** A table for `records` offsets at most. */
  constructor(records: number) {
    let bits = 4;
    while (1 << bits < records * 2) bits++;
    this.#offsets = new Uint32Array(1 << bits);
    this.#values = new Uint32Array(1 << bits);
    this.#stamps = new Uint32Array(1 << bits);
    this.#shift = 32 - bits;
  }

  /** Empties the table. */
  clear(): void {
    if (++this.#stamp === 0xffffffff) this.#stamps.fill(0), this.#stamp = 1;
  }

  /** Whether `offset` was checked for `value`; it is recorded for `value` either way. */
  checked(offset: number, value: number): boolean {
    const mask = this.#stamps.length - 1, stamp = this.#stamp;
    let i = Math.imul(offset, HASH_MULTIPLIER) >>> this.#shift;
    while (this.#stamps[i] === stamp) {
      if (this.#offsets[i] === offset) {
        const same = this.#values[i] === value;
        this.#values[i] = value;
        return same;
      }
      i = (i + 1) & mask;
    }
    this.#stamps[i] = stamp;
    this.#offsets[i] = offset;
    this.#values[i] = value;
    return false;
  }
}

const HASH_MULTIPLIER = (Math.random() * 2 ** 32) | 1;
/** Records of the tables kept between images (larger images get tables of their own). */
const KEPT_RECORDS = 2048;
const keptTables = [new CheckedOffsets(KEPT_RECORDS), new CheckedOffsets(KEPT_RECORDS)];

/** Empty table `which` (0 times, 1 values) for `records` offsets. */
export function checkedOffsets(which: number, records: number): CheckedOffsets {
  const table = records <= KEPT_RECORDS ? keptTables[which] : new CheckedOffsets(records);
  table.clear();
  return table;
}

/** What the lanes say of each track and block, and of each group (`laneScratch`). */
interface LaneScratch {
  /** Per track, the path of the lane naming it (-1: none yet). */
  trackPath: Int8Array;
  /** Per block, `group * 3 + path` of the lanes naming it (-1: none yet). */
  blockPlace: Int32Array;
  /** Per block, the lanes (bits 0-3) naming it. */
  blockLanes: Uint8Array;
  /** Per group, the lanes that name a track or block (bit `path * 4 + lane`). */
  unheld: Uint16Array;
}

/** Kept between images (4 arrays each cost more than a small image's checks), grown as needed. */
const scratch: LaneScratch = {
  trackPath: new Int8Array(256),
  blockPlace: new Int32Array(256),
  blockLanes: new Uint8Array(256),
  unheld: new Uint16Array(256),
};

/** The lane scratch, cleared for `tracks` tracks, `blocks` blocks and `groups` groups. */
export function laneScratch(tracks: number, blocks: number, groups: number): LaneScratch {
  if (scratch.trackPath.length < tracks) scratch.trackPath = new Int8Array(tracks);
  if (scratch.blockPlace.length < blocks) {
    scratch.blockPlace = new Int32Array(blocks);
    scratch.blockLanes = new Uint8Array(blocks);
  }
  if (scratch.unheld.length < groups) scratch.unheld = new Uint16Array(groups);
  scratch.trackPath.fill(-1, 0, tracks);
  scratch.blockPlace.fill(-1, 0, blocks);
  scratch.blockLanes.fill(0, 0, blocks);
  scratch.unheld.fill(0, 0, groups);
  return scratch;
}
