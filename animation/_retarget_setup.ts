/**
 * What a retargeting build decides before it samples anything: the joint
 * map, the hips, each target joint's rotation and translation rule, the
 * facing turn and the root scale.
 *
 * @module
 */

import { JOINT_STRIDE, multiply, normalize, Q, S, T, yRotation } from "./_retarget_math.ts";
import {
  RetargetError,
  type RetargetJointOverride,
  type RetargetOptions,
  type RetargetVector,
} from "./retarget_options.ts";
import { heightAbove, measureFacing, type RestSkeleton } from "./_retarget_skeleton.ts";
import { describeValue } from "../simd/memory/internal.ts";

/** Rotation rules: keep the rest rotation, transfer in model space, copy the source's local. */
export const ROTATE_REST = 0, ROTATE_MODEL = 1, ROTATE_LOCAL = 2;
/** Translation rules: rest, root (model-space motion), rest plus the source's offset, the source's. */
export const MOVE_REST = 0, MOVE_ROOT = 1, MOVE_OFFSET = 2, MOVE_SOURCE = 3;

/** Everything the sampling sweep needs. */
export interface RetargetPlan {
  readonly source: RestSkeleton;
  readonly target: RestSkeleton;
  /** The target's hips. */
  readonly hips: number;
  /** Source joint of each target joint, or -1. */
  readonly sourceOf: Int32Array;
  /** Rotation rule of each target joint. */
  readonly rotation: Uint8Array;
  /** Translation rule of each target joint. */
  readonly translation: Uint8Array;
  /**
   * Per target joint, 4 numbers: for `ROTATE_MODEL` the constant right
   * factor `conj(sourceRest) · conj(facing) · targetRest · offset`; for the
   * others the offset (identity without one).
   */
  readonly right: Float64Array;
  /**
   * Per target joint, 4 numbers: for `MOVE_OFFSET` the rotation from the
   * source joint's parent frame at rest to the target joint's,
   * `conj(targetParentRest) · facing · sourceParentRest`.
   */
  readonly offsetTurn: Float64Array;
  /** The turn about +y from the source's facing to the target's (x, y, z, w). */
  readonly facing: Float64Array;
  /** Root translations' scale: the hips' height ratio, target over source. */
  readonly rootScale: number;
}

const byName = new WeakMap<RestSkeleton, Map<string, number[]>>();

/** The joints of each name (built once per skeleton read: lookups stay linear in the entries). */
function jointsNamed(skeleton: RestSkeleton): Map<string, number[]> {
  let index = byName.get(skeleton);
  if (!index) byName.set(skeleton, index = jointsByKey(skeleton.names, (name) => name));
  return index;
}

/** The part of a joint name after its last `:` (`mixamorig:Hips` → `Hips`). */
function unprefixed(name: string): string {
  return name.slice(name.lastIndexOf(":") + 1);
}

/** The joints of each `key` of their names, in joint order. */
function jointsByKey(
  names: readonly string[],
  key: (name: string) => string,
): Map<string, number[]> {
  const index = new Map<string, number[]>();
  names.forEach((name, j) => {
    const k = key(name);
    const joints = index.get(k);
    if (joints) joints.push(j);
    else index.set(k, [j]);
  });
  return index;
}

/**
 * The source joint of the `i`-th of `count` target joints that share a
 * name, among the source joints of the matching name: the one there is,
 * or the `i`-th where both have as many (a file may name a bone and the
 * mesh hung on it alike, as RobotExpressive does); -1 otherwise.
 */
function occurrence(sources: readonly number[] | undefined, i: number, count: number): number {
  if (sources === undefined) return -1;
  if (sources.length === 1) return sources[0];
  return sources.length === count ? sources[i] : -1;
}

/**
 * Source joint of each target joint: the explicit table first (`null`
 * leaves a joint unmapped), then the same name, then the same name
 * without its prefix. A name some joints share maps them in order where
 * source and target have as many of it, else to the one source joint of
 * that name; any other shared name maps nothing.
 */
