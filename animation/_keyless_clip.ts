/**
 * What the systems read of a clip besides its compact form: which
 * properties of which joints it animates (a layer's effective mask), and
 * the channels root motion samples. A clip's own channels, unless it holds
 * no keys because it was loaded from a compact clip file
 * (`clip_file.ts`): then what the file stored of the clip it was saved
 * from, so that it plays as that clip does.
 *
 * @module
 */

import type { ChannelPath, Clip, ClipChannel } from "./clip.ts";
import { privateSlot } from "./_private_slot.ts";

/** A property of a joint that a clip animates. */
export interface AnimatedProperty {
  readonly joint: number;
  readonly path: ChannelPath;
}

interface KeylessParts {
  readonly animated: readonly AnimatedProperty[];
  readonly motion: readonly ClipChannel[];
}

/** A slot, not a WeakMap: a loaded clip's entry outlived it in the young generation (`_private_slot.ts`). */
const keyless = privateSlot<KeylessParts>();

/** Records what the clip `clip` (which has no channels) was saved with. */
export function describeKeylessClip(clip: Clip, parts: KeylessParts): void {
  keyless.set(clip, parts);
}

/** The properties `clip` animates: one per channel (at most one per joint and path). */
export function animatedProperties(clip: Clip): readonly AnimatedProperty[] {
  return keyless.get(clip)?.animated ?? clip.channels;
}

/** The channels with keys that root motion may sample. */
export function motionChannels(clip: Clip): readonly ClipChannel[] {
  return keyless.get(clip)?.motion ?? clip.channels;
}
