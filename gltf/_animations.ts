/**
 * Animations as clips: each glTF animation is read once, then cut into one
 * clip per skeleton with the channels that target its joints and the morph
 * `weights` channels of the meshes that go with it (`gltf/_morph.ts`
 * reads those). Every channel counts in the animation's time range, as
 * three.js counts them. Rotation keys
 * (`LINEAR`, `STEP`) are normalized, since real files are off by up to
 * 2e-4.
 *
 * @module
 */

import { markClip, readMarkers } from "./_markers.ts";
import type { ClipMarker } from "../animation/markers.ts";
import type { Animation, AnimationSampler, Mesh, Node } from "@gltf-transform/core";
import type { ChannelPath, Clip, ClipChannel, Interpolation } from "../animation/clip.ts";
import { ClipError, MIN_KEY_INTERVAL, validateClip } from "../animation/clip_validation.ts";
import type { ImportContext } from "./_context.ts";
import { type ReadWeightsChannel, readWeightsChannel } from "./_morph.ts";

/** One glTF animation channel, converted once and shared by skeletons. */
interface ReadChannel {
  readonly target: Node;
  readonly node: number;
  readonly index: number;
  readonly path: ChannelPath;
  readonly interpolation: Interpolation;
  readonly times: Float32Array;
  readonly values: Float32Array;
}

/** One glTF animation, read. */
interface ReadAnimation {
  readonly name: string;
  readonly index: number;
  readonly start: number;
  readonly end: number;
  readonly channels: readonly ReadChannel[];
  readonly weights: readonly ReadWeightsChannel[];
  /** Markers from the animation's `extras.markers`. */
  readonly markers: readonly ClipMarker[];
}

const JOINT_PATHS: readonly string[] = ["translation", "rotation", "scale"];

/** Reads animation `index`; node and mesh indices come from `nodeIndex` and `meshIndex`. */
export function readAnimation(
  ctx: ImportContext,
  animation: Animation,
  index: number,
  nodeIndex: Map<Node, number>,
  meshIndex: Map<Mesh, number>,
): ReadAnimation {
  const pointer = `/animations/${index}`;
  const samplerIndex = new Map<AnimationSampler, number>(
    animation.listSamplers().map((s, k) => [s, k]),
  );
  let start = Infinity, end = -Infinity;
  const channels: ReadChannel[] = [];
  const weights: ReadWeightsChannel[] = [];
  const seen = new Set<string>();
  animation.listChannels().forEach((channel, c) => {
    const sampler = channel.getSampler()!;
    const at = `${pointer}/samplers/${samplerIndex.get(sampler)}`;
    const input = sampler.getInput()!, output = sampler.getOutput()!;
    // Channels may share a sampler: each makes its own copy, so each is counted.
    ctx.spend(
      input.getCount() + output.getCount() * output.getElementSize(),
      `${pointer}/channels/${c}`,
      "the channel's keys",
    );
    const times = Float32Array.from(input.getArray()!);
    for (let i = 0; i < times.length; i++) {
      if (
        !(times[i] >= 0) || !Number.isFinite(times[i]) ||
        (i > 0 && !(times[i] - times[i - 1] >= MIN_KEY_INTERVAL))
      ) {
        ctx.fail(
          `${at}/input`,
          `key times must be finite, >= 0 and strictly increasing by at least ${MIN_KEY_INTERVAL} s, ` +
            `but key ${i} is at ${times[i]}` +
            (i > 0 ? ` after ${times[i - 1]}` : ""),
        );
      }
    }
    start = Math.min(start, times[0]);
    end = Math.max(end, times[times.length - 1]);

    const target = channel.getTargetNode();
    const path = channel.getTargetPath();
    if (!target || !path || (path !== "weights" && !JOINT_PATHS.includes(path))) return;
    const interpolation = sampler.getInterpolation() as Interpolation;
    const key = `${nodeIndex.get(target)}/${path}`;
    if (seen.has(key)) {
      ctx.warnings.push(
        `${pointer}/channels/${c} animates node ${key} a second time; it is ignored`,
      );
      return;
    }
    seen.add(key);
    if (path === "weights") {
      const channelAt = `${pointer}/channels/${c}`;
      const read = readWeightsChannel(ctx, channel, times, meshIndex, nodeIndex, channelAt, at);
      if (read) weights.push(read);
      return;
    }
    const size = path === "rotation" ? 4 : 3;
    const perKey = interpolation === "CUBICSPLINE" ? 3 : 1;
    if (output.getElementSize() !== size || output.getCount() !== times.length * perKey) {
      ctx.fail(
        `${at}/output`,
        `${times.length} keys of ${interpolation} ${path} need ${
          times.length * perKey
        } VEC${size} ` +
          `values, the output has ${output.getCount()} ${output.getType()}`,
      );
    }
    if (output.getComponentType() !== 5126 && !output.getNormalized()) {
      ctx.fail(`${at}/output`, "integer key values must be normalized");
    }
    const values = new Float32Array(output.getCount() * size);
    const e: number[] = [];
    for (let i = 0; i < output.getCount(); i++) {
      output.getElement(i, e);
      for (let k = 0; k < size; k++) values[i * size + k] = e[k];
    }
    for (let i = 0; i < values.length; i++) {
      if (!(Math.abs(values[i]) < 1e18)) {
        ctx.fail(`${at}/output`, `value ${Math.floor(i / size)} is not finite or beyond ±1e18`);
      }
    }
    if (path === "rotation" && perKey === 1) {
      for (let o = 0; o < values.length; o += 4) {
        const len = Math.hypot(values[o], values[o + 1], values[o + 2], values[o + 3]);
        if (!(len > 1e-9)) {
          ctx.fail(`${at}/output`, `rotation key ${o / 4} is not a rotation (length ${len})`);
        }
        for (let k = 0; k < 4; k++) values[o + k] /= len;
      }
    }
    channels.push({
      target,
      node: nodeIndex.get(target)!,
      index: c,
      path: path as ChannelPath,
      interpolation,
      times,
      values,
    });
  });
  if (start === Infinity) start = end = 0;
  // Unnamed animations get the name glTF viewers (three.js) give them.
  const name = animation.getName() || `animation_${index}`;
  const markers = readMarkers(ctx, animation, index, end);
  return { name, index, start, end, channels, weights, markers };
}

