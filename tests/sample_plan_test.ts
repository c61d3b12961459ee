/**
 * A per-channel clip's playbacks share its plan (`animation/_playback_cache.ts`):
 * each keeps only its keyed paths' records, the plan is placed in the core
 * once for all of them and goes with the clip's memory, and playbacks
 * sampled in turn give what each gives alone (none writes what another
 * reads).
 *
 * @module
 */
import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import { SkeletonAsset } from "../mod.ts";
import { compactClip, disposeClip } from "../clips.ts";
import { Core, type CoreBuild } from "../kernels.ts";
import { createCylinder, waveClip } from "../procedural/cylinder.ts";
import { ClipSampler } from "../animation/clip_sampler.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { coreKernels, coreMemory } from "../simd/memory/_instance.ts";
import {
  CACHE_GROUP_BYTES,
  CACHE_HEADER_BYTES,
  JOB_WORDS,
  PLAN_GROUP_BYTES,
  ROTATION_RECORD_BYTES,
} from "../simd/abi.ts";
import { SIMD_BUILDS } from "./_compact.ts";
import { samplePlayback } from "./_clip_file.ts";

const BUILDS: CoreBuild[] = ["scalar", ...SIMD_BUILDS];

Deno.test("playback caches: the crowd's clip keeps its keyed rotations a playback, its held values once", () => {
  for (const build of BUILDS) {
    const core = Core.create(build);
    const cylinder = createCylinder({ joints: 20, segments: 2, rings: 2, influences: 1 });
    const skeleton = new SkeletonAsset(cylinder.skeleton, core);
    // The crowd bench's clip: rotations keyed, translations and scales held.
    const clip = waveClip(20, { duration: 0.5 });
    const before = core.allocatedBytes;
    const compact = compactClip(clip, skeleton);
    const groups = compact.groupCount;
    assertEquals(groups, 5);
    assertEquals(compactClipInternals(compact).cacheTemplate.length, groups * CACHE_GROUP_BYTES);
    const built = core.allocatedBytes;
    const memory = coreMemory(core);
    const first = new ClipSampler(compact, memory);
    const cache = CACHE_HEADER_BYTES + groups * ROTATION_RECORD_BYTES;
    assertEquals(cache, 976);
    assertEquals(core.allocatedBytes - built, cache + groups * PLAN_GROUP_BYTES, build);
    const second = new ClipSampler(compact, memory);
    assertEquals(core.allocatedBytes - built, 2 * cache + groups * PLAN_GROUP_BYTES, build);

    // In turn, at different times: each gives what it gives alone.
    const times = [0, 0.01, 0.2, 0.49, 0.5, 0.3, 0.02, 0.31, 0.33];
    const others = times.map((t) => 0.5 - t);
    const [alone, otherAlone] = [times, others].map((ts) => samplePlayback(core, compact, ts));
    const floats = groups * 40;
    const pose = memory.alloc(2 * floats * 4), jobs = memory.alloc(2 * JOB_WORDS * 4);
    times.forEach((t, i) => {
      const { u32, f32 } = memory.views();
      first.emit(u32, f32, jobs >> 2, t, pose);
      second.emit(u32, f32, (jobs >> 2) + JOB_WORDS, others[i], pose + floats * 4);
      coreKernels(core).sampleCompactBatch(jobs, 2);
      const out = memory.views().f32.slice(pose >> 2, (pose >> 2) + 2 * floats);
      assertEquals(out.subarray(0, floats), alone[i], `${build}: first at ${t}`);
      assertEquals(out.subarray(floats), otherAlone[i], `${build}: second at ${others[i]}`);
    });
    memory.free(pose);
    memory.free(jobs);

    // The plan stays while a playback plays the disposed clip, then goes with it.
    first.release();
    disposeClip(clip);
    assert(core.allocatedBytes > before);
    second.release();
    assertEquals(
      core.allocatedBytes,
      before,
      `${build}: the clip, its plan and the caches went back`,
    );
  }
});
