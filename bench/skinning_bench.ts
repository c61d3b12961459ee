/**
 * The skinning kernels: each SIMD build of the core against the scalar
 * reference (the baseline) running on plain typed arrays. Divide a time by
 * the group's vertex count for ns/vertex.
 *
 * - `skinPositions` at 1,024 vertices × 2 influences (the whole working set
 *   fits in L1/L2) and at 100,000 × 4 (streams from L3 and memory).
 * - `skinVertices` at 100,000 × 4, positions only and with normals and
 *   tangents.
 *
 * - `skin limit: <row>`: `skinVertices` (the systems' kernel) on each row of
 *   the issue's comparison with ozz-animation, against a `copy` baseline that
 *   moves the same bytes inside the core (joints and weights read, input
 *   streams read, output streams written) and does no arithmetic: the ratio
 *   says how far each loop is from the memory limit.
 * - `skin bounds: <row>`: the fused bounds against none; `skin dual
 *   quaternion: <row>`: dual-quaternion against linear skinning; `skin
 *   renormalize: <row>`: renormalized normals and tangents against the
 *   directions as skinned.
 *
 * Every vertex has the same number of influences, as after a glTF import
 * (padded to four), so the kernels' branches on the count are predictable
 * as they are on real meshes; weights are sorted decreasing and sum to 1.
 * In the `skin limit`, `skin bounds`, `skin dual quaternion` and `skin
 * renormalize` groups the vertices are ordered by their joints (heaviest
 * first), as `SkinAsset` orders them (the one- and two-influence loops keep
 * a run's joint matrices in registers); the other groups keep them unsorted
 * (a raw `SkinMesh`).
 *
 * `SKIN_BEFORE=<core.wasm>` adds a `before` row to each `skin limit` and
 * `skin renormalize` group: another build of the core (say main's
 * relaxed-SIMD core, compiled with `simd/wasm/_build.ts`'s flags) on the same
 * data in the same run.
 */

import * as ref from "../simd/scalar/mod.ts";
import { SkinFlags } from "../simd/memory/layout.ts";
import {
  builds,
  type Core,
  MAX_INFLUENCES,
  type Mesh,
  mesh,
  setUp,
  setUpBefore,
  skinCore,
} from "./_skinning_setup.ts";

function group(
  kernel: string,
  name: string,
  m: Mesh,
  reference: (m: Mesh) => void,
  run: (core: Core, m: Mesh) => void,
): void {
  Deno.bench({
    name: `${kernel} scalar reference`,
    group: name,
    baseline: true,
    fn: () => reference(m),
  });
  for (const build of builds) {
    const core = setUp(build, m);
    Deno.bench({
      name: `${kernel} ${build}`,
      group: name,
      fn: () => run(core, m),
    });
  }
}

function positionsGroup(vertices: number, influences: number): void {
  group(
    "skinPositions",
    `skinPositions (${vertices} vertices × ${influences})`,
    mesh(vertices, influences),
    (m) =>
      ref.skinPositions(
        m.model,
        m.bases,
        m.joints,
        m.counts,
        m.out[0],
        m.vertices,
        MAX_INFLUENCES,
      ),
    ({ kernels, at }, m) =>
      kernels.skinPositions(
        at.model,
        at.bases,
        at.joints,
        at.counts,
        at.out[0],
        m.vertices,
        MAX_INFLUENCES,
      ),
  );
}

function verticesGroup(
  vertices: number,
  influences: number,
  flags: number,
): void {
  const streams = flags ? "positions, normals, tangents" : "positions";
  group(
    "skinVertices",
    `skinVertices (${vertices} vertices × ${influences}, ${streams})`,
    mesh(vertices, influences),
    (m) =>
      ref.skinVertices(
        m.palette,
        m.parts,
        m.joints,
        m.weights,
        m.positions,
        m.normals,
        m.tangents,
        m.out[0],
        m.out[1],
        m.out[2],
        flags,
        MAX_INFLUENCES,
      ),
    (core) => skinCore(core, flags),
  );
}

