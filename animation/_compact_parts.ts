/**
 * A compact clip as parts: what a compact clip file (`clip_file.ts`)
 * saves of one (`_clip_file_group.ts` makes loaded ones).
 *
 * @module
 */

import type { SkeletonAsset } from "./skeleton_asset.ts";
import type { CompactClip } from "./compact_clip.ts";
import { compactClipInternals } from "./_asset_internals.ts";
import { coreMemory } from "../simd/memory/internal.ts";

/** Everything a compact clip is, outside the core. */
interface CompactClipParts {
  readonly name: string;
  readonly duration: number;
  readonly groupCount: number;
  readonly trackCount: number;
  readonly keyCount: number;
  readonly tolerance: number;
  readonly virtualDistance: number;
  readonly maxError: number;
  /** The clip's bytes in the core (layout: `compact_clip.ts`). */
  readonly image: Uint8Array;
  /** A playback's cache before its first sample. */
  readonly cacheTemplate: Uint8Array;
  /** Whether a channel holds STEP keys (its samplers round the time down to float32). */
  readonly steps: boolean;
}

/** The parts of `compact`, built for `skeleton`: its image is a copy of its bytes in the core. */
export function compactClipParts(
  compact: CompactClip,
  skeleton: SkeletonAsset,
): CompactClipParts {
  const { u8 } = coreMemory(skeleton.core).views();
  const { byteOffset, cacheTemplate, steps } = compactClipInternals(compact);
  return {
    name: compact.name,
    duration: compact.duration,
    groupCount: compact.groupCount,
    trackCount: compact.trackCount,
    keyCount: compact.keyCount,
    tolerance: compact.tolerance,
    virtualDistance: compact.virtualDistance,
    maxError: compact.maxError,
    image: u8.slice(byteOffset, byteOffset + compact.bytes),
    cacheTemplate,
    steps,
  };
}
