/**
 * The web demo's canvas read back for the browser tests: its pixels, and
 * their shares by colour family (a textured character shows several, a
 * plain one one).
 *
 * @module
 */

import type * as THREE from "three";

/** The page's background colour (#20242b). */
const BACKGROUND = [0x20, 0x24, 0x2b];

/** `scene` drawn now, read back as RGBA bytes (bottom row first). */
export function canvasPixels(
  renderer: THREE.WebGLRenderer,
  scene: THREE.Scene,
  camera: THREE.Camera,
): { width: number; height: number; rgba: Uint8Array } {
  renderer.render(scene, camera);
  const gl = renderer.getContext();
  const { drawingBufferWidth: width, drawingBufferHeight: height } = gl;
  const rgba = new Uint8Array(width * height * 4);
  gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, rgba);
  return { width, height, rgba };
}

/**
 * Shares of the drawn pixels by colour family: "grey" (saturation below
 * 0.25) or one of six 60° hue sectors; background pixels left out.
 */
export function colourFamilies({ rgba }: { rgba: Uint8Array }): Record<string, number> {
  const counts: Record<string, number> = {};
  let drawn = 0;
  for (let i = 0; i < rgba.length; i += 4) {
    const r = rgba[i], g = rgba[i + 1], b = rgba[i + 2];
    const off = Math.abs(r - BACKGROUND[0]) + Math.abs(g - BACKGROUND[1]) +
      Math.abs(b - BACKGROUND[2]);
    if (off < 12) continue;
    const max = Math.max(r, g, b), c = max - Math.min(r, g, b);
    let family = "grey";
    if (max > 0 && c / max >= 0.25) {
      const hue = max === r ? ((g - b) / c + 6) % 6 : max === g ? (b - r) / c + 2 : (r - g) / c + 4;
      family = `hue ${Math.floor(hue) * 60}`;
    }
    counts[family] = (counts[family] ?? 0) + 1;
    drawn++;
  }
  for (const key of Object.keys(counts)) counts[key] /= drawn;
  return counts;
}