function mapJoints(
  source: RestSkeleton,
  target: RestSkeleton,
  jointMap: RetargetOptions["jointMap"],
): Int32Array {
  const sourceOf = new Int32Array(target.names.length).fill(-1);
  const targetNamed = jointsNamed(target);
  const exact = jointsNamed(source);
  const explicit = new Set<string>();
  if (jointMap !== undefined) {
    if (jointMap === null || typeof jointMap !== "object") {
      throw new RetargetError("jointMap", "expected an object of target name → source name");
    }
    for (const [targetName, sourceName] of Object.entries(jointMap)) {
      const joints = targetNamed.get(targetName);
      if (!joints) {
        throw new RetargetError("jointMap", "no target joint has this name", targetName);
      }
      joints.forEach((t, i) => {
        if (sourceName === null) return void (sourceOf[t] = -1);
        const sources = exact.get(String(sourceName));
        const j = occurrence(sources, i, joints.length);
        if (j < 0) {
          throw new RetargetError(
            "jointMap",
            `source joint "${sourceName}" ${sources ? "is ambiguous" : "does not exist"}`,
            targetName,
          );
        }
        sourceOf[t] = j;
      });
      explicit.add(targetName);
    }
  }
  const bare = jointsByKey(source.names, unprefixed);
  for (const [name, joints] of targetNamed) {
    if (name === "" || explicit.has(name)) continue;
    const bareName = unprefixed(name);
    const sources = exact.get(name) ?? (bareName === "" ? undefined : bare.get(bareName));
    joints.forEach((t, i) => sourceOf[t] = occurrence(sources, i, joints.length));
  }
  return sourceOf;
}

/**
 * The target's hips: the option, else the first mapped joint whose name
 * has `hip` or `pelvis` in it (any case), else the first mapped joint with
 * two children or more (legs and spine), else the first mapped joint.
 */
function findHips(target: RestSkeleton, sourceOf: Int32Array, hips?: string): number {
  if (hips !== undefined) {
    const j = target.names.indexOf(String(hips));
    if (j < 0) throw new RetargetError("hips", "no target joint has this name", String(hips));
    if (sourceOf[j] < 0) throw new RetargetError("hips", "the hips joint is unmapped", hips);
    return j;
  }
  const named = target.names.findIndex((n, j) => sourceOf[j] >= 0 && /hip|pelvis/i.test(n));
  if (named >= 0) return named;
  const children = new Int32Array(target.parents.length);
  for (const p of target.parents) if (p >= 0) children[p]++;
  const branching = children.findIndex((c, j) => c >= 2 && sourceOf[j] >= 0);
  return branching >= 0 ? branching : sourceOf.findIndex((s) => s >= 0);
}

/** A facing option as a horizontal unit direction. */
function facingOption(vector: RetargetVector | undefined, argument: string): [number, number] {
  const x = Number(vector?.[0]), z = Number(vector?.[2]);
  const length = Math.hypot(x, z);
  if (!(length > 0 && length < Infinity)) {
    throw new RetargetError(argument, "expected a finite [x, y, z] with a horizontal part");
  }
  return [x / length, z / length];
}

/** The per-joint rules and constant factors, from the options. */
export function plan(
  source: RestSkeleton,
  target: RestSkeleton,
  options: RetargetOptions,
): RetargetPlan {
  const sourceOf = mapJoints(source, target, options.jointMap);
  const hips = findHips(target, sourceOf, options.hips);
  if (hips < 0) throw new RetargetError("jointMap", "no target joint maps to a source joint");
  const sourceHips = sourceOf[hips];
  const count = target.parents.length;
  const rotation = new Uint8Array(count), translation = new Uint8Array(count);
  const right = new Float64Array(count * 4);
  for (let j = 0; j < count; j++) {
    right[j * 4 + 3] = 1;
    if (sourceOf[j] >= 0) {
      rotation[j] = ROTATE_MODEL;
      if (sameBone(source, sourceOf[j], target, j)) translation[j] = MOVE_OFFSET;
    }
  }
  translation[hips] = MOVE_ROOT;
  applyOverrides(target, sourceOf, options.overrides, rotation, translation, right);

  const measured = (skeleton: RestSkeleton, j: number) => measureFacing(skeleton, j);
  const from = options.facing?.source !== undefined
    ? facingOption(options.facing.source, "facing.source")
    : measured(source, sourceHips);
  const to = options.facing?.target !== undefined
    ? facingOption(options.facing.target, "facing.target")
    : measured(target, hips);
  const facing = new Float64Array(4);
  yRotation(
    from && to
      ? Math.atan2(from[1] * to[0] - from[0] * to[1], from[0] * to[0] + from[1] * to[1])
      : 0,
    facing,
    0,
  );

  const rootScale = options.rootScale ?? hipsRatio(source, sourceHips, target, hips);
  if (!(rootScale > 0 && rootScale < Infinity)) {
    throw new RetargetError(
      "rootScale",
      `expected a positive finite scale, got ${describeValue(rootScale)}`,
    );
  }
  const factor = new Float64Array(4), unturn = Float64Array.of(0, -facing[1], 0, facing[3]);
  for (let j = 0; j < count; j++) {
    if (rotation[j] !== ROTATE_MODEL) continue;
    // conj(sourceRest) · conj(facing) · targetRest · offset
    multiply(source.model, sourceOf[j] * JOINT_STRIDE + Q, unturn, 0, factor, 0, true);
    multiply(factor, 0, target.model, j * JOINT_STRIDE + Q, factor, 0);
    multiply(factor, 0, right, j * 4, right, j * 4);
  }
  const offsetTurn = new Float64Array(count * 4);
  for (let j = 0; j < count; j++) {
    const ps = source.parents[sourceOf[j]], pt = target.parents[j];
    offsetTurn.set(facing, j * 4);
    if (translation[j] !== MOVE_OFFSET) continue;
    if (ps >= 0) {
      multiply(offsetTurn, j * 4, source.model, ps * JOINT_STRIDE + Q, offsetTurn, j * 4);
    }
    if (pt >= 0) {
      multiply(target.model, pt * JOINT_STRIDE + Q, offsetTurn, j * 4, offsetTurn, j * 4, true);
    }
  }
  return {
    source,
    target,
    hips,
    sourceOf,
    rotation,
    translation,
    right,
    offsetTurn,
    facing,
    rootScale,
  };
}

