/**
 * The public constructors that copy a caller's arrays into a core —
 * `ParentIndices`, `WeightedBases`, `SkinMesh`, `SkeletonAsset` — given
 * array-likes that lie: a `length` or an element that answers differently
 * from one read to the next, a typed array whose own `length`, `subarray`
 * or `constructor` were replaced. Whatever the schedule of answers, each
 * call either throws a `RangeError`/`TypeError` having allocated nothing,
 * or builds an object whose copy in the core is valid (parents before
 * children, joints below the mesh's joint count, finite bounded
 * coordinates) and has written no byte of the core outside its own block.
 * Seeded random schedules (fast-check), as an attacker would try them.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import { identityPose } from "./_arena.ts";
import { Core, ParentIndices, SkinMesh, WeightedBases } from "../kernels.ts";
import { SkeletonAsset, type SkeletonDefinition, SkinAsset, type SkinDefinition } from "../mod.ts";
import { skinInternals } from "../animation/internal.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { MAX_MESH_MAGNITUDE } from "../simd/memory/_checks.ts";

/** One lie: the `read`-th read of `key` ("length" or an index) answers `value`. */
interface Lie {
  readonly key: "length" | "index";
  readonly read: number;
  readonly value: number;
}

/** An array-like over `base` that answers `lies` on the reads they name, honestly otherwise. */
function liar(base: readonly number[], lies: readonly Lie[]): ArrayLike<number> {
  let lengthReads = 0, indexReads = 0;
  return new Proxy([...base], {
    get(target, key, receiver) {
      if (key === "length") {
        const lie = lies.find((l) => l.key === "length" && l.read === lengthReads);
        lengthReads++;
        return lie ? lie.value : target.length;
      }
      if (typeof key === "string" && /^\d+$/.test(key)) {
        const lie = lies.find((l) => l.key === "index" && l.read === indexReads);
        indexReads++;
        return lie ? lie.value : target[+key];
      }
      return Reflect.get(target, key, receiver);
    },
  });
}

/** A typed array of `base` whose own `length`, `subarray` and `constructor` tell other stories. */
function forgedTyped(base: readonly number[], lies: readonly Lie[]): Float32Array {
  const array = Float32Array.from(base);
  const other = new Float32Array(base.length * 4 + 64).fill(lies[0]?.value ?? 1e30);
  let reads = 0;
  Object.defineProperty(array, "length", {
    get: () => lies.find((l) => l.key === "length" && l.read === reads++)?.value ?? base.length,
  });
  Object.defineProperty(array, "subarray", { value: () => other });
  Object.defineProperty(array, "constructor", {
    value: {
      [Symbol.species]: function () {
        return other;
      },
    },
  });
  return array;
}

function lies(values: fc.Arbitrary<number>, length: number): fc.Arbitrary<Lie[]> {
  return fc.array(
    fc.record({
      key: fc.constantFrom("length" as const, "index" as const),
      read: fc.nat({ max: Math.max(8, length * 3) }),
      value: fc.oneof(values, fc.integer({ min: 0, max: 4 * length + 64 })),
    }),
    { maxLength: 6 },
  );
}

const oddValues = fc.oneof(
  fc.integer({ min: -70000, max: 70000 }),
  fc.constantFrom(NaN, Infinity, -1, 0.5, 1e30, -1e19, 255, 256, 65535, 65536),
);

/** Runs `build` and checks the core: a refusal allocated and wrote nothing; a build wrote only its block. */
function guarded<T extends { byteOffset: number; byteLength: number; free(): void }>(
  core: Core,
  build: () => T,
  valid: (built: T) => void,
): void {
  const memory = coreMemory(core);
  const before = memory.views().u8.slice(), allocated = memory.allocatedBytes;
  let built: T | undefined;
  try {
    built = build();
  } catch (e) {
    assert(e instanceof RangeError || e instanceof TypeError, `a typed refusal, got ${e}`);
  }
  const now = memory.views().u8;
  // The block as allocated (rounded up and zero-filled): its growth of the allocated bytes.
  const grown = memory.allocatedBytes - allocated;
  const [start, end] = built ? [built.byteOffset, built.byteOffset + grown] : [0, 0];
  if (built) assert(grown >= built.byteLength, "the block holds the object");
  for (let i = 0; i < before.length; i++) {
    if ((i < start || i >= end) && now[i] !== before[i]) {
      throw new Error(`byte ${i} outside the new block was written (${before[i]} -> ${now[i]})`);
    }
  }
  if (!built) {
    assertEquals(memory.allocatedBytes, allocated, "a refusal allocates nothing");
    return;
  }
  valid(built);
  built.free();
}

