/**
 * Loading compact clip files (`animation/clip_file.ts`): group "clip file
 * load, FILE" per model, the file of its first skeleton with clips
 * (BrainStem and Xbot from `../shared/assets/gltf/` when it is there).
 * Baseline: a plain copy of the file's bytes into a buffer (memcpy). Then
 * `loadCompactClips` (every check, the copy into the core, the clips made;
 * timed without their disposal, after each load), and the xxHash32 of the
 * file alone. The row names carry the file's bytes: MB/s is bytes over the
 * time of a row.
 */
import { SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { disposeClip, loadCompactClips, saveCompactClips } from "../clips.ts";
import { Core } from "../kernels.ts";
import { xxhash32 } from "../animation/_clip_file_format.ts";
import { assetUrl } from "../tests/_three_gltf.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";

const missing = missingTestOnlyModels();
const MODELS = ["BrainStem.glb", "Xbot.glb", "RobotExpressive.glb", "Fox.glb"]
  .filter((m) => !missing.includes(m));

for (const name of MODELS) {
  const model = await importGltf(assetUrl(name));
  const character = model.skeletons.find((s) => s.clips.length > 0)!;
  const core = Core.create("relaxed-simd");
  const skeleton = new SkeletonAsset(character.skeleton, core);
  const file = saveCompactClips(skeleton, character.clips);
  const group = `clip file load, ${name}`;
  const size = `${(file.length / 1e6).toFixed(3)} MB`;
  const target = new Uint8Array(file.length);
  Deno.bench({
    name: `memcpy of the file (${size})`,
    group,
    baseline: true,
    fn: () => target.set(file),
  });
  Deno.bench({
    name: `loadCompactClips (${size}, ${character.clips.length} clips)`,
    group,
    fn: (b) => {
      b.start();
      const clips = loadCompactClips(skeleton, file);
      b.end();
      for (const clip of clips) disposeClip(clip);
    },
  });
  Deno.bench({ name: `xxHash32 of the file (${size})`, group, fn: () => void xxhash32(file) });
}
