/**
 * GPU buffers over Marrow's skinned streams, for the web page: 4 floats
 * per vertex, xyz used. WebGL refuses views of a resizable buffer, which
 * the core's memory is where views survive its growth (Chromium): there a
 * stream is copied as a block into a fixed array each frame.
 *
 * @module
 */

import * as THREE from "three";

/** A GPU buffer over a skinned stream `view`: the view itself (`direct`) or a copy. */
export function streamBuffer(view: Float32Array, direct: boolean): THREE.InterleavedBuffer {
  return new THREE.InterleavedBuffer(direct ? view : view.slice(), 4)
    .setUsage(THREE.DynamicDrawUsage);
}

/** Points `buffer` at this frame's `view` (or copies it) and marks it for upload. */
export function refresh(
  buffer: THREE.InterleavedBuffer,
  view: Float32Array,
  direct: boolean,
): void {
  // Direct: the same view unless the core's memory grew (then a new view, same length).
  if (direct) buffer.array = view;
  else (buffer.array as Float32Array).set(view);
  buffer.needsUpdate = true;
}