/** `skinVertices` on one row of the ozz comparison against its `copy`. */
function limitGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin limit: ${row}`;
  // `SKIN_LIMIT=<part of a row>` runs only matching rows on a noisy machine.
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const before = setUpBefore(m);
  const cores = builds.map((build) => setUp(build, m));
  const copy = ({ kernels, at }: Core) =>
    kernels.copyVertices(
      at.parts,
      1,
      at.joints,
      at.weights,
      at.positions,
      at.normals,
      at.tangents,
      at.out[0],
      at.out[1],
      at.out[2],
      flags,
    );
  Deno.bench({ name: "copy", group, baseline: true, fn: () => void copy(cores.at(-1)!) });
  if (before) Deno.bench({ name: "before", group, fn: () => skinCore(before, flags) });
  for (const core of cores) {
    Deno.bench({ name: `skinVertices ${core.build}`, group, fn: () => skinCore(core, flags) });
  }
}

/** The fused bounds' overhead: `skinVertices` with bounds against without, same build. */
function boundsGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin bounds: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const core = setUp(builds.at(-1)!, m);
  Deno.bench({
    name: `unfused ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, flags),
  });
  Deno.bench({ name: `bounds ${core.build}`, group, fn: () => skinCore(core, flags, true) });
}

/** Renormalized normals and tangents against unnormalized ones, same mesh and build. */
function renormalizeGroup(row: string, vertices: number, influences: number): void {
  const group = `skin renormalize: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const m = mesh(vertices, influences, true);
  const before = setUpBefore(m);
  const core = setUp(builds.at(-1)!, m);
  Deno.bench({
    name: `as skinned ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, ALL),
  });
  const renormalized = ALL | SkinFlags.RENORMALIZE;
  if (before) Deno.bench({ name: "before", group, fn: () => skinCore(before, renormalized) });
  Deno.bench({ name: `renormalized ${core.build}`, group, fn: () => skinCore(core, renormalized) });
}

/** Dual-quaternion against linear skinning, same mesh and build. */
function dualGroup(row: string, vertices: number, influences: number, flags: number): void {
  const group = `skin dual quaternion: ${row}`;
  if (!group.includes(Deno.env.get("SKIN_LIMIT") ?? "")) return;
  const core = setUp(builds.at(-1)!, mesh(vertices, influences, true));
  Deno.bench({
    name: `linear ${core.build}`,
    group,
    baseline: true,
    fn: () => skinCore(core, flags),
  });
  Deno.bench({
    name: `dual quaternion ${core.build}`,
    group,
    fn: () => skinCore(core, flags, false, true),
  });
}

positionsGroup(1024, 2);
positionsGroup(100_000, 4);
verticesGroup(100_000, 4, 0);
verticesGroup(100_000, 4, SkinFlags.NORMALS | SkinFlags.TANGENTS);

const ALL = SkinFlags.NORMALS | SkinFlags.TANGENTS;
limitGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
limitGroup("100,000 × 2, positions", 100_000, 2, 0);
limitGroup("1,024 × 2, positions", 1024, 2, 0);
limitGroup("100,000 × 4, positions", 100_000, 4, 0);
limitGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
boundsGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
boundsGroup("100,000 × 2, positions", 100_000, 2, 0);
boundsGroup("100,000 × 4, positions", 100_000, 4, 0);
boundsGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
dualGroup("100,000 × 1 influence, positions", 100_000, 1, 0);
dualGroup("100,000 × 2, positions", 100_000, 2, 0);
dualGroup("100,000 × 4, positions", 100_000, 4, 0);
dualGroup("100,000 × 4, positions + normals + tangents", 100_000, 4, ALL);
renormalizeGroup("100,000 × 2, positions + normals + tangents", 100_000, 2);
renormalizeGroup("100,000 × 4, positions + normals + tangents", 100_000, 4);
