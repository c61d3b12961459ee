/**
 * What a compact clip's build reads of its clip's key arrays: how many
 * bytes they hold (the build's byte policy and work limit), and the
 * identity and hash of their contents (shared builds, `compact_clip.ts`).
 *
 * @module
 */

import type { Clip } from "./clip.ts";

/** Bytes of `clip`'s key arrays (times and values), each distinct array once. */
export function keyArrayBytes(clip: Clip): number {
  // Channels mostly share their samplers' arrays: each object once, then by its bytes' place.
  const arrays = new Set<Float32Array>();
  for (const { times, values } of clip.channels) arrays.add(times).add(values);
  // By buffer: a build's clip is a copy whose arrays mostly have a buffer each
  // (a key of offset and length per array was most of a small clip's count).
  const buffers = new Map<ArrayBufferLike, Float32Array[]>();
  for (const array of arrays) {
    const list = buffers.get(array.buffer);
    if (list) list.push(array);
    else buffers.set(array.buffer, [array]);
  }
  let bytes = 0;
  for (const list of buffers.values()) {
    if (list.length === 1) {
      bytes += list[0].byteLength;
      continue;
    }
    const seen = new Set<string>();
    for (const { byteOffset, byteLength } of list) {
      const key = `${byteOffset};${byteLength}`;
      if (!seen.has(key)) seen.add(key), bytes += byteLength;
    }
  }
  return bytes;
}

const arrayIds = new WeakMap<object, number>();
let nextArrayId = 1;

/**
 * A 53-bit hash of the bytes of `clip`'s key arrays: arrays can be written
 * in place after a build, so a new clip on the same arrays shares the
 * build only if their contents still hash the same.
 */
export function contentHash(clip: Clip): number {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (const channel of clip.channels) {
    for (const array of [channel.times, channel.values]) {
      const words = new Uint32Array(array.buffer, array.byteOffset, array.length);
      for (let i = 0; i < words.length; i++) {
        h1 = Math.imul(h1 ^ words[i], 2654435761);
        h2 = Math.imul(h2 ^ words[i], 1597334677);
      }
      h1 = Math.imul(h1 ^ words.length, 2246822507);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/**
 * What a compact clip depends on in `clip`: its name, duration and, per
 * channel, joint, path, interpolation and the identity of its key arrays.
 */
export function contentKey(clip: Clip): string {
  const id = (array: object) => {
    let n = arrayIds.get(array);
    if (n === undefined) arrayIds.set(array, n = nextArrayId++);
    return n;
  };
  return `${clip.duration};${
    clip.channels.map((c) =>
      `${c.joint},${c.path},${c.interpolation},${id(c.times)},${id(c.values)}`
    )
      .join(";")
  };${clip.name}`;
}
