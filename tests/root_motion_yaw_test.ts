/**
 * Root motion's yaw is the turn's angle wrapped into (-π, π], compared
 * exactly, not modulo 2π: a clip turning the root 0 → 90° about +y whose
 * second key is stored as -q (the same rotation) turns by +π/2 at weight
 * 1 and +π/4 at weight 0.5. Without the wrap the heading reads -3π/2 at
 * weight 1 and -3π/4 at 0.5: a blended heading wrong by π.
 */

import { assertAlmostEquals } from "@std/assert";
import { type Clip, createAnimationPipeline, createClip, playClip } from "../mod.ts";
import { addLayer } from "../layers.ts";
import { enableRootMotion, getRootMotion } from "../clips.ts";
import { BUILDS, createScene } from "./_scene.ts";

const HALF = Math.SQRT1_2;

/**
 * The root turning about +y from 0 to 90° in 1 s (its last key stored as -q
 * when `negated`), or holding still (`turns` false); its translation keyed
 * too, so that the layer's weight at the root counts for the blend.
 */
function rootClip(name: string, turns: boolean, negated = false): Clip {
  const w = turns ? (negated ? -HALF : HALF) : 1, y = turns ? (negated ? -HALF : HALF) : 0;
  const times = Float32Array.of(0, 1);
  return createClip({
    name,
    channels: [
      {
        joint: 0,
        path: "rotation",
        interpolation: "LINEAR",
        times,
        values: Float32Array.of(0, 0, 0, 1, 0, y, 0, w),
        node: 0,
      },
      {
        joint: 0,
        path: "translation",
        interpolation: "LINEAR",
        times,
        values: new Float32Array(6),
        node: 0,
      },
    ],
  });
}

for (const build of BUILDS) {
  Deno.test(`${build}: a turn whose last key is -q gives dyaw +π/2 at weight 1 and +π/4 at 0.5`, () => {
    for (const negated of [false, true]) {
      const alone = createScene(build, 1);
      const [a] = alone.entities;
      playClip(alone.world, a, rootClip("turn", true, negated), { wrap: "clamp" });
      enableRootMotion(alone.world, a);
      createAnimationPipeline()(alone.world, 1);
      assertAlmostEquals(getRootMotion(alone.world, a).dyaw, Math.PI / 2, 1e-6, `-q: ${negated}`);

      // Half the weight at the root: a still base and the turn on a blend layer, both of weight 1.
      const blended = createScene(build, 1);
      const [b] = blended.entities;
      playClip(blended.world, b, rootClip("still", false), { wrap: "clamp" });
      addLayer(blended.world, b, rootClip("turn", true, negated), {
        mode: "blend",
        weight: 1,
        wrap: "clamp",
      });
      enableRootMotion(blended.world, b);
      createAnimationPipeline()(blended.world, 1);
      assertAlmostEquals(getRootMotion(blended.world, b).dyaw, Math.PI / 4, 1e-6, `-q: ${negated}`);
    }
  });
}
