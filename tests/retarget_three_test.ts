/**
 * Retargeting against three.js `SkeletonUtils.retargetClip` on Soldier ↔
 * Xbot (test-only models: skipped when `../shared/assets/gltf/` lacks
 * them), three.js used the way it works for rigs like these:
 *
 * - an explicit name map (every target bone to the source bone of its
 *   name) and the hip bone named;
 * - per-bone rest offsets (`localOffsets`: the source bone's rest world
 *   rotation undone, the target bone's applied), so that rest frames that
 *   differ are respected;
 * - the source's scene turned about +y to the target's facing (Soldier
 *   faces −Z in its scene, Xbot +Z), the hips' height ratio as `scale` and
 *   the rest hips offset as `hipPosition`.
 *
 * Marrow is given the same facing and scale. three.js samples the source
 * at frames (as many as the clip's longest track has keys); each mapped
 * bone's local rotation and the hips' translation from both must agree at
 * every frame. Without the offsets or the turn three.js turns the target
 * round; both checked to make a difference.
 */

import { assert } from "@std/assert";
import * as THREE from "three";
import { retargetClip as threeRetargetClip } from "three/examples/jsm/utils/SkeletonUtils.js";
import { sampleChannel } from "../clips.ts";
import { retargetClip } from "../retarget.ts";
import type { Clip } from "../mod.ts";
import type { GltfSkeleton } from "../gltf/types.ts";
import { loadThree, nodeObjects, readAsset, testOnModels, type ThreeModel } from "./_three_gltf.ts";
import { modelSkeletons } from "./_retarget.ts";

const MODELS = ["Soldier.glb", "Xbot.glb"];

interface Side {
  readonly three: ThreeModel;
  readonly marrow: GltfSkeleton;
  readonly mesh: THREE.SkinnedMesh;
  /** Marrow joint of each three.js bone. */
  readonly jointOf: Map<THREE.Object3D, number>;
}

async function side(name: string): Promise<Side> {
  const three = await loadThree(readAsset(name));
  const [marrow] = await modelSkeletons(name);
  const objects = nodeObjects(three);
  const jointOf = new Map<THREE.Object3D, number>();
  marrow.nodes.forEach((node, j) => {
    const object = objects.get(node);
    if (object && !jointOf.has(object)) jointOf.set(object, j);
  });
  return { three, marrow, mesh: three.primitives[0].object, jointOf };
}

/** Puts every object of `side` at rest, its scene turned by `turn` about +y. */
function rest(side: Side, turn: number): void {
  for (const [object, [p, q, s]] of side.three.rest) {
    object.position.copy(p), object.quaternion.copy(q), object.scale.copy(s);
  }
  side.three.gltf.scene.quaternion.setFromAxisAngle(new THREE.Vector3(0, 1, 0), turn);
  side.three.gltf.scene.updateMatrixWorld(true);
}

function worldOf(bone: THREE.Object3D): { q: THREE.Quaternion; p: THREE.Vector3 } {
  return {
    q: bone.getWorldQuaternion(new THREE.Quaternion()),
    p: bone.getWorldPosition(new THREE.Vector3()),
  };
}

const HIPS = "mixamorigHips";

/**
 * The largest angle between the local rotations of three.js's retargeted
 * clip and Marrow's for the same bone and time (at three.js's frames), and
 * the largest distance between their hips translations (local units).
 */
function largestDifference(
  threeClip: THREE.AnimationClip,
  ours: Clip,
  target: Side,
): { angle: number; move: number; at: string } {
  const channels = new Map(ours.channels.map((c) => [`${c.joint}/${c.path}`, c]));
  const value = new Float64Array(4);
  let angle = 0, move = 0, at = "";
  for (const track of threeClip.tracks) {
    const boneName = track.name.slice(".bones[".length, track.name.indexOf("]"));
    const joint = target.jointOf.get(target.mesh.skeleton.getBoneByName(boneName)!)!;
    const path = track.name.endsWith(".quaternion") ? "rotation" : "translation";
    const channel = channels.get(`${joint}/${path}`);
    assert(channel, `${ours.name}: no ${path} channel for ${boneName}`);
    const size = path === "rotation" ? 4 : 3;
    for (let k = 0; k < track.times.length; k++) {
      sampleChannel(channel, track.times[k], value);
      const v = track.values.subarray(k * size, k * size + size);
      if (size === 3) {
        move = Math.max(move, Math.hypot(v[0] - value[0], v[1] - value[1], v[2] - value[2]));
        continue;
      }
      const dot = Math.abs(v[0] * value[0] + v[1] * value[1] + v[2] * value[2] + v[3] * value[3]);
      const a = 2 * Math.acos(Math.min(1, dot));
      if (a > angle) angle = a, at = `${boneName} at ${track.times[k]}`;
    }
  }
  return { angle, move, at };
}

