/**
 * Retargeting clips between skeletons ({@linkcode retargetClip}): a clip
 * made for one character rebuilt once into an ordinary clip for another,
 * with its options ({@linkcode RetargetOptions}) and errors
 * ({@linkcode RetargetError}).
 *
 * @module
 */

export { retargetClip } from "./animation/retarget.ts";
export {
  DEFAULT_RETARGET_MAX_VALUES,
  RetargetError,
  type RetargetFacing,
  type RetargetJointOverride,
  type RetargetOptions,
  type RetargetRotation,
  type RetargetSkeleton,
  type RetargetVector,
} from "./animation/retarget_options.ts";