/**
 * The clip of `animation` for the skeleton whose joints `jointOfNode` maps
 * and whose meshes the nodes `meshNodes` instance.
 */
export function clipFor(
  ctx: ImportContext,
  animation: ReadAnimation,
  jointOfNode: Map<Node, number>,
  meshNodes: ReadonlySet<Node>,
): Clip {
  // Every skeleton looks at every channel: counted before the loop.
  ctx.spend(
    animation.channels.length,
    `/animations/${animation.index}`,
    "the animation's channels",
  );
  const channels: (ClipChannel & { readonly index: number })[] = [];
  for (const ch of animation.channels) {
    const joint = jointOfNode.get(ch.target);
    if (joint === undefined) continue;
    channels.push({
      joint,
      path: ch.path,
      interpolation: ch.interpolation,
      times: ch.times,
      values: ch.values,
      node: ch.node,
      index: ch.index,
    });
  }
  ctx.spend(
    channels.length * 8,
    `/animations/${animation.index}`,
    `the clip's ${channels.length} channels`,
  );
  const morphChannels = animation.weights.filter((w) => meshNodes.has(w.target))
    .map(({ target: _, ...channel }) => channel);
  // Joint order keeps sampling's writes moving forward through the pose.
  channels.sort((a, b) => a.joint - b.joint);
  const clip: Clip = {
    name: animation.name,
    animation: animation.index,
    start: animation.start,
    duration: animation.end,
    channels: channels.map(({ index: _, ...channel }) => channel),
    ...(morphChannels.length ? { morphChannels } : {}),
  };
  try {
    validateClip(clip);
  } catch (e) {
    if (!(e instanceof ClipError)) throw e;
    const channel = channels[e.channel];
    ctx.fail(
      `/animations/${animation.index}${channel ? `/channels/${channel.index}` : ""}`,
      `the animation is not a valid clip (${e.message})`,
      e,
    );
  }
  markClip(clip, animation.markers);
  return clip;
}