for (
  const [from, to, sourceTurn] of [["Soldier.glb", "Xbot.glb", Math.PI], [
    "Xbot.glb",
    "Soldier.glb",
    Math.PI,
  ]] as const
) {
  testOnModels(
    MODELS,
    `retarget: ${from} → ${to} as three.js SkeletonUtils.retargetClip with rest offsets`,
    async () => {
      const source = await side(from), target = await side(to);
      rest(source, sourceTurn), rest(target, 0);
      const sourceBones = new Map<string, THREE.Bone>();
      for (const bone of source.mesh.skeleton.bones) sourceBones.set(bone.name, bone);
      const names: Record<string, string> = {}, localOffsets: Record<string, THREE.Matrix4> = {};
      for (const bone of target.mesh.skeleton.bones) {
        const match = sourceBones.get(bone.name);
        if (!match) continue;
        names[bone.name] = match.name;
        const offset = worldOf(match).q.invert().multiply(worldOf(bone).q);
        localOffsets[bone.name] = new THREE.Matrix4().makeRotationFromQuaternion(offset);
      }
      const sourceHips = worldOf(sourceBones.get(HIPS)!).p;
      const targetHips = worldOf(target.mesh.skeleton.getBoneByName(HIPS)!).p;
      const scale = targetHips.y / sourceHips.y;
      const hipPosition = targetHips.clone().sub(sourceHips.clone().multiplyScalar(scale))
        .divideScalar(scale);
      const facing = {
        source: [0, 0, from === "Soldier.glb" ? -1 : 1],
        target: [0, 0, to === "Soldier.glb" ? -1 : 1],
      } as const;
      // The hips' local translation is in its parent's units (Xbot's and Soldier's are 0.01 m).
      const unit = target.mesh.skeleton.getBoneByName(HIPS)!.parent!.getWorldScale(
        new THREE.Vector3(),
      ).y;
      let worstAngle = 0, worstMove = 0;
      for (const [index, clip] of source.marrow.clips.entries()) {
        const three = source.three.gltf.animations[index];
        const options = { names, hip: HIPS, localOffsets, scale, hipPosition };
        const threeClip = threeRetargetClip(target.mesh, source.mesh, three, options);
        const ours = retargetClip(clip, {
          source: source.marrow.skeleton,
          target: target.marrow.skeleton,
          facing,
          rootScale: scale,
        });
        const { angle, move, at } = largestDifference(threeClip, ours, target);
        assert(angle <= 1e-3, `${clip.name}: ${at} ${angle} rad apart`);
        assert(move * unit <= 1e-4 * targetHips.y, `${clip.name}: the hips ${move} apart`);
        worstAngle = Math.max(worstAngle, angle), worstMove = Math.max(worstMove, move * unit);
        if (index > 0) continue;
        // Plain retargetClip (names and hip only, the source's scene as it is) turns rigs
        // like these round: far from it.
        rest(source, 0);
        const plain = threeRetargetClip(target.mesh, source.mesh, three, { names, hip: HIPS });
        rest(source, sourceTurn);
        const far = largestDifference(plain, ours, target).angle;
        assert(far > 1, `${clip.name}: plain retargetClip only ${far} rad apart`);
      }
      console.log(
        `${from} → ${to}: the worst rotation ${worstAngle.toExponential(2)} rad apart, hips ${
          worstMove.toExponential(2)
        } m`,
      );
    },
  );
}
