/**
 * The IK system on Xbot's and Soldier's legs and arms (read from
 * `../shared/assets/gltf/`, skipped when absent), playing their walk clip,
 * on every build, through the standard pipeline: a reachable target is
 * reached within 1e-5 of the chain's length, bone lengths are unchanged,
 * the knee/elbow lies in the pole vector's plane, weight 0 leaves the
 * frame untouched (bit for bit), an unreachable target straightens the
 * chain toward it, aim IK points the head's axis at the target within
 * 1e-4 rad, and the skinning palette is the corrected model × inverse bind.
 * Without a hinge axis or pole vector, the default axis (from the rest
 * pose) bends the knees forward, toward the toes.
 */

import { assert, assertEquals } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import {
  addCharacter,
  createAnimation,
  createAnimationPipeline,
  disposeAnimation,
  getModelMatrices,
  getSkinningPalette,
  playClip,
  SkeletonAsset,
} from "../mod.ts";
import { createCharacterAssets, importGltf } from "../gltf/mod.ts";
import { addAimIK, addTwoBoneIK, getIKReached, setIKTarget, updateIKChain } from "../ik.ts";
import * as ref from "../simd/scalar/mod.ts";
import { BUILDS, coreFor, type Vec3 } from "./_arbitrary.ts";
import {
  angle,
  cross,
  direction,
  dot,
  intoJoint,
  MIXAMO_LIMBS,
  norm,
  position,
  sub,
  unit,
} from "./_ik.ts";
import { randomSkeleton } from "./_compact.ts";
import { random } from "./_scene.ts";
import { assetUrl, testOnModels } from "./_three_gltf.ts";

/** Deterministic directions spread over the sphere. */
const DIRECTIONS: Vec3[] = Array.from({ length: 6 }, (_, i) => {
  const y = 1 - (2 * i + 1) / 6, r = Math.sqrt(1 - y * y), a = i * 2.39996;
  return [r * Math.cos(a), y, r * Math.sin(a)];
});

for (const file of ["Xbot.glb", "Soldier.glb"]) {
  testOnModels([file], `${file}: two-bone IK on legs and arms, aim IK on the head`, async () => {
    const model = await importGltf(assetUrl(file));
    const gltfSkeleton = model.skeletons[0];
    const clip = gltfSkeleton.clips.find((c) => /walk/i.test(c.name))!;
    for (const build of BUILDS) {
      const core = coreFor(build);
      const { skeleton, skin } = createCharacterAssets(gltfSkeleton, core);
      const world = createWorld();
      createAnimation(world, { core });
      const eid = addEntity(world);
      addCharacter(world, eid, skeleton, skin);
      playClip(world, eid, clip, { time: clip.duration * 0.3 });
      const animate = createAnimationPipeline();
      animate(world, 0);
      const animated = getModelMatrices(world, eid).slice();
      const j = (name: string) => skeleton.jointIndex(name);

      MIXAMO_LIMBS.forEach(([hip, knee, foot], limb) => {
        const [s0, m0, e0] = [j(hip), j(knee), j(foot)];
        const s = position(animated, s0), m = position(animated, m0);
        const e = position(animated, e0);
        const l1 = norm(sub(m, s)), l2 = norm(sub(e, m)), length = l1 + l2;
        const midAxis = unit(intoJoint(animated, m0, cross(sub(e, m), sub(m, s))));
        const chain = addTwoBoneIK(world, eid, { start: hip, mid: knee, end: foot, midAxis });
        assertEquals(chain, limb);
        DIRECTIONS.forEach((dir, k) => {
          const pole = unit(cross(dir, DIRECTIONS[(k + 2) % 6]));
          const d = Math.abs(l1 - l2) + (length - Math.abs(l1 - l2)) * (0.2 + 0.12 * k);
          const target = s.map((x, i) => x + dir[i] * d) as Vec3;
          updateIKChain(world, eid, chain, { target, poleVector: pole, weight: 1 });
          animate(world, 0);
          const after = getModelMatrices(world, eid);
          const what = `${file} ${build} ${knee} direction ${k}`;
          const s1 = position(after, s0), m1 = position(after, m0), e1 = position(after, e0);
          assert(norm(sub(s1, s)) <= 1e-6 * length, `${what}: the start moved`);
          assert(norm(sub(e1, target)) <= 1e-5 * length, `${what}: off target`);
          assert(Math.abs(norm(sub(m1, s1)) - l1) <= 1e-5 * length, `${what}: upper bone`);
          assert(Math.abs(norm(sub(e1, m1)) - l2) <= 1e-5 * length, `${what}: lower bone`);
          const normal = unit(cross(sub(target, s), pole));
          assert(Math.abs(dot(sub(m1, s1), normal)) <= 1e-5 * length, `${what}: pole plane`);
          assert(getIKReached(world, eid, chain), `${what}: not reached`);

          updateIKChain(world, eid, chain, { weight: 0 });
          animate(world, 0);
          assertEquals(getModelMatrices(world, eid), animated, `${what}: weight 0`);

          const far = s.map((x, i) => x + dir[i] * length * 1.5) as Vec3;
          updateIKChain(world, eid, chain, { target: far, weight: 1 });
          animate(world, 0);
          const reachedOut = position(getModelMatrices(world, eid), e0);
          const straight = s.map((x, i) => x + dir[i] * length);
          assert(norm(sub(reachedOut, straight)) <= 1e-5 * length, `${what}: not straightened`);
          assert(!getIKReached(world, eid, chain));
        });
        updateIKChain(world, eid, chain, { weight: 0 });
      });

      // Aim the head's +z (Mixamo's face direction) at points around it.
      const head = j("mixamorig:Head");
      const aim = addAimIK(world, eid, { joint: head, forward: [0, 0, 1], up: [0, 1, 0] });
      const h = position(animated, head);
      const size = norm(sub(position(animated, j("mixamorig:LeftFoot")), h));
      for (const dir of DIRECTIONS) {
        const target = h.map((x, i) => x + dir[i] * size) as Vec3;
        setIKTarget(world, eid, aim, target);
        animate(world, 0);
        const after = getModelMatrices(world, eid);
        const facing = direction(after, head, [0, 0, 1]);
        assert(angle(facing, sub(target, position(after, head))) <= 1e-4, `${file} ${build} aim`);
        // The palette is the corrected pose times the inverse bind.
        const palette = getSkinningPalette(world, eid);
        const expected = new Float32Array(palette.length);
        ref.multiplyMatrices(after, skeleton.inverseBind, expected, skeleton.jointCount);
        const scale = Math.max(...expected.map(Math.abs));
        assert(palette.every((x, i) => Math.abs(x - expected[i]) <= 1e-5 * scale));
      }
      skin.dispose();
      skeleton.dispose();
    }
  });
}