const JOINTS = 12;
const honestParents = Array.from({ length: JOINTS }, (_, i) => i - 1);

Deno.test("hostile array-likes: ParentIndices copies what it checked", () => {
  const core = Core.create("scalar");
  fc.assert(
    fc.property(lies(oddValues, JOINTS), fc.boolean(), (schedule, typed) => {
      const parents = typed ? forgedTyped(honestParents, schedule) : liar(honestParents, schedule);
      guarded(core, () => new ParentIndices(parents, core), (built) => {
        const copy = built.toArray();
        assertEquals(copy.length, built.jointCount);
        copy.forEach((p, i) => assert(p >= -1 && p < i, `parent ${p} of joint ${i}`));
        assertEquals(built.byteLength >= built.jointCount * 2, true);
      });
    }),
    { seed: 3701, numRuns: 400 },
  );
});

const VERTICES = 6;
const parts = [1, 2, 2, 4];
const influenceCount = 2 + 8;
const joints = Array.from({ length: influenceCount }, (_, i) => i % 5);
const weights = Array.from({ length: influenceCount }, () => 0.5);
const positions = Array.from({ length: VERTICES * 4 }, (_, i) => (i % 4 === 3 ? 1 : i * 0.25));

/** The mesh's copy in the core: joints below its joint count, weights and coordinates in bounds. */
function checkMesh(mesh: SkinMesh, core: Core): void {
  const { u16, f32 } = coreMemory(core).views();
  const o = mesh.offsets;
  const influences = mesh.vertexCount === 0 ? 0 : (o.weights - o.joints) / 2;
  let counted = 0;
  const partsWords = new Uint32Array(f32.buffer, o.parts, mesh.partCount * 2);
  for (let p = 0; p < partsWords.length; p += 2) counted += partsWords[p] * partsWords[p + 1];
  assert(counted <= influences, `${counted} influences in ${influences} slots`);
  for (let k = 0; k < counted; k++) {
    assert(u16[(o.joints >> 1) + k] < mesh.jointCount, `joint ${k}`);
    const w = f32[(o.weights >> 2) + k];
    assert(Number.isFinite(w) && w >= 0, `weight ${k} is ${w}`);
  }
  for (let i = 0; i < mesh.vertexCount * 4; i++) {
    assert(Math.abs(f32[(o.positions >> 2) + i]) < MAX_MESH_MAGNITUDE, `position ${i}`);
  }
}

Deno.test("hostile array-likes: SkinMesh copies what it checked", () => {
  const core = Core.create("scalar");
  const field = fc.constantFrom("parts", "joints", "weights", "positions");
  fc.assert(
    fc.property(field, lies(oddValues, 24), fc.boolean(), (name, schedule, typed) => {
      const honest = { parts, joints, weights, positions };
      const data = {
        ...honest,
        [name]: typed ? forgedTyped(honest[name], schedule) : liar(honest[name], schedule),
      };
      guarded(core, () => new SkinMesh(data, core), (mesh) => checkMesh(mesh, core));
    }),
    { seed: 3702, numRuns: 600 },
  );
});

Deno.test("hostile array-likes: WeightedBases copies what it checked", () => {
  const core = Core.create("scalar");
  const counts = [1, 1, 2, 2, 2, 2];
  const inverseBind = Array.from({ length: 5 * 12 }, (_, i) => (i % 12) % 5 === 0 ? 1 : 0);
  const field = fc.constantFrom("counts", "joints", "weights", "positions", "inverseBind");
  fc.assert(
    fc.property(field, lies(oddValues, 24), fc.boolean(), (name, schedule, typed) => {
      const honest = { counts, joints, weights, positions, inverseBind };
      const data = {
        ...honest,
        [name]: typed ? forgedTyped(honest[name], schedule) : liar(honest[name], schedule),
      };
      guarded(
        core,
        () =>
          new WeightedBases(data.positions, data.inverseBind, {
            counts: data.counts,
            joints: data.joints,
            weights: data.weights,
          }, core),
        (bases) => {
          const { u8, u16, f32 } = coreMemory(core).views();
          const vertices = bases.vertexCount;
          let k = 0;
          for (let v = 0; v < vertices; v++) k += u8[bases.countsOffset + v];
          assertEquals(k, bases.influenceCount, "the counts add up to the bases");
          for (let i = 0; i < k; i++) {
            assert(u16[(bases.jointsOffset >> 1) + i] < bases.jointCount, `joint ${i}`);
            assert(Number.isFinite(f32[(bases.byteOffset >> 2) + i * 4]), `base ${i}`);
          }
          assert(bases.jointCount <= inverseBind.length / 12, "joints within the inverse binds");
        },
      );
    }),
    { seed: 3703, numRuns: 600 },
  );
});

