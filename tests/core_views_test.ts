/**
 * Views kept across memory growth never lie: they either stay attached
 * (reads and writes reach the buffer) or read as empty, as
 * `core.viewsSurviveGrowth` says; `reserveBytes` = `maxBytes` keeps them
 * attached on any runtime by never growing. The same checks run under Node
 * (20: no resizable WebAssembly memory; `--jitless`: no WebAssembly) in
 * `tests/node/suite.ts`.
 */
import { assert, assertEquals, assertThrows } from "@std/assert";
import { Core, MatrixBuffer, VertexBuffer } from "../kernels.ts";
import { ArrayBufferMemory, CoreMemory } from "../simd/memory/_memory.ts";
import { BUILDS } from "./_scene.ts";

/** Keeps a view of a block, grows the memory, then reads and writes through the view. */
function keepAcrossGrowth(memory: CoreMemory) {
  const ptr = memory.alloc(64);
  const kept = memory.views().f32.subarray(ptr >> 2, (ptr >> 2) + 16);
  kept.fill(3);
  const before = memory.byteLength;
  memory.alloc(1 << 20);
  assert(memory.byteLength > before, "the memory grew");
  const reads = kept.length === 16 && kept[0] === 3;
  kept[1] = 5;
  const writes = memory.views().f32[(ptr >> 2) + 1] === 5;
  return { kept, reads, writes, fresh: memory.views().f32[ptr >> 2] };
}

Deno.test("memory without WebAssembly: a resizable buffer keeps views attached across growth", () => {
  const memory = new CoreMemory(new ArrayBufferMemory(64 << 20));
  assertEquals(memory.resizable, true);
  const { reads, writes, fresh } = keepAcrossGrowth(memory);
  assertEquals([reads, writes, fresh], [true, true, 3]);
});

Deno.test("memory without resizable buffers: a kept view reads as empty, never stale", () => {
  const memory = new CoreMemory(new ArrayBufferMemory(64 << 20, false));
  assertEquals(memory.resizable, false);
  const { kept, reads, writes, fresh } = keepAcrossGrowth(memory);
  assertEquals(kept.length, 0, "the old buffer is detached");
  assertEquals([reads, writes], [false, false]);
  assertEquals(fresh, 3, "the data moved to the new buffer");
});

Deno.test("memory without resizable buffers grows without ArrayBuffer.prototype.transfer", () => {
  const proto = ArrayBuffer.prototype as { transfer?: unknown };
  const transfer = proto.transfer;
  delete proto.transfer;
  try {
    const memory = new CoreMemory(new ArrayBufferMemory(64 << 20, false));
    assertEquals(keepAcrossGrowth(memory).fresh, 3);
  } finally {
    proto.transfer = transfer;
  }
});

for (const build of BUILDS) {
  Deno.test(`${build}: a kept view works exactly when viewsSurviveGrowth says so`, () => {
    const core = Core.create(build);
    const buffer = new MatrixBuffer(2, core);
    const kept = buffer.array;
    kept.fill(7);
    const before = core.byteLength;
    new VertexBuffer(300_000, core);
    assert(core.byteLength > before, "the memory grew");
    kept[1] = 9;
    assertEquals(kept[0] === 7, core.viewsSurviveGrowth, "reads");
    assertEquals(buffer.array[1] === 9, core.viewsSurviveGrowth, "writes");
  });

  Deno.test(`${build}: reserveBytes = maxBytes never grows, and refuses what does not fit`, () => {
    const bytes = 4 << 20;
    const core = Core.create(build, { reserveBytes: bytes, maxBytes: bytes });
    const length = core.byteLength;
    assert(length >= bytes && length < bytes + 65536, `${length} bytes`);
    const buffer = new MatrixBuffer(2, core);
    const kept = buffer.array;
    new VertexBuffer(200_000, core); // 3.2 MB: fits
    assertThrows(() => new VertexBuffer(100_000, core), RangeError, "budget of 4194304 bytes");
    assertEquals(core.byteLength, length, "never grew");
    kept[3] = 11;
    assertEquals(buffer.array[3], 11, "the kept view is attached");
    assert(core.viewsSurviveGrowth, "a fixed memory's views survive: it never grows");
    // WebGL refuses views of resizable buffers: a fixed memory's go to the GPU as they are.
    assertEquals(core.resizableViews, false);
    assertEquals(kept.buffer instanceof ArrayBuffer && kept.buffer.resizable, false);
  });
}
