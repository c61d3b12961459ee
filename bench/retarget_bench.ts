/**
 * Retargeting (`retargetClip`, issue 31), on Soldier and Xbot from
 * `../shared/assets/gltf/` (skipped without them):
 *
 * - `retarget build`: Soldier's Walk (60 keys × 147 channels, 80 KB of
 *   keys and times) retargeted onto Xbot, once per iteration, against the baseline of
 *   the other once-per-clip cost a game pays for it, its compact build
 *   (`compactClip`, no cache: a new clip each time); and with the feet
 *   planted. MB/s = the source clip's key bytes / the time.
 * - `retarget play`: 100 Xbots sampling per frame (`sampleClipsSystem`,
 *   the fastest build) Xbot's own walk (baseline), the same walk
 *   retargeted onto Xbot itself (the same motion through retargeting), and
 *   Soldier's Walk retargeted onto Xbot, all three in quantized keys per
 *   channel: a retargeted clip is an ordinary clip, so the per-frame cost
 *   is the clip's, not the retargeting's.
 *
 * Run: `deno bench --import-map=import_map.dev.json --allow-read --allow-env bench/retarget_bench.ts`
 */
import "../scalar.ts";
import { addEntity, createWorld } from "bitecs";
import {
  addJointQuat,
  addSkeleton,
  type Clip,
  createAnimation,
  createClip,
  playClip,
  sampleClipsSystem,
  SkeletonAsset,
} from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { compactClip } from "../clips.ts";
import { retargetClip } from "../retarget.ts";
import { Core } from "../kernels.ts";
import { missingTestOnlyModels } from "../tests/_assets.ts";
import { assetUrl } from "../tests/_three_gltf.ts";

if (missingTestOnlyModels().length === 0) {
  const [soldier] = (await importGltf(assetUrl("Soldier.glb"))).skeletons;
  const xbot = (await importGltf(assetUrl("Xbot.glb"))).skeletons.find((s) => s.primitives.length)!;
  const walk = soldier.clips.find((c) => c.name === "Walk")!;
  const xbotWalk = xbot.clips.find((c) => c.name === "walk")!;
  const options = { source: soldier.skeleton, target: xbot.skeleton };
  const bytes = walk.channels.reduce((n, c) => n + c.times.byteLength + c.values.byteLength, 0);
  const core = Core.create("scalar");
  const asset = new SkeletonAsset(xbot.skeleton, core);
  const retargeted = retargetClip(walk, options);

  const build = `retarget build: Soldier Walk → Xbot (${(bytes / 1024).toFixed(0)} KB of keys)`;
  Deno.bench({
    name: "compactClip of the retargeted clip (new each time)",
    group: build,
    baseline: true,
    fn: () => {
      const fresh = createClip({ name: "walk", channels: retargeted.channels });
      compactClip(fresh, asset, { tolerance: 1e-5 * 1.8 });
    },
  });
  Deno.bench({
    name: "retargetClip",
    group: build,
    fn: () => void retargetClip(walk, options),
  });
  Deno.bench({
    name: "retargetClip, feet planted (eight times the keys, two-bone IK)",
    group: build,
    fn: () => void retargetClip(walk, { ...options, plantFeet: true }),
  });

  const COUNT = 100, DT = 1 / 60;
  const scene = (clip: Clip) => {
    const core = Core.default;
    const world = createWorld();
    createAnimation(world, { core });
    const skeleton = new SkeletonAsset(xbot.skeleton, core);
    // One layout for all: the default would lay the native walk (201 channels, scales
    // included) on a shared timeline and the retargeted ones (no scale channels: fewer
    // bytes of their own) in quantized keys per channel, a difference of layout only.
    compactClip(clip, skeleton, { sharedTimeline: false });
    for (let i = 0; i < COUNT; i++) {
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      playClip(world, eid, clip, { time: i * 0.1 });
    }
    sampleClipsSystem(world, DT);
    return world;
  };
  const play = `retarget play: ${COUNT} Xbots sampling per frame (${Core.default.build})`;
  const rows: [string, Clip][] = [
    ["Xbot walk (native)", xbotWalk],
    [
      "Xbot walk retargeted onto Xbot",
      retargetClip(xbotWalk, { source: xbot.skeleton, target: xbot.skeleton }),
    ],
    ["Soldier Walk retargeted onto Xbot", retargeted],
  ];
  rows.forEach(([name, clip], i) => {
    const world = scene(clip);
    Deno.bench({ name, group: play, baseline: i === 0, fn: () => sampleClipsSystem(world, DT) });
  });
}
