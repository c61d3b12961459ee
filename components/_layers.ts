/**
 * An entity's animation layers as Marrow keeps them: each layer's state,
 * and its memory in the core (its sampled pose, its effective mask, and for
 * additive layers the reference pose), allocated in one block per layer and
 * freed with it.
 *
 * @module
 */

import type { Clip } from "../animation/clip.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { animatedProperties } from "../animation/internal.ts";
import { poseFloats } from "../simd/memory/layout.ts";
import type { CoreMemory } from "../simd/memory/internal.ts";
import type { Playback } from "./_playback.ts";

/**
 * How a layer combines with the others: `"blend"` layers average together
 * (ozz-animation's BlendingJob: by weight × mask, normalized, the rest pose
 * filling in below the threshold); `"override"` and `"additive"` layers then
 * apply on that, in layer order, an override replacing by weight × mask what
 * is below it, an additive adding its clip's change from a reference.
 */
export type LayerMode = "blend" | "override" | "additive";

/** Most layers an entity may have (the base layer included). */
export const MAX_LAYERS = 32;

/** @internal One clip of a 1D blend: the clip and where it sits on the parameter axis. */
interface BlendPoint {
  readonly playback: Playback;
  readonly at: number;
}

/** @internal A 1D blend of clips by a parameter, their normalized times in phase. */
interface Blend1D {
  readonly points: readonly BlendPoint[];
  parameter: number;
  /** Normalized time (phase, in cycles) shared by every clip. */
  phase: number;
  /** Phase rate multiplier (1: the blended cycle length). */
  speed: number;
  /** Pose the second clip of a pair is sampled into before blending. */
  readonly scratch: number;
  /**
   * The pair last sampled, points `lower` and the next (or `lower` again
   * at the end), and the second's weight in it: morph weights blend by them too.
   */
  lower: number;
  alpha: number;
}

/** @internal One layer of an entity. Layer 0 plays the ClipPlayer's clips. */
export interface Layer {
  /** The layer's clip; undefined for layer 0 (the player's current and next clips). */
  readonly playback: Playback | undefined;
  /** Set for a locomotion layer, whose clips are `blend.points`. */
  readonly blend: Blend1D | undefined;
  readonly mode: LayerMode;
  weight: number;
  /** Weight being faded to, and the fade's rate in weight per second. */
  target: number;
  rate: number;
  /**
   * Additive layers: the clip time the morph weights are relative to (the
   * reference time, or 0 for a reference pose, which holds no weights).
   */
  readonly referenceTime: number;
  /** The game's mask (one weight per joint), if any. */
  mask: Float32Array | undefined;
  /** Byte offsets in the core: the layer's block (its pose), mask, reference. */
  readonly block: number;
  readonly maskPtr: number;
  readonly reference: number;
  /** What the effective mask was last built from: clips and the game's mask. */
  maskKey: unknown[];
}

/** @internal All layers of an entity. */
export interface LayerStack {
  readonly layers: Layer[];
  /** Byte offset of the entity's rest pose in the core (the blend's fallback). */
  readonly rest: number;
  threshold: number;
}

/** Lanes of a pose: one per joint of every group (padding lanes included). */
function lanesOf(jointCount: number): number {
  return Math.ceil(jointCount / 4) * 4;
}

/** Floats of an effective mask: a weight per lane for translation, rotation and scale. */
function maskFloats(jointCount: number): number {
  return 3 * lanesOf(jointCount);
}

/** Part of the effective mask each channel path weighs. */
const MASK_PART = { translation: 0, rotation: 1, scale: 2 } as const;

/** @internal Allocates a layer's block; `additive` adds room for the reference pose. */
export function allocateLayer(
  memory: CoreMemory,
  jointCount: number,
  fields: Omit<Layer, "block" | "maskPtr" | "reference" | "maskKey">,
): Layer {
  const pose = poseFloats(jointCount) * 4, mask = maskFloats(jointCount) * 4;
  const block = memory.alloc(pose + mask + (fields.mode === "additive" ? pose : 0));
  return {
    ...fields,
    block,
    maskPtr: block + pose,
    reference: fields.mode === "additive" ? block + pose + mask : 0,
    maskKey: [],
  };
}

