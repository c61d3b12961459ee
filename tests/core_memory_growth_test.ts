/**
 * Growing the core's memory (several MB), for every build, keeps every
 * buffer's data: the `.array` of `PoseBuffer`, `MatrixBuffer` and
 * `VertexBuffer` read and write the same bytes as the core's own views, no
 * stale data; views made before the growth stay attached where the memory
 * is resizable (and are detached otherwise); kernels run on buffers made
 * before the growth.
 */

import "../scalar.ts";
import { coreMemory } from "../simd/memory/_instance.ts";
import fc from "fast-check";
import { assertEquals, assertGreater } from "@std/assert";
import {
  Core,
  localToModel,
  MatrixBuffer,
  multiplyMatrices,
  ParentIndices,
  PoseBuffer,
  quatToMat,
  SkinMesh,
  skinPositions,
  skinVertices,
  VertexBuffer,
  WeightedBases,
} from "../kernels.ts";
import * as ref from "../simd/scalar/mod.ts";
import {
  affineArb,
  assertClose,
  BUILDS,
  flattenInfluences,
  inMatrices,
  inVertices,
  layoutMeshArb,
  matricesArb,
  poseArray,
  positionsArb,
  sampleOne,
  tolerance,
  trsArb,
  vertexInfluencesArb,
} from "./_arbitrary.ts";

/** A pattern unique to each float of each buffer. */
const pattern = (seed: number) => (_: number, i: number) => seed * 100000 + i + 0.25;

