/**
 * A clip whose fields answer differently from one read to the next — its
 * `channels`, a channel's joint, keys or interpolation, a Float32Array whose
 * own `length` or `buffer` were replaced — given to `CompactClip`: it is
 * read once, so the build is refused with a `ClipError` or is the build of
 * one consistent clip that passed validation (the one its first answers
 * make). Seeded random schedules (fast-check).
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import { identityPose } from "./_arena.ts";
import { Core } from "../kernels.ts";
import { type Clip, ClipError, SkeletonAsset } from "../mod.ts";
import { CompactClip } from "../animation/compact_clip.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";

const JOINTS = 6;
const core = Core.create("scalar");
const skeleton = new SkeletonAsset({
  names: Array.from({ length: JOINTS }, (_, i) => `j${i}`),
  parents: Int16Array.from({ length: JOINTS }, (_, i) => i - 1),
  restPose: identityPose(JOINTS),
  inverseBind: new Float32Array(JOINTS * 12).map((_, i) => (i % 12) % 5 === 0 ? 1 : 0),
}, core);

const honest = {
  joint: 2,
  path: "translation",
  interpolation: "LINEAR",
  times: Float32Array.from([0, 0.25, 0.5, 1]),
  values: Float32Array.from({ length: 12 }, (_, i) => Math.sin(i) * 0.3),
  node: 2,
} as const;

/** Lies a channel field may tell: out of the skeleton, out of bounds, out of order. */
const lies = {
  joint: [500, JOINTS, -1, 1.5],
  interpolation: ["CUBICSPLINE", "STEP", "SMOOTH"],
  times: [Float32Array.from([0, 0.5]), Float32Array.from([0, 2, 1, 3]), new Float32Array(40)],
  values: [new Float32Array(2), new Float32Array(12).fill(3e38), new Float32Array(12).fill(NaN)],
} as const;

/** A forged Float32Array: its own `length` and `buffer` tell of another array. */
function forged(array: Float32Array, other: Float32Array): Float32Array {
  const copy = array.slice();
  Object.defineProperty(copy, "length", { value: other.length });
  Object.defineProperty(copy, "buffer", { value: other.buffer });
  Object.defineProperty(copy, "subarray", { value: () => other });
  return copy;
}

function build(clip: Clip) {
  const compact = new CompactClip(clip, skeleton);
  const result = [compact.maxError, compact.keyCount, compact.bytes];
  lifetimeOf(compact).dispose();
  return result;
}

function clipOf(channel: object): Clip {
  return { name: "c", animation: 0, start: 0, duration: 1, channels: [channel] } as Clip;
}

const reference = build(clipOf(honest));

Deno.test("hostile clip reads: a clip that answers differently each read builds as its first answers", () => {
  const field = fc.constantFrom(...Object.keys(lies) as (keyof typeof lies)[]);
  fc.assert(
    fc.property(
      field,
      fc.nat({ max: 3 }),
      fc.nat({ max: 6 }),
      fc.constantFrom("channels", "field", "forged"),
      (name, pick, honestReads, where) => {
        const options = lies[name], lie = options[pick % options.length];
        let reads = 0;
        const answer = () => reads++ < honestReads ? honest[name] : lie;
        const liar = { ...honest } as Record<string, unknown>;
        if (where === "field") Object.defineProperty(liar, name, { get: answer, enumerable: true });
        if (where === "forged" && lie instanceof Float32Array) {
          liar[name] = forged(honest[name] as Float32Array, lie);
        }
        const bad = { ...honest, [name]: lie };
        let channelReads = 0;
        const clip = {
          name: "c",
          animation: 0,
          start: 0,
          duration: 1,
          get channels() {
            return [where === "channels" ? (channelReads++ < honestReads ? honest : bad) : liar];
          },
        } as unknown as Clip;
        // What reading each field once sees: the honest value until it lies (a
        // forged array's own contents are honest).
        const first = honestReads > 0 || where === "forged" ? honest : bad;
        const outcome = (c: Clip) => {
          try {
            return build(c);
          } catch (e) {
            assert(e instanceof ClipError, `a ClipError, got ${e}`);
            return "refused";
          }
        };
        const expected = first === honest ? reference : outcome(clipOf(first));
        assertEquals(outcome(clip), expected, "built as the clip of its first answers");
      },
    ),
    { seed: 3706, numRuns: 300 },
  );
});
