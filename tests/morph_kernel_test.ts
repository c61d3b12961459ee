/**
 * The scalar morph kernel (`simd/scalar/morph.ts`, the core's twin) against three.js's
 * own CPU morph, `Mesh.getVertexPosition` (relative targets: `base + sum
 * w_i * d_i`), on random meshes: random dense and sparse targets, some
 * streams missing, weights of which some are 0, meshes of one or two
 * parts (so that the skin's output order differs from the source order).
 * Normals and tangents go through the same three.js path as a position
 * attribute. The kernel's clamp is checked at ±1e18.
 */

import "../scalar.ts";
import { assert, assertEquals } from "@std/assert";
import fc from "fast-check";
import * as THREE from "three";
import { SkeletonAsset, SkinAsset, type SkinDefinition } from "../mod.ts";
import type { MorphTargetDefinition } from "../morph.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { Core } from "../kernels.ts";
import { skinInternals } from "../animation/internal.ts";
import { morphVertices } from "../simd/scalar/morph.ts";

const core = Core.create("scalar");
const cylinder = createCylinder({ joints: 3, segments: 3, rings: 4 });
const skeleton = new SkeletonAsset(cylinder.skeleton, core);
const STREAMS = ["positions", "normals", "tangents"] as const;

/** A mesh of `n` vertices weighted to random joints, with normals and tangents. */
function mesh(n: number, values: number[], targets: MorphTargetDefinition[]): SkinDefinition {
  const stream = (w: number) =>
    Float32Array.from({ length: n * 4 }, (_, i) => i % 4 === 3 ? w : values[i % values.length]);
  return {
    vertexCount: n,
    positions: stream(1),
    normals: stream(0),
    tangents: stream(-1),
    influenceCounts: Uint8Array.from({ length: n }, (_, v) => 1 + (v % 2)),
    joints: Uint16Array.from({ length: n * 2 }, (_, i) => (i * 7) % 3).subarray(
      0,
      Array.from({ length: n }, (_, v) => 1 + (v % 2)).reduce((a, b) => a + b, 0),
    ),
    weights: new Float32Array(n * 2).fill(0.5).subarray(
      0,
      Array.from({ length: n }, (_, v) => 1 + (v % 2)).reduce((a, b) => a + b, 0),
    ),
    morphTargets: targets,
  };
}

const arbitraryTarget = (n: number) =>
  fc.record({
    streams: fc.tuple(
      ...STREAMS.map(() =>
        fc.oneof(
          fc.constant(undefined),
          fc.constant("dense" as const),
          fc.uniqueArray(fc.nat(n - 1), { minLength: 1, maxLength: n }),
        )
      ),
    ),
    deltas: fc.array(fc.float({ min: -2, max: 2, noNaN: true }), {
      minLength: n * 3,
      maxLength: n * 3,
    }),
  }).map(({ streams, deltas }): MorphTargetDefinition => {
    const out: Record<string, unknown> = { name: "" };
    streams.forEach((kind, s) => {
      if (kind === undefined) return;
      if (kind === "dense") out[STREAMS[s]] = { deltas: Float32Array.from(deltas) };
      else {
        const vertices = Uint32Array.from(kind).sort();
        out[STREAMS[s]] = {
          vertices,
          deltas: Float32Array.from(
            vertices.length * 3 === 0 ? [] : deltas.slice(0, vertices.length * 3),
          ),
        };
      }
    });
    return out as unknown as MorphTargetDefinition;
  });

/** three.js's morphed value of vertex `v` of stream `s` of `definition` with `weights`. */
function threeMorphed(
  definition: SkinDefinition,
  s: number,
  weights: number[],
  targetOffset: number,
  v: number,
): THREE.Vector3 {
  const base = definition[STREAMS[s]]!;
  const geometry = new THREE.BufferGeometry();
  const positions = new Float32Array(definition.vertexCount * 3);
  for (let i = 0; i < definition.vertexCount; i++) {
    positions.set(base.subarray(i * 4, i * 4 + 3), i * 3);
  }
  geometry.setAttribute("position", new THREE.BufferAttribute(positions, 3));
  geometry.morphTargetsRelative = true;
  geometry.morphAttributes.position = definition.morphTargets!.map((target) => {
    const d = new Float32Array(definition.vertexCount * 3);
    const displacements = target[STREAMS[s]];
    if (displacements?.vertices) {
      displacements.vertices.forEach((u, k) =>
        d.set(displacements.deltas.subarray(k * 3, k * 3 + 3), u * 3)
      );
    } else if (displacements) d.set(displacements.deltas);
    return new THREE.BufferAttribute(d, 3);
  });
  const object = new THREE.Mesh(geometry);
  object.morphTargetInfluences = weights.slice(
    targetOffset,
    targetOffset + definition.morphTargets!.length,
  );
  return object.getVertexPosition(v, new THREE.Vector3());
}

