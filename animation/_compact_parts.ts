/**
 * A compact clip as parts, and back: what a compact clip file
 * (`clip_file.ts`) saves of one, and a compact clip made in the core from
 * parts already validated (`_clip_file_image.ts`), without a build.
 *
 * @module
 */

import type { SkeletonAsset } from "./skeleton_asset.ts";
import { CompactClip } from "./compact_clip.ts";
import { attachLifetime } from "./_lifetime.ts";
import { compactClipInternals, setCompactClipInternals } from "./_asset_internals.ts";
import { budgetOf, ClipBudgetError } from "./clip_budget.ts";
import { coreMemory } from "../simd/memory/internal.ts";

/** Everything a compact clip is, outside the core. */
export interface CompactClipParts {
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
  /** A playback's cache before its first sample, or what makes it on first use. */
  readonly cacheTemplate: Uint8Array | (() => Uint8Array);
  /** Whether a channel holds STEP keys (its samplers round the time down to float32). */
  readonly steps: boolean;
}

/** The parts of `compact`, built for `skeleton`: its image is a copy of its bytes in the core. */
export function compactClipParts(
  compact: CompactClip,
  skeleton: SkeletonAsset,
): CompactClipParts & { readonly cacheTemplate: Uint8Array } {
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

/**
 * A compact clip for `skeleton` from `parts`, which the caller validated
 * for it: its image copied into the core, within the clip budget (a
 * `ClipBudgetError` before allocating). Made without the constructor,
 * which builds from a clip's keys.
 */
export function compactClipFromParts(
  skeleton: SkeletonAsset,
  parts: CompactClipParts,
): CompactClip {
  const budget = budgetOf(skeleton.core);
  const bytes = parts.image.length;
  if (bytes > budget.limit - budget.used) {
    throw new ClipBudgetError(parts.name, skeleton, bytes, false, budget);
  }
  const memory = coreMemory(skeleton.core);
  const block = memory.alloc(bytes);
  memory.views().u8.set(parts.image, block);
  budget.used += bytes;
  const compact: CompactClip = Object.create(CompactClip.prototype);
  Object.assign(compact, {
    name: parts.name,
    duration: parts.duration,
    groupCount: parts.groupCount,
    trackCount: parts.trackCount,
    keyCount: parts.keyCount,
    bytes,
    tolerance: parts.tolerance,
    virtualDistance: parts.virtualDistance,
    maxError: parts.maxError,
  });
  attachLifetime(compact, () => {
    memory.free(block);
    budget.used -= bytes;
  });
  const template = parts.cacheTemplate;
  // A file's template is made on the first play: a skeleton's caches can outweigh its clips' bytes.
  let made = typeof template === "function" ? undefined : template;
  setCompactClipInternals(compact, {
    byteOffset: block,
    get cacheTemplate() {
      return made ??= (template as () => Uint8Array)();
    },
    steps: parts.steps,
  });
  return compact;
}
