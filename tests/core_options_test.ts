/**
 * The core's budget and reservation, whether views survive growth, the
 * ABI both sides were compiled with, and the no-WebAssembly memory.
 */
import "../scalar.ts";
import { assertEquals, assertThrows } from "@std/assert";
import { Core, PoseBuffer, VertexBuffer } from "../kernels.ts";
import { coreKernels } from "../simd/memory/_instance.ts";
import { JOB_BYTES, JOB_WORDS } from "../simd/abi.ts";
import { ArrayBufferMemory, CoreMemory } from "../simd/memory/_memory.ts";
import { BUILDS } from "./_scene.ts";

for (const build of BUILDS) {
  Deno.test(`${build}: an allocation past maxBytes is a RangeError naming the budget`, () => {
    const core = Core.create(build, { maxBytes: 1 << 20 });
    const keep = new VertexBuffer(30_000, core);
    const allocated = core.allocatedBytes;
    assertThrows(() => new VertexBuffer(40_000, core), RangeError, "budget of 1048576 bytes");
    assertEquals(core.allocatedBytes, allocated);
    keep.free();
    new VertexBuffer(40_000, core).free();
  });

  Deno.test(`${build}: reserveBytes grows once, so views never detach below it`, () => {
    const core = Core.create(build, { reserveBytes: 8 << 20 });
    const length = core.byteLength;
    const first = new PoseBuffer(4, core);
    const view = first.array;
    for (let i = 0; i < 100; i++) new VertexBuffer(1000, core);
    assertEquals(core.byteLength, length);
    view[0] = 7;
    assertEquals(first.array[0], 7);
  });

  Deno.test(`${build}: the core was compiled with the job rows the TypeScript side writes`, () => {
    assertEquals(coreKernels(Core.create(build)).jobBytes(), JOB_BYTES);
    assertEquals(JOB_WORDS * 4, JOB_BYTES);
  });
}

Deno.test("bad core options are refused", () => {
  assertThrows(() => Core.create("scalar", { maxBytes: 12 }), RangeError, "options.maxBytes");
  assertThrows(
    () => Core.create("scalar", { reserveBytes: -1 }),
    RangeError,
    "options.reserveBytes",
  );
  assertThrows(
    () => Core.create("scalar", { maxBytes: 1 << 20, reserveBytes: 2 << 20 }),
    RangeError,
    "options.reserveBytes",
  );
});

Deno.test("viewsSurviveGrowth says whether a kept view still reads the memory", () => {
  const core = Core.create("simd");
  const buffer = new PoseBuffer(4, core);
  const kept = buffer.array;
  while (core.byteLength < 4 << 20) new VertexBuffer(10_000, core);
  assertEquals(kept.length > 0, core.viewsSurviveGrowth);
});

Deno.test("memory without WebAssembly grows without ArrayBuffer.prototype.transfer (Node 20)", () => {
  const proto = ArrayBuffer.prototype as { transfer?: unknown };
  const transfer = proto.transfer;
  delete proto.transfer;
  try {
    const memory = new CoreMemory(new ArrayBufferMemory());
    const ptr = memory.alloc(16);
    memory.views().u8[ptr] = 9;
    memory.alloc(1 << 20);
    assertEquals(memory.views().u8[ptr], 9);
  } finally {
    proto.transfer = transfer;
  }
});