for (const build of BUILDS) {
  Deno.test(`memory (${build}): growth keeps every buffer and view`, () => {
    const core = Core.create(build);
    const memory = coreMemory(core);
    assertEquals(
      memory.resizable,
      typeof (WebAssembly.Memory.prototype as { toResizableBuffer?: unknown })
        .toResizableBuffer === "function",
      "resizable where the runtime supports it",
    );

    // Inputs of every kernel, made before the growth.
    const joints = sampleOne(
      fc.array(trsArb(), { minLength: 6, maxLength: 6 }),
      91,
    );
    const poseData = poseArray(joints, 6, 0);
    const pose = new PoseBuffer(6, core);
    pose.array.set(poseData);
    const local = new MatrixBuffer(6, core);
    const model = new MatrixBuffer(6, core);
    const inverseBindData = sampleOne(matricesArb(affineArb(), 6, 6), 92);
    const inverseBind = new MatrixBuffer(6, core);
    inverseBind.array.set(inverseBindData);
    const palette = new MatrixBuffer(6, core);
    const parentList = [-1, 0, 1, 1, 0, 4];
    const parents = new ParentIndices(parentList, core);
    const positions = sampleOne(positionsArb(5), 93);
    const influences = flattenInfluences(
      sampleOne(
        fc.array(vertexInfluencesArb(6, 4), { minLength: 5, maxLength: 5 }),
        94,
      ),
    );
    const bases = new WeightedBases(
      positions,
      inverseBindData,
      influences,
      core,
    );
    const meshData = sampleOne(layoutMeshArb([2, 3, 4, 2], 6), 95);
    const mesh = new SkinMesh(meshData, core);
    const vertices = new VertexBuffer(5, core);
    vertices.array.fill(0).set(Array.from({ length: 20 }, pattern(1)));

    const float = [pose, local, model, inverseBind, palette, vertices];
    const before = float.map((b) => b.array);
    const values = before.map((a) => a.slice());
    const byteLength = core.byteLength;

    // Grow: 4 MB and more, in three steps.
    const big = [1 << 18, 1 << 16, 3 << 16].map((n) => new VertexBuffer(n, core));
    assertGreater(core.byteLength, byteLength);
    assertGreater(core.byteLength, 4 * 1024 * 1024);
    assertEquals(core.byteLength % 65536, 0);

    // Every buffer reads what it held, through a fresh view...
    float.forEach((b, i) => {
      const now = b.array;
      assertEquals(now.length, values[i].length);
      assertEquals(now, values[i], `${b.constructor.name} ${i} after growth`);
    });
    assertEquals(Array.from(parents.toArray()), parentList);
    // ... the new blocks are zero, to their last float ...
    for (const b of big) {
      const a = b.array;
      assertEquals(a.length, b.vertexCount * 4);
      assertEquals(a[0], 0);
      assertEquals(a[a.length - 1], 0);
      a[a.length - 1] = -3.5;
      assertEquals(
        memory.views().f32[(b.byteOffset + b.byteLength >> 2) - 1],
        -3.5,
      );
    }
    // ... and views made before the growth stay attached (resizable) or
    // are detached, never stale.
    before.forEach((old, i) => {
      if (memory.resizable) {
        assertEquals(
          old.length,
          values[i].length,
          "an old view lost its length",
        );
        old[0] = -1;
        assertEquals(
          float[i].array[0],
          -1,
          "a write through an old view is lost",
        );
        float[i].array[1] = -2;
        assertEquals(old[1], -2, "an old view reads stale data");
        old[0] = values[i][0], old[1] = values[i][1];
      } else {
        assertEquals(
          old.length,
          0,
          "an old view is neither attached nor detached",
        );
      }
    });
    // Writes through the new views land in the core's memory.
    vertices.array.set(Array.from({ length: 20 }, pattern(2)));
    const f32 = memory.views().f32;
    assertEquals(
      Array.from(
        f32.subarray(vertices.byteOffset >> 2, (vertices.byteOffset >> 2) + 20),
      ),
      Array.from({ length: 20 }, pattern(2)).map(Math.fround),
    );

    // The kernels run on the buffers made before the growth.
    quatToMat(pose, local);
    const expectedLocal = new Float32Array(72);
    ref.quatToMat(poseData, expectedLocal, 6);
    assertClose(
      local.array,
      expectedLocal,
      (i) => tolerance(4 * Math.abs(expectedLocal[i])),
      "quatToMat",
      inMatrices,
    );
    localToModel(local, model, parents);
    const expectedModel = new Float32Array(72);
    ref.localToModel(
      local.array.slice(),
      expectedModel,
      Int16Array.from(parentList),
      0,
      5,
    );
    assertClose(model.array, expectedModel, 1e-3, "localToModel", inMatrices);
    multiplyMatrices(model, inverseBind, palette);
    const expectedPalette = new Float32Array(72);
    ref.multiplyMatrices(
      model.array.slice(),
      inverseBindData,
      expectedPalette,
      6,
    );
    assertClose(
      palette.array,
      expectedPalette,
      1e-3,
      "multiplyMatrices",
      inMatrices,
    );

    skinPositions(model, bases, vertices);
    const refBases = new Float32Array(influences.joints.length * 4);
    const j16 = Uint16Array.from(influences.joints),
      n8 = Uint8Array.from(influences.counts);
    ref.weightedBases(
      positions,
      inverseBindData,
      j16,
      influences.weights,
      n8,
      5,
      refBases,
    );
    const expectedPositions = new Float32Array(20);
    ref.skinPositions(
      model.array.slice(),
      refBases,
      j16,
      n8,
      expectedPositions,
      5,
      255,
    );
    assertClose(
      vertices.array,
      expectedPositions,
      1e-3,
      "skinPositions",
      inVertices,
    );

    const skinned = new VertexBuffer(5, core);
    const normals = new VertexBuffer(5, core);
    skinVertices(palette, mesh, { positions: skinned, normals });
    const expectedSkinned = new Float32Array(20),
      expectedNormals = new Float32Array(20);
    ref.skinVertices(
      palette.array.slice(),
      Uint32Array.from(meshData.parts),
      Uint16Array.from(meshData.joints),
      meshData.weights,
      meshData.positions,
      meshData.normals,
      new Float32Array(0),
      expectedSkinned,
      expectedNormals,
      new Float32Array(0),
      1,
      255,
    );
    assertClose(
      skinned.array,
      expectedSkinned,
      1e-3,
      "skinVertices positions",
      inVertices,
    );
    assertClose(
      normals.array,
      expectedNormals,
      1e-3,
      "skinVertices normals",
      inVertices,
    );

    for (
      const b of [...float, ...big, parents, bases, mesh, skinned, normals]
    ) b.free();
    assertEquals(core.allocatedBytes, 0);
  });

  Deno.test(`memory (${build}): a view kept across many growths`, () => {
    const core = Core.create(build);
    const first = new MatrixBuffer(3, core);
    first.array.set(Array.from({ length: 36 }, pattern(3)));
    const view = first.array;
    const expected = view.slice();
    const grown: VertexBuffer[] = [];
    let lastLength = core.byteLength;
    let growths = 0;
    while (growths < 6) {
      grown.push(new VertexBuffer(4096 * (grown.length + 1), core));
      if (core.byteLength !== lastLength) {
        growths++, lastLength = core.byteLength;
      }
      // The handle's view is always current.
      assertEquals(first.array, expected);
      if (coreMemory(core).resizable) assertEquals(view, expected);
    }
    // A fresh array getter after growth returns a view of the same bytes.
    first.array[35] = 99;
    assertEquals(
      coreMemory(core).views().f32[(first.byteOffset >> 2) + 35],
      99,
    );
    for (const b of [first, ...grown]) b.free();
  });
}
