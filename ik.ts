/**
 * Inverse kinematics on entities: two-bone chains ({@linkcode addTwoBoneIK})
 * and aim chains ({@linkcode addAimIK}), their targets and settings
 * ({@linkcode setIKTarget}, {@linkcode updateIKChain}) and what the last
 * solve reached ({@linkcode getIKReached}, {@linkcode getIKDistance}). The
 * IK system (`ikSystem`) and component are in the main entry.
 *
 * @module
 */

export {
  addAimIK,
  addTwoBoneIK,
  type AimIKChain,
  type AimIKSettings,
  getIKDistance,
  getIKReached,
  IK_REACH_TOLERANCE,
  IKError,
  type JointRef,
  removeIK,
  setIKTarget,
  type TwoBoneIKChain,
  type TwoBoneIKSettings,
  updateIKChain,
  type Vector3,
} from "./components/ik.ts";