/**
 * Whether source joint `s` and target joint `t` have the same rest
 * translation (and parent scale): the same rig, whose animated offsets
 * the target keeps by default.
 */
function sameBone(source: RestSkeleton, s: number, target: RestSkeleton, t: number): boolean {
  const ps = source.parents[s], pt = target.parents[t];
  for (let c = 0; c < 3; c++) {
    const scale = (ps >= 0 ? source.model[ps * JOINT_STRIDE + S + c] : 1) ===
      (pt >= 0 ? target.model[pt * JOINT_STRIDE + S + c] : 1);
    if (
      !scale || source.local[s * JOINT_STRIDE + T + c] !== target.local[t * JOINT_STRIDE + T + c]
    ) {
      return false;
    }
  }
  return true;
}

/** Target hips' rest height over the source's; 1 when both are at the ground. */
function hipsRatio(source: RestSkeleton, sourceHips: number, target: RestSkeleton, hips: number) {
  const from = heightAbove(source, sourceHips), to = heightAbove(target, hips);
  if (from === 0 && to === 0) return 1;
  if (!(from > 0 && to > 0)) {
    throw new RetargetError(
      "rootScale",
      `the hips are at the ground at rest (heights ${from}, ${to}): give rootScale`,
      target.names[hips],
    );
  }
  return to / from;
}

const ROTATIONS: Record<string, number> = {
  rest: ROTATE_REST,
  model: ROTATE_MODEL,
  local: ROTATE_LOCAL,
};
const TRANSLATIONS: Record<string, number> = {
  rest: MOVE_REST,
  root: MOVE_ROOT,
  offset: MOVE_OFFSET,
  source: MOVE_SOURCE,
};

function applyOverrides(
  target: RestSkeleton,
  sourceOf: Int32Array,
  overrides: RetargetOptions["overrides"],
  rotation: Uint8Array,
  translation: Uint8Array,
  right: Float64Array,
): void {
  if (overrides === undefined) return;
  if (overrides === null || typeof overrides !== "object") {
    throw new RetargetError("overrides", "expected an object of target name → override");
  }
  for (const [name, override] of Object.entries(overrides)) {
    const { rotation: r, translation: t, offset } = (override ?? {}) as RetargetJointOverride;
    const joints = target.names.flatMap((n, j) => n === name ? [j] : []);
    if (joints.length === 0) {
      throw new RetargetError("overrides", "no target joint has this name", name);
    }
    const rule = r === undefined ? undefined : ROTATIONS[r];
    const move = t === undefined ? undefined : TRANSLATIONS[t];
    if (r !== undefined && !(Object.hasOwn(ROTATIONS, r))) {
      throw new RetargetError("overrides", `rotation "${r}" is not rest, model or local`, name);
    }
    if (t !== undefined && !(Object.hasOwn(TRANSLATIONS, t))) {
      throw new RetargetError(
        "overrides",
        `translation "${t}" is not root, offset, rest or source`,
        name,
      );
    }
    let q: Float64Array | undefined;
    if (offset !== undefined) {
      q = Float64Array.from({ length: 4 }, (_, c) => Number(offset?.[c]));
      if (!q.every(Number.isFinite) || !(Math.hypot(...q) > 0)) {
        throw new RetargetError(
          "overrides",
          "offset: expected a finite, non-zero [x, y, z, w]",
          name,
        );
      }
      normalize(q, 0);
    }
    for (const j of joints) {
      const mapped = sourceOf[j] >= 0;
      if (rule !== undefined) rotation[j] = rule;
      if (move !== undefined) translation[j] = move;
      if (!mapped && (rotation[j] !== ROTATE_REST || translation[j] !== MOVE_REST)) {
        throw new RetargetError("overrides", "an unmapped joint can only keep its rest pose", name);
      }
      if (q) right.set(q, j * 4);
    }
  }
}
