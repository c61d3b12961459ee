/**
 * Model-based test of the ECS layer (fast-check commands, seeded): random
 * programs of public calls — adding and removing every component through
 * Marrow and through bitecs, removing entities, resetting the world,
 * playing and cross-fading clips, writing poses and levels of detail,
 * adding IK chains and setting their targets (NaN refused),
 * tampering with store fields, disposing assets, and frames on all
 * entities or on random subsets — on four kinds of character (one skinned
 * from the palette transposed into its scratch), on every
 * build. A model predicts which calls must fail; after every call the
 * components are what the model says, the view functions return exactly
 * each entity's blocks (they keep their views per entity), no byte of an
 * entity the call must not touch (nor of any asset) changed, and after
 * every frame each skinned entity's output equals an independent scalar
 * recomputation.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import { addEntity, hasComponent } from "bitecs";
import {
  addCharacter,
  createAnimationPipeline,
  getModelMatrices,
  getPose,
  getSkinnedNormals,
  getSkinnedPositions,
  getSkinningPalette,
} from "../mod.ts";
import { MATRIX_FLOATS, poseFloats, VERTEX_FLOATS } from "../simd/memory/layout.ts";
import { BUILDS, SEED, SIMD_BUILDS } from "./_arbitrary.ts";
import { stateOf } from "../components/_lifecycle.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import { JOINT_COLUMN_BYTES } from "../simd/abi.ts";
import { paletteColumns } from "./_skin_call.ts";
import { checked, createHarness, type Harness, has, KIND_COUNT, NAMES } from "./_ecs_programs.ts";
import { skinInternals } from "../animation/_asset_internals.ts";
import { program } from "./_ecs_program_commands.ts";

/** What bitecs reports matches the model, for every entity. */
function checkMembership(h: Harness): void {
  for (const [eid, m] of h.entities) {
    for (const name of NAMES) {
      assertEquals(
        hasComponent(h.world, eid, h.components[name]),
        has(m, name),
        `entity ${eid} ${name}`,
      );
    }
  }
}

/**
 * The view functions (which keep their views per entity) return exactly
 * each entity's blocks now: over the core's current buffer, at the offset
 * Marrow set in the store, as long as the block, inside a block the core
 * has allocated. A view kept past a change of the entity's blocks would
 * start elsewhere, be of another length or over an old buffer.
 */
function checkViews(h: Harness): void {
  const memory = coreMemory(h.core).views();
  const { JointQuat, JointMat, Skin } = h.components;
  // The view of `floats` at `ptr`, in the block allocated at `block`.
  const expect = (
    eid: number,
    name: string,
    view: Float32Array,
    ptr: number,
    floats: number,
    block = ptr,
  ) => {
    const label = `entity ${eid}: ${name} view`;
    assert(view.buffer === memory.u8.buffer, `${label}: over another buffer`);
    assertEquals([view.byteOffset, view.length], [ptr, floats], label);
    const size = memory.sizeOf(block);
    assert(size !== undefined && ptr + floats * 4 <= block + size, `${label}: past its block`);
  };
  for (const [eid, m] of h.entities) {
    if (m.kind === undefined) continue;
    const { skeleton, skin } = h.kinds[m.kind], joints = skeleton.jointCount;
    if (m.pose) {
      expect(eid, "pose", getPose(h.world, eid), JointQuat.byteOffset[eid], poseFloats(joints));
    }
    if (m.matrices) {
      const floats = joints * MATRIX_FLOATS;
      const model = JointMat.modelByteOffset[eid], palette = JointMat.paletteByteOffset[eid];
      expect(eid, "model", getModelMatrices(h.world, eid), model, floats);
      expect(eid, "palette", getSkinningPalette(h.world, eid), palette, floats, model);
    }
    if (m.skin) {
      const floats = skin.vertexCount * VERTEX_FLOATS;
      // The skin block starts with the positions; the other streams follow in it.
      const block = Skin.positionsByteOffset[eid];
      expect(eid, "positions", getSkinnedPositions(h.world, eid), block, floats);
      const normals = getSkinnedNormals(h.world, eid), at = Skin.normalsByteOffset[eid];
      if (at) expect(eid, "normals", normals!, at, floats, block);
      else assertEquals(normals, undefined, `entity ${eid}: normals`);
    }
  }
}

const RUNS = 80, COMMANDS = 150;
for (const build of BUILDS) {
  Deno.test(`model-based programs of ECS calls (${build})`, () => {
    let calls = 0;
    Object.assign(checked, { frames: 0, skins: 0, ik: 0, failures: 0 });
    const started = performance.now();
    fc.assert(
      fc.property(
        fc.array(program, { minLength: COMMANDS / 2, maxLength: COMMANDS, size: "max" }),
        (steps) => {
          const h = createHarness(build);
          try {
            for (const [label, step] of steps) {
              try {
                step(h);
                checkMembership(h);
                checkViews(h);
              } catch (error) {
                throw new Error(`${label}: ${(error as Error).message}`, { cause: error });
              }
            }
          } finally {
            calls += h.calls;
          }
        },
      ),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
    console.log(
      `${build}: ${calls} calls in ${RUNS} programs (${checked.frames} frames, ${checked.skins} skinned outputs recomputed, ${checked.ik} of them after IK, ${checked.failures} refused calls), ${
        ((performance.now() - started) / 1000).toFixed(1)
      } s`,
    );
    // The issue asks for at least 10,000 calls per run on every build.
    assert(calls >= 10_000, `only ${calls} calls`);
  });
}

Deno.test("ECS programs: the scrambled kind is skinned from the palette transposed into its scratch", () => {
  // Without this, the programs could pass with the kernel never taking
  // that path (it needs two-influence positions without runs of a pair).
  for (const build of SIMD_BUILDS) {
    const h = createHarness(build);
    const { skeleton, skin } = h.kinds[KIND_COUNT - 1];
    const eid = addEntity(h.world);
    addCharacter(h.world, eid, skeleton, skin, { normals: false, tangents: false });
    getPose(h.world, eid)[1] = 0.25;
    createAnimationPipeline()(h.world, 0);
    const columns = stateOf(h.world, "test").owned.skinColumns[eid];
    assert(columns !== 0, `${build}: a linear skin has a scratch`);
    // The kernel writes jointCount columns there (tests/skin_pair_columns_test.ts):
    // they must end within the entity's skin block.
    const block = stateOf(h.world, "test").owned.skinBlock[eid];
    const blockEnd = block + coreMemory(h.core).sizeOf(block)!;
    assert(
      columns + skinInternals(skin).mesh.jointCount * JOINT_COLUMN_BYTES <= blockEnd,
      `${build}: scratch past the block`,
    );
    const joints = skinInternals(skin).mesh.jointCount, f32 = coreMemory(h.core).views().f32;
    assertEquals(
      Array.from(f32.subarray(columns >> 2, (columns >> 2) + joints * 16)),
      Array.from(paletteColumns(getSkinningPalette(h.world, eid), joints)),
      `${build}: the scratch holds the palette's columns`,
    );
  }
});
