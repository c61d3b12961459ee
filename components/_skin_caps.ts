/**
 * Influence caps, precomputed: a skin capped at k influences per vertex
 * (level of detail, `Skin.maxInfluences`) as parts, joints and weights of
 * each vertex's k heaviest influences (a skin asset sorts them so), the
 * weights renormalized to sum to one, in the layout of the skin's own
 * mesh. Built once per world, skin and cap, when an entity is first
 * skinned with that cap, into a job table of the world (freed with it: at
 * most one per cap below the skin's most influences, each no larger than
 * the skin's joints and weights). A capped entity's rows read them, so
 * the kernel runs its k-influence loop with no per-vertex renormalization.
 *
 * @module
 */

import type { SkinAsset } from "../animation/skin_asset.ts";
import { skinInternals } from "../animation/internal.ts";
import type { JobTable } from "./_job_table.ts";
import type { WorldState } from "./registry.ts";

/** Each skin's table names by cap, made once: a name built per row would be garbage every frame. */
const names = new WeakMap<SkinAsset, string[]>();
let lastName = 0;
/** The skin a table was built from (a world reset makes new tables). */
const builtFrom = new WeakMap<JobTable, SkinAsset>();
/** The skin's own kernel words, read before a build. */
const own = new Uint32Array(7);

/** Bytes rounded up to 16, as the skin's mesh pads its sections (the kernels' vector loads). */
const pad = (bytes: number): number => Math.ceil(bytes / 16) * 16;

/**
 * Writes into `words` the kernel words parts, part count, joints and
 * weights (indices 0 to 3) of `asset` capped at `cap` influences (below
 * its most), building them in `state`'s tables on first use.
 */
export function cappedWords(
  state: WorldState,
  asset: SkinAsset,
  cap: number,
  words: Uint32Array,
): void {
  let byCap = names.get(asset);
  if (!byCap) names.set(asset, byCap = []);
  const name = byCap[cap] ??= `skin caps: ${++lastName}`;
  const table = state.jobs(name);
  if (builtFrom.get(table) !== asset || table.ptr === 0) build(state, asset, cap, table);
  const partCount = skinInternals(asset).mesh.partCount;
  const joints = table.ptr + pad(partCount * 8);
  words[0] = table.ptr, words[1] = partCount, words[2] = joints;
  words[3] = joints + pad(table.count * 2);
}

/** Builds `asset` capped at `cap` into `table` (its `count`: the capped influences). */
function build(state: WorldState, asset: SkinAsset, cap: number, table: JobTable): void {
  const mesh = skinInternals(asset).mesh;
  mesh.writeKernelWords(own, 0);
  const partCount = own[1];
  let { u32 } = state.memory;
  let total = 0;
  for (let p = 0; p < partCount; p++) {
    total += Math.min(u32[(own[0] >> 2) + 2 * p], cap) * u32[(own[0] >> 2) + 2 * p + 1];
  }
  const bytes = pad(partCount * 8) + pad(total * 2) + pad(total * 4);
  table.begin(bytes / 4, 1);
  // The allocation may have grown the memory: views again.
  const memory = state.memory;
  u32 = memory.u32;
  const { u16, f32 } = memory;
  const parts = table.ptr >> 2, joints = (table.ptr + pad(partCount * 8)) >> 1;
  const weights = (table.ptr + pad(partCount * 8) + pad(total * 2)) >> 2;
  let from = 0, to = 0;
  for (let p = 0; p < partCount; p++) {
    const n = u32[(own[0] >> 2) + 2 * p], count = u32[(own[0] >> 2) + 2 * p + 1];
    const used = Math.min(n, cap);
    u32[parts + 2 * p] = used, u32[parts + 2 * p + 1] = count;
    for (let v = 0; v < count; v++, from += n, to += used) {
      let sum = 0;
      for (let i = 0; i < used; i++) sum += f32[(own[3] >> 2) + from + i];
      for (let i = 0; i < used; i++) {
        u16[joints + to + i] = u16[(own[2] >> 1) + from + i];
        const w = f32[(own[3] >> 2) + from + i];
        f32[weights + to + i] = used === n ? w : used === 1 ? 1 : w / sum;
      }
    }
  }
  table.count = total;
  builtFrom.set(table, asset);
}
