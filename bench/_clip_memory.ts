/**
 * The clip memory table of the README: for every glTF model, core bytes
 * of its clips (all clips, every skeleton) against the file's own
 * animation bytes (the bytes of the accessors its animations read, each
 * accessor once). A compact clip that skeletons of one structure share
 * counts once. Prints a Markdown table.
 *
 * Run: `deno run -A bench/_clip_memory.ts`
 *
 * @module
 */
import { SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { Core } from "../kernels.ts";
import { BakedClip } from "./_baked_clip.ts";
import { clipBytes } from "../animation/clip_budget.ts";
import { type CompactClip, compactClip } from "../animation/compact_clip.ts";
import { assetUrl, listAssets, readAsset } from "../tests/_three_gltf.ts";
import { COMPONENT_BYTES, TYPE_COMPONENTS } from "../gltf/_validate_data.ts";

interface GltfJson {
  accessors?: { count: number; componentType: number; type: string }[];
  animations?: { samplers: { input: number; output: number }[] }[];
}

/** The JSON of a .gltf or .glb file. */
function gltfJson(bytes: Uint8Array): GltfJson {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (view.getUint32(0, true) !== 0x46546c67) return JSON.parse(new TextDecoder().decode(bytes));
  const length = view.getUint32(12, true);
  return JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + length)));
}

/** Bytes of the accessors the file's animations read, each accessor once. */
export function animationBytes(bytes: Uint8Array): number {
  const json = gltfJson(bytes);
  const used = new Set<number>();
  for (const animation of json.animations ?? []) {
    for (const sampler of animation.samplers) used.add(sampler.input).add(sampler.output);
  }
  let total = 0;
  for (const a of used) {
    const accessor = json.accessors![a];
    total += accessor.count * COMPONENT_BYTES[accessor.componentType] *
      TYPE_COMPONENTS[accessor.type];
  }
  return total;
}

/** One row of the table. */
export interface ClipMemoryRow {
  model: string;
  clips: number;
  fileBytes: number;
  bakedBytes: number;
  compactBytes: number;
  /** Compact bytes with `sharedTimeline: false`: quantized keys per channel only. */
  perChannelBytes: number;
  /** Largest error of a clip, relative to its skeleton's tolerance. */
  maxErrorRatio: number;
  /** Largest error of a clip, model units. */
  maxError: number;
  buildMs: number;
}

/** Measures one model: its clips baked and compacted for their skeletons in a fresh core. */
export async function measureModel(file: string): Promise<ClipMemoryRow> {
  const model = await importGltf(assetUrl(file));
  const core = Core.create("simd");
  const baked: BakedClip[] = [];
  // Skeletons of the same structure share compact clips: each counts once.
  const counted = new Set<CompactClip>();
  let clips = 0, compactBytes = 0, maxErrorRatio = 0, maxError = 0, buildMs = 0;
  // The layout without shared timelines, on a core of its own (builds are per core).
  const perChannelCore = Core.create("simd");
  const perChannel = new Set<CompactClip>();
  for (const gltfSkeleton of model.skeletons) {
    const skeleton = new SkeletonAsset(gltfSkeleton.skeleton, core);
    for (const clip of gltfSkeleton.clips) {
      // Held until counted: a collected bake gives its bytes back.
      baked.push(new BakedClip(clip, skeleton));
      const start = performance.now();
      const compact = compactClip(clip, skeleton);
      buildMs += performance.now() - start;
      if (!counted.has(compact)) compactBytes += compact.bytes;
      counted.add(compact);
      perChannel.add(
        compactClip(clip, new SkeletonAsset(gltfSkeleton.skeleton, perChannelCore), {
          sharedTimeline: false,
        }),
      );
      maxError = Math.max(maxError, compact.maxError);
      maxErrorRatio = Math.max(maxErrorRatio, compact.maxError / compact.tolerance);
      clips++;
    }
  }
  return {
    model: file,
    clips,
    fileBytes: animationBytes(readAsset(file)),
    bakedBytes: clipBytes(core) - compactBytes,
    compactBytes,
    perChannelBytes: [...perChannel].reduce((sum, c) => sum + c.bytes, 0),
    maxErrorRatio,
    maxError,
    buildMs,
  };
}

function ratio(a: number, b: number): string {
  return b > 0 ? `${(a / b).toFixed(2)}×` : "–";
}

if (import.meta.main) {
  console.log(
    "| model | clips | file animation bytes | baked bytes | baked ratio | compact bytes | compact ratio | max error / tolerance | per channel only (sharedTimeline: false) | build ms |",
  );
  console.log("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
  for (const file of listAssets()) {
    const r = await measureModel(file);
    console.log(
      `| ${r.model} | ${r.clips} | ${r.fileBytes.toLocaleString("en")} | ${
        r.bakedBytes.toLocaleString("en")
      } | ${ratio(r.bakedBytes, r.fileBytes)} | ${r.compactBytes.toLocaleString("en")} | ${
        ratio(r.compactBytes, r.fileBytes)
      } | ${r.maxErrorRatio.toFixed(2)} | ${ratio(r.perChannelBytes, r.fileBytes)} | ${
        r.buildMs.toFixed(0)
      } |`,
    );
  }
}
