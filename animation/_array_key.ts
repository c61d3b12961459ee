/**
 * A string that two typed arrays share exactly when their bytes are equal:
 * the key of the build's maps that find tracks and blocks with equal key
 * times or values (`_clip_image.ts`, `_sync_blocks.ts`). Two bytes a
 * character, computed once per array: `join()` formatted every float,
 * which took most of a build of long tracks.
 *
 * @module
 */

const keys = new WeakMap<ArrayBufferView, string>();

/** Units of an array passed to one `String.fromCharCode` (within engines' argument limits). */
const KEY_CHUNK = 0x2000;

/** The bytes of `array` as a string (its build-time arrays are never written after they are keyed). */
export function arrayKey(array: ArrayBufferView): string {
  let key = keys.get(array);
  if (key !== undefined) return key;
  const { buffer, byteOffset, byteLength } = array;
  const even = byteOffset % 2 === 0 && byteLength % 2 === 0;
  const units = even
    ? new Uint16Array(buffer, byteOffset, byteLength / 2)
    : new Uint8Array(buffer, byteOffset, byteLength);
  // Most arrays are a few keys: one call, no parts to join.
  if (units.length <= KEY_CHUNK) {
    key = (even ? "w" : "b") + String.fromCharCode.apply(null, units as unknown as number[]);
  } else {
    const parts: string[] = [even ? "w" : "b"];
    for (let i = 0; i < units.length; i += KEY_CHUNK) {
      parts.push(String.fromCharCode(...units.subarray(i, i + KEY_CHUNK)));
    }
    key = parts.join("");
  }
  keys.set(array, key);
  return key;
}