testOnModels(["Xbot.glb", "Soldier.glb"], "default hinge axes bend knees forward", async () => {
  for (const file of ["Xbot.glb", "Soldier.glb"]) {
    const { skeleton, skin } = createCharacterAssets(
      (await importGltf(assetUrl(file))).skeletons[0],
    );
    const world = createWorld();
    createAnimation(world);
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton, skin);
    const animate = createAnimationPipeline();
    animate(world, 0);
    const rest = getModelMatrices(world, eid).slice();
    for (const side of ["Left", "Right"]) {
      const j = (name: string) => skeleton.jointIndex(`mixamorig:${side}${name}`);
      const hip = position(rest, j("UpLeg")), knee = position(rest, j("Leg"));
      const foot = position(rest, j("Foot")), toe = position(rest, j("ToeBase"));
      const leg = addTwoBoneIK(world, eid, { start: j("UpLeg"), mid: j("Leg"), end: j("Foot") });
      const lift = 0.25 * norm(sub(foot, hip));
      setIKTarget(world, eid, leg, [foot[0], foot[1] + lift, foot[2]]);
      animate(world, 0);
      const bent = position(getModelMatrices(world, eid), j("Leg"));
      // Forward is where the toes point (Xbot faces +z, Soldier -z).
      const forward = [toe[0] - foot[0], 0, toe[2] - foot[2]];
      assert(dot(sub(bent, knee), forward) > 0.5 * lift * norm(forward), `${file} ${side} knee`);
      updateIKChain(world, eid, leg, { weight: 0 });
    }
    skin.dispose();
    skeleton.dispose();
  }
});

Deno.test("ikSystem on a skeleton whose branches interleave: the other branch's matrices stay bit for bit", () => {
  // Breadth-first order: the chain 1 -> 3 -> 5 and the branch 2 -> 4 -> 6
  // share the joint range 1..5 that the kernel re-transforms.
  const definition = randomSkeleton(7, random(21));
  (definition.parents as Int16Array).set([-1, 0, 0, 1, 2, 3, 4]);
  for (const build of BUILDS) {
    const core = coreFor(build);
    const skeleton = new SkeletonAsset(definition, core);
    const world = createWorld();
    createAnimation(world, { core });
    const eid = addEntity(world);
    addCharacter(world, eid, skeleton);
    const animate = createAnimationPipeline();
    animate(world, 0);
    const before = getModelMatrices(world, eid).slice();
    const chain = addTwoBoneIK(world, eid, { start: "j1", mid: "j3", end: "j5" });
    const s = position(before, 1);
    setIKTarget(world, eid, chain, [s[0] + 0.1, s[1] - 0.2, s[2] + 0.05]);
    animate(world, 0);
    const after = getModelMatrices(world, eid);
    for (const j of [0, 2, 4, 6]) {
      const range = [j * 12, (j + 1) * 12] as const;
      assertEquals(after.slice(...range), before.slice(...range), `${build}: joint ${j}`);
    }
    assert(
      [1, 3, 5].some((j) =>
        after.slice(j * 12, j * 12 + 12).some((x, i) => x !== before[j * 12 + i])
      ),
      `${build}: the chain did not move`,
    );
    disposeAnimation(world);
    skeleton.dispose();
  }
});
