/**
 * Scratch for the checked skinning kernel: room for the core to transpose a
 * palette into columns (64 bytes per joint), allocated per call and freed
 * after it, so that a core holds nothing between calls. (The systems use
 * their world's job tables instead, which live as long as the world.)
 *
 * @module
 */

import { SKIN_SCRATCH_BYTES_PER_JOINT } from "./_abi.ts";
import { coreMemory } from "./_instance.ts";

interface Block {
  readonly byteOffset: number;
  readonly byteLength: number;
}

const lastBlocks = new WeakMap<object, Block>();

/** Bytes of skinning scratch for a palette of `jointCount` joints. */
export function skinScratchBytes(jointCount: number): number {
  return Math.max(1, jointCount) * SKIN_SCRATCH_BYTES_PER_JOINT;
}

/** Runs `call` with a scratch block of `core` for `jointCount` joints. */
export function withSkinScratch(
  core: object,
  jointCount: number,
  call: (ptr: number) => void,
): void {
  const memory = coreMemory(core);
  const byteLength = skinScratchBytes(jointCount);
  const byteOffset = memory.alloc(byteLength);
  lastBlocks.set(core, { byteOffset, byteLength });
  try {
    call(byteOffset);
  } finally {
    memory.free(byteOffset);
  }
}

/** The scratch block of `core`'s last skinning call (tests let the kernel write it). */
export function lastSkinScratch(core: object): Block | undefined {
  return lastBlocks.get(core);
}