/** The playbacks of a layer 1 and up: its clip's, or its 1D blend's. */
function playbacksOf(layer: Layer): Playback[] {
  return layer.playback ? [layer.playback] : layer.blend!.points.map((point) => point.playback);
}

/**
 * @internal Gives each playback of a new layer its own sampler (a cache in
 * the core, and a hold on its compact clip). When one cannot be allocated,
 * frees the layer (the samplers made so far with it) and throws.
 */
export function startLayer(memory: CoreMemory, layer: Layer): void {
  try {
    for (const playback of playbacksOf(layer)) {
      playback.sampler = new ClipSampler(playback.compact, memory);
    }
  } catch (e) {
    releaseLayer(memory, layer);
    throw e;
  }
}

/** @internal Frees a layer's block and its playbacks' samplers (their clips released). */
export function releaseLayer(memory: CoreMemory, layer: Layer): void {
  memory.free(layer.block);
  if (layer.blend) memory.free(layer.blend.scratch);
  if (layer.playback || layer.blend) {
    for (const playback of playbacksOf(layer)) playback.sampler?.release();
  }
}

/** @internal Frees a whole stack. */
export function releaseStack(memory: CoreMemory, stack: LayerStack): void {
  for (const layer of stack.layers) releaseLayer(memory, layer);
  memory.free(stack.rest);
  stack.layers.length = 0;
}

const animatedSlots = new WeakMap<Clip, { lanes: number; list: Uint32Array }>();

/**
 * Which properties of which joints `clip` animates: `(path part) * lanes +
 * joint` for each channel (channels were checked against the skeleton).
 */
function animated(clip: Clip, jointCount: number): Uint32Array {
  const slots = animatedSlots.get(clip), lanes = lanesOf(jointCount);
  return slots && slots.lanes === lanes ? slots.list : animatedSlotsOf(clip, lanes);
}

/**
 * {@linkcode animated}'s list, made and kept. Its own function: the
 * callback captures `lanes`, and a function whose variable a closure
 * captures allocates a context on every call, taken or not (about 30 bytes
 * each time a cross-fade changed a layer's mask).
 */
function animatedSlotsOf(clip: Clip, lanes: number): Uint32Array {
  const list = Uint32Array.from(
    animatedProperties(clip),
    (property) => MASK_PART[property.path] * lanes + property.joint,
  );
  animatedSlots.set(clip, { lanes, list });
  return list;
}

/**
 * @internal Writes the layer's effective mask into the core when its inputs
 * changed: the game's mask, per property (translation, rotation, scale) of
 * each joint, and 0 for the properties neither `clip` nor `other` (a
 * cross-fade's or 1D blend's second clip, if any) animates (a layer leaves
 * those to the other layers, as three.js leaves a property an action has
 * no track for). Allocates nothing: a cross-fade changes the inputs every
 * time it starts and ends.
 */
export function updateMask(
  memory: CoreMemory,
  layer: Layer,
  clip: Clip,
  other: Clip | undefined,
  jointCount: number,
): void {
  const key = layer.maskKey;
  if (key.length === 3 && key[0] === layer.mask && key[1] === clip && key[2] === other) return;
  key[0] = layer.mask, key[1] = clip, key[2] = other;
  const f32 = memory.views().f32, at = layer.maskPtr >> 2;
  f32.fill(0, at, at + maskFloats(jointCount));
  const lanes = lanesOf(jointCount), mask = layer.mask;
  for (let c = 0; c < 2; c++) {
    const slots = c === 0 ? animated(clip, jointCount) : other && animated(other, jointCount);
    for (let i = 0; slots && i < slots.length; i++) {
      f32[at + slots[i]] = mask ? mask[slots[i] % lanes] : 1;
    }
  }
}
