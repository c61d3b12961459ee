/**
 * glTF import: every shared asset against its statistics and against
 * three.js at the rest pose. Synthetic documents for the cases the assets
 * lack: `gltf_import_synthetic_test.ts`; .gltf files with external buffers
 * and import errors: `gltf_import_errors_test.ts`.
 */

import { assert, assertAlmostEquals, assertEquals, assertExists, assertGreater } from "@std/assert";
import { importGltf } from "../gltf/import.ts";
import { assetUrl, listAssets, readAsset, testOnModels } from "./_three_gltf.ts";
import { checkRestAgainstThree, checkStructure } from "./_gltf_import.ts";

interface AssetStats {
  file: string;
  skins: { joints: number }[];
  skinnedPrimitives: number;
  skinnedVertexInstances: number;
  primsWithNormal: number;
  primsWithTangent: number;
  nonZeroWeightsHistogram: Record<string, number>;
  weightSumMaxAbsErr: number;
  animations: {
    name: string;
    tStart: number;
    tEnd: number;
    paths: Record<string, number>;
  }[];
}

const STATS: AssetStats[] = JSON.parse(
  new TextDecoder().decode(readAsset("stats.json")),
);

Deno.test("the glTF test models are present and described", () => {
  const files = listAssets();
  assertGreater(files.length, 0);
  assertEquals(files, STATS.map((s) => s.file).sort());
});

for (const stats of STATS) {
  testOnModels(
    [stats.file],
    `import ${stats.file}: statistics, structure, rest pose vs three.js`,
    async () => {
      const bytes = readAsset(stats.file);
      const model = await importGltf(assetUrl(stats.file));
      assertEquals(model.warnings, []);
      // Every skin once, in some skeleton.
      const skins = model.skeletons.flatMap((s) => s.skins).sort((a, b) => a.skin - b.skin);
      assertEquals(skins.map((k) => k.skin), stats.skins.map((_, i) => i));
      assertEquals(
        skins.map((k) => k.skinJoints.length),
        stats.skins.map((s) => s.joints),
      );
      // The file's skinned primitives (attached meshes: tests/morph_robot_test.ts).
      const primitives = model.skeletons.flatMap((s) => s.primitives).filter((p) =>
        p.gltfSkin >= 0
      );
      assertEquals(
        primitives.reduce((n, p) => n + p.skin.vertexCount, 0),
        stats.skinnedVertexInstances,
      );
      const unique = new Map(
        primitives.map((p) => [`${p.mesh}/${p.primitive}`, p]),
      );
      assertEquals(unique.size, stats.skinnedPrimitives);
      assertEquals(
        [...unique.values()].filter((p) => p.skin.normals).length,
        stats.primsWithNormal,
      );
      assertEquals(
        [...unique.values()].filter((p) => p.skin.tangents).length,
        stats.primsWithTangent,
      );
      // Influence histogram (non-zero weights per vertex) over unique primitives.
      const histogram: Record<string, number> = {};
      let weightSumError = 0;
      for (const p of unique.values()) {
        let k = 0;
        for (let v = 0; v < p.skin.vertexCount; v++) {
          const c = p.skin.influenceCounts[v];
          histogram[c] = (histogram[c] ?? 0) + 1;
          let sum = 0;
          for (let i = 0; i < c; i++) sum += p.skin.weights[k++];
          weightSumError = Math.max(weightSumError, Math.abs(sum - 1));
        }
      }
      assertEquals(histogram, stats.nonZeroWeightsHistogram);
      assertAlmostEquals(weightSumError, stats.weightSumMaxAbsErr, 1e-3);
      for (const s of model.skeletons) {
        assertEquals(s.clips.length, stats.animations.length);
        s.clips.forEach((clip, i) => {
          const a = stats.animations[i];
          // Unnamed animations are named as three.js names them.
          assertEquals(clip.name, a.name || `animation_${i}`);
          assertEquals(clip.animation, i);
          assertAlmostEquals(clip.start, a.tStart, 1e-4);
          assertAlmostEquals(clip.duration, a.tEnd, 1e-4);
          for (const ch of clip.channels) {
            assert(ch.joint < s.skeleton.parents.length);
            assertEquals(s.nodes[ch.joint], ch.node);
          }
        });
      }
      // The channels of all skeletons together: every translation, rotation
      // and scale channel whose node is in a skeleton, each once per skeleton.
      stats.animations.forEach((a, i) => {
        const perSkeleton = model.skeletons.map((s) => s.clips[i].channels);
        for (const channels of perSkeleton) {
          const keys = channels.map((c) => `${c.joint}/${c.path}`);
          assertEquals(new Set(keys).size, keys.length);
        }
        const animated = new Set(
          perSkeleton.flat().map((c) => `${c.node}/${c.path}`),
        );
        const trs = (a.paths.translation ?? 0) + (a.paths.rotation ?? 0) +
          (a.paths.scale ?? 0);
        assert(animated.size <= trs);
        assertGreater(animated.size, 0);
      });
      checkStructure(model);
      const rest = await checkRestAgainstThree(model, bytes);
      console.log(
        `  ${stats.file}: rest pose max error ${rest.relative.toExponential(2)} x bbox, normals ${
          rest.normal.toExponential(2)
        }`,
      );
    },
  );
}

testOnModels(
  ["Xbot.glb", "Soldier.glb"],
  "Mixamo-style Armature nodes above the hips are folded in",
  async () => {
    for (const file of ["Xbot.glb", "Soldier.glb"]) {
      const model = await importGltf(assetUrl(file));
      const s = model.skeletons[0];
      const hips = s.skeleton.names.indexOf("mixamorig:Hips");
      assertGreater(hips, 0, `${file}: the hips have an ancestor`);
      const root = s.skeleton.parents[hips];
      assertEquals(s.skeleton.parents[root], -1);
      assert(!s.skinJoints.includes(root), "the ancestor is not a skin joint");
      const g = root;
      const scale = s.skeleton.restPose[(g >> 2) * 40 + 28 + (g & 3)];
      assertAlmostEquals(scale, 0.01, 1e-6, `${file}: the 0.01 scale is kept`);
    }
  },
);

testOnModels(["BrainStem.glb"], "BrainStem: 59 primitives of one skin, all rigid", async () => {
  const model = await importGltf(assetUrl("BrainStem.glb"));
  assertEquals(model.skeletons.length, 1);
  const s = model.skeletons[0];
  assertEquals(s.primitives.length, 59);
  assertEquals(new Set(s.primitives.map((p) => p.primitive)).size, 59);
  for (const p of s.primitives) {
    assert(p.skin.influenceCounts.every((c) => c === 1));
    assertExists(p.indices);
    assertEquals(p.mode, 4);
  }
});