Deno.test("morph kernel: base + sum w * d of the active targets, as three.js's getVertexPosition", () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }).chain((n) =>
        fc.record({
          n: fc.constant(n),
          values: fc.array(fc.float({ min: -3, max: 3, noNaN: true }), {
            minLength: 4,
            maxLength: 8,
          }),
          parts: fc.array(fc.array(arbitraryTarget(n), { maxLength: 4 }), {
            minLength: 1,
            maxLength: 2,
          }),
          weights: fc.array(
            fc.oneof(fc.constant(0), fc.float({ min: -1.5, max: 1.5, noNaN: true })),
            {
              minLength: 8,
              maxLength: 8,
            },
          ),
        })
      ),
      ({ n, values, parts, weights }) => {
        const definitions = parts.map((targets) => mesh(n, values, targets));
        if (!parts.some((p) => p.length)) return;
        using skin = new SkinAsset(skeleton, definitions);
        const morph = skinInternals(skin).morph!;
        const count = skin.vertexCount;
        assertEquals(morph.names.length, parts.flat().length);
        const w = Float32Array.from(weights.slice(0, morph.names.length));
        for (let s = 0; s < 3; s++) {
          // The base stream in output order, and the morphed one.
          const base = new Float32Array(count * 4).fill(NaN);
          definitions.forEach((d, m) => {
            const first = skin.meshes[m].firstVertex;
            for (let v = 0; v < n; v++) {
              base.set(d[STREAMS[s]]!.subarray(v * 4, v * 4 + 4), skin.outputIndex[first + v] * 4);
            }
          });
          const out = new Float32Array(count * 4).fill(NaN);
          morphVertices(base, out, count, morph.streams[s], w);
          let offset = 0;
          definitions.forEach((d, m) => {
            const first = skin.meshes[m].firstVertex;
            for (let v = 0; v < n; v++) {
              const expected = threeMorphed(d, s, [...w], offset, v);
              const o = skin.outputIndex[first + v] * 4;
              const got = [out[o], out[o + 1], out[o + 2]];
              [expected.x, expected.y, expected.z].forEach((e, c) => {
                assert(
                  Math.abs(got[c] - e) <= 1e-5 * (1 + Math.abs(e)),
                  `stream ${s} mesh ${m} vertex ${v}: ${got} vs ${expected.toArray()}`,
                );
              });
              // The fourth float (w, handedness) is the base's.
              assertEquals(out[o + 3], d[STREAMS[s]]![v * 4 + 3]);
            }
            offset += d.morphTargets!.length;
          });
        }
      },
    ),
    { numRuns: 150, seed: 3601 },
  );
});

Deno.test("morph kernel: sums are clamped to ±1e18", () => {
  const definition = mesh(2, [1e18 * 0.9], [{
    name: "far",
    positions: { deltas: Float32Array.of(1e17 * 9, 0, 0, -1e17 * 9, 0, 0) },
  }]);
  using skin = new SkinAsset(skeleton, definition);
  const morph = skinInternals(skin).morph!;
  const base = new Float32Array(8), out = new Float32Array(8);
  for (let i = 0; i < 2; i++) {
    base.set(definition.positions.subarray(i * 4, i * 4 + 4), skin.outputIndex[i] * 4);
  }
  morphVertices(base, out, 2, morph.streams[0], Float32Array.of(1e6));
  for (const v of out) assert(Number.isFinite(v) && Math.abs(v) <= 1e18, `${out}`);
  assert(Math.max(...out) >= 0.99e18 && Math.min(...out) <= -0.99e18, `${out}`);
});