Deno.test("hostile array-likes: SkeletonAsset's joint count is its parents' copy", () => {
  const core = Core.create("scalar");
  const names = honestParents.map((_, i) => `j${i}`);
  const restPose = new Float32Array(JOINTS * 10).map((
    _,
    i,
  ) => (i % 10 === 6 || i % 10 >= 7 ? 1 : 0));
  const inverseBind = Array.from({ length: JOINTS * 12 }, (_, i) => (i % 12) % 5 === 0 ? 1 : 0);
  fc.assert(
    fc.property(
      fc.constantFrom("parents", "inverseBind"),
      lies(oddValues, JOINTS),
      (name, schedule) => {
        const honest = { parents: honestParents, inverseBind };
        const definition = { names, restPose, ...honest, [name]: liar(honest[name], schedule) };
        const allocated = core.allocatedBytes;
        let skeleton: SkeletonAsset | undefined;
        try {
          skeleton = new SkeletonAsset(definition as unknown as SkeletonDefinition, core);
        } catch (e) {
          assert(e instanceof RangeError || e instanceof TypeError, `a typed refusal, got ${e}`);
          assertEquals(core.allocatedBytes, allocated, "a refusal allocates nothing");
          return;
        }
        const copy = skeleton.parentIndices;
        assertEquals(copy.length, skeleton.jointCount);
        assertEquals(skeleton.inverseBind.length, skeleton.jointCount * 12);
        copy.forEach((p, i) => assert(p >= -1 && p < i, `parent ${p} of joint ${i}`));
        skeleton.dispose();
      },
    ),
    { seed: 3704, numRuns: 300 },
  );
});

Deno.test("hostile array-likes: a length far beyond any core is refused before it is read", () => {
  const core = Core.create("scalar");
  const endless = new Proxy({}, {
    get: (_, key) => key === "length" ? 2 ** 40 : 0,
  }) as ArrayLike<number>;
  const allocated = core.allocatedBytes;
  for (
    const build of [
      () => new ParentIndices(endless, core),
      () => new SkinMesh({ parts: endless, joints, weights, positions }, core),
      () => new SkinMesh({ parts: [1, 2 ** 28, 1, 2 ** 28], joints, weights, positions }, core),
      () => new WeightedBases(positions, [], { counts: endless, joints, weights }, core),
    ]
  ) {
    let refused = false;
    try {
      build();
    } catch (e) {
      refused = e instanceof RangeError;
    }
    assert(refused, `${build}: refused with a RangeError`);
    assertEquals(core.allocatedBytes, allocated);
  }
});

Deno.test("hostile array-likes: SkinAsset's influences are the ones it checked", () => {
  const core = Core.create("scalar");
  const skeleton = new SkeletonAsset({
    names: honestParents.map((_, i) => `j${i}`),
    parents: Int16Array.from(honestParents),
    restPose: identityPose(JOINTS),
    inverseBind: new Float32Array(JOINTS * 12).map((_, i) => (i % 12) % 5 === 0 ? 1 : 0),
  }, core);
  const counts = [1, 1, 2, 2, 2, 2];
  const field = fc.constantFrom("influenceCounts", "joints", "weights", "positions");
  fc.assert(
    fc.property(field, lies(oddValues, 24), fc.boolean(), (name, schedule, typed) => {
      const honest = { influenceCounts: counts, joints, weights, positions };
      const definition = {
        vertexCount: VERTICES,
        ...honest,
        [name]: typed ? forgedTyped(honest[name], schedule) : liar(honest[name], schedule),
      } as unknown as SkinDefinition;
      const allocated = core.allocatedBytes;
      let skin: SkinAsset | undefined;
      try {
        skin = new SkinAsset(skeleton, definition);
      } catch (e) {
        assert(e instanceof RangeError || e instanceof TypeError, `a typed refusal, got ${e}`);
        assertEquals(core.allocatedBytes, allocated, "a refusal allocates nothing");
        return;
      }
      const { mesh } = skinInternals(skin);
      assert(mesh.jointCount <= skeleton.jointCount, `${mesh.jointCount} palette matrices`);
      checkMesh(mesh, core);
      skin.dispose();
    }),
    { seed: 3705, numRuns: 400 },
  );
});
