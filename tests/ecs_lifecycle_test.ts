/**
 * Lifecycle of the ECS layer across many entities: memory growth never
 * leaves a stale view, churn keeps memory bounded, and each system makes
 * one call into the core per frame.
 */
import "../scalar.ts";
import { coreKernels } from "../simd/memory/_instance.ts";
import { assertEquals, assertLess } from "@std/assert";
import { addEntity, removeEntity } from "bitecs";
import {
  addJointMat,
  addJointQuat,
  addSkeleton,
  addSkin,
  createAnimationPipeline,
  getModelMatrices,
  getPose,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinnedTangents,
  getSkinningPalette,
} from "../mod.ts";
import { wavePose } from "../procedural/cylinder.ts";
import { BUILDS, createScene } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`growing the core's memory leaves no stale view (${build})`, () => {
    const scene = createScene(build, 1, { joints: 8, segments: 16, rings: 32 });
    const { world, skeleton, skin, core } = scene;
    const animate = createAnimationPipeline();
    const first = scene.entities[0];
    const before = core.byteLength;
    // Enough characters to grow the memory several times over.
    const entities = [first];
    while (core.byteLength < before * 8) {
      const eid = addEntity(world);
      addSkeleton(world, eid, skeleton);
      addJointQuat(world, eid);
      addJointMat(world, eid);
      addSkin(world, eid, skin);
      entities.push(eid);
    }
    // Every public view, read again after the growth, reads and writes the live memory.
    for (const eid of [first, entities[entities.length - 1]]) {
      wavePose(getPose(world, eid), skeleton.jointCount, 1.5);
    }
    animate(world, 0);
    for (const eid of [first, entities[entities.length - 1]]) {
      const positions = getSkinnedPositions(world, eid);
      assertEquals(positions.length, skin.vertexCount * 4);
      assertEquals(positions.some((v) => v !== 0), true);
      for (
        const view of [
          getPose(world, eid),
          getModelMatrices(world, eid),
          getSkinningPalette(world, eid),
          positions,
          getSkinnedNormals(world, eid)!,
          getSkinnedTangents(world, eid)!,
        ]
      ) {
        assertEquals(view.buffer.byteLength >= core.byteLength, true);
        view[0] = 123;
        assertEquals(view[0], 123);
      }
    }
    // Both skinned the same way: same pose, same mesh.
    assertEquals(
      getSkinnedPositions(world, first).subarray(4),
      getSkinnedPositions(world, entities[entities.length - 1]).subarray(4),
    );
  });
}

// The scalar build's kernels are a plain object, so a spy can count the calls;
// the systems do not know which build they drive.
Deno.test("each system makes one call into the core per frame for all entities", () => {
  const { world, core } = createScene("scalar", 25);
  const kernels = coreKernels(core) as unknown as Record<string, (...args: number[]) => unknown>;
  const calls = new Map<string, number>();
  for (const [name, fn] of Object.entries(kernels)) {
    kernels[name] = (...args: number[]) => {
      calls.set(name, (calls.get(name) ?? 0) + 1);
      return fn(...args);
    };
  }
  createAnimationPipeline()(world, 0);
  for (
    const name of [
      "quatToMatBatch",
      "localToModelBatch",
      "multiplyMatricesCheckedBatch",
      "skinVerticesBatch",
    ]
  ) {
    assertEquals(calls.get(name), 1, name);
  }
});

Deno.test("100,000 add/remove cycles of skinned entities keep memory bounded", () => {
  const { world, skeleton, skin, core, entities } = createScene("simd", 4);
  const animate = createAnimationPipeline();
  const live = [...entities];
  let peak = 0;
  for (let cycle = 0; cycle < 100_000; cycle++) {
    // Remove one, add one: ids are recycled at once by bitecs.
    const gone = live.splice(cycle % live.length, 1)[0];
    removeEntity(world, gone);
    const eid = addEntity(world);
    addSkeleton(world, eid, skeleton);
    addJointQuat(world, eid);
    addJointMat(world, eid);
    addSkin(world, eid, skin, cycle % 3 === 0 ? { normals: false, tangents: false } : {});
    live.push(eid);
    if (cycle % 10_000 === 0) animate(world, 0);
    peak = Math.max(peak, core.allocatedBytes);
  }
  animate(world, 0);
  console.log(
    `churn: peak ${peak} bytes allocated, heap high-water mark ${core.peakBytes} bytes, memory ${core.byteLength} bytes`,
  );
  assertLess(core.peakBytes, 1 << 20);
  assertEquals(live.length, 4);
});
