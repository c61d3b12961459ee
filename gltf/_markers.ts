/**
 * Clip markers a glTF animation carries in `extras.markers`:
 * `[{ "name": "footstep", "time": 0.4 }, …]`. Markers that are not of that
 * shape, or outside the animation's time span, are left out with a warning
 * naming their JSON pointer: they are the game's convention, not glTF's,
 * so they never fail an import.
 *
 * @module
 */

import type { Animation } from "@gltf-transform/core";
import type { Clip } from "../animation/clip.ts";
import { type ClipMarker, MAX_MARKERS, setClipMarkers } from "../animation/markers.ts";
import type { ImportContext } from "./_context.ts";

/** The markers of `animation` (index `index`) that suit clip times up to `duration`. */
export function readMarkers(
  ctx: ImportContext,
  animation: Animation,
  index: number,
  duration: number,
): ClipMarker[] {
  const pointer = `/animations/${index}/extras/markers`;
  const extras = animation.getExtras() as Record<string, unknown> | undefined;
  const markers = extras?.markers;
  if (markers === undefined) return [];
  if (!Array.isArray(markers)) {
    ctx.warnings.push(`${pointer}: not an array of { name, time }: ignored`);
    return [];
  }
  const read: ClipMarker[] = [];
  if (markers.length > MAX_MARKERS) {
    ctx.warnings.push(`${pointer}: more than ${MAX_MARKERS} markers: the rest are ignored`);
  }
  let bad = -1, badCount = 0;
  for (let i = 0; i < Math.min(markers.length, MAX_MARKERS); i++) {
    const { name, time } = (markers[i] ?? {}) as { name?: unknown; time?: unknown };
    if (typeof name !== "string" || typeof time !== "number" || !(time >= 0 && time <= duration)) {
      if (badCount++ === 0) bad = i;
      continue;
    }
    read.push({ name, time });
  }
  if (badCount) {
    ctx.warnings.push(
      `${pointer}/${bad}: expected { name: string, time: 0 to ${duration} }` +
        (badCount > 1 ? ` (and ${badCount - 1} more markers)` : "") + ": ignored",
    );
  }
  return read;
}

/** Gives `clip` the markers read for its animation, if any. */
export function markClip(clip: Clip, markers: readonly ClipMarker[]): void {
  if (markers.length) setClipMarkers(clip, markers);
}
