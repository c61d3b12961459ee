// The IK job row's fields as byte offsets, from abi.ts's word indices (the
// row's layout is defined there, once, for TypeScript and AssemblyScript).

import {
  IK_AXIS, IK_DISTANCE, IK_END, IK_KIND, IK_LAST, IK_LOCAL, IK_MID, IK_MODEL, IK_OFFSET, IK_PARENTS,
  IK_POLE, IK_REACHED, IK_SOFTEN, IK_START, IK_TARGET, IK_TWIST_COS, IK_TWIST_SIN, IK_UP, IK_WEIGHT,
} from "./abi";

// @ts-ignore: decorator
@inline export const MODEL: usize = <usize>IK_MODEL << 2;
// @ts-ignore: decorator
@inline export const LOCAL: usize = <usize>IK_LOCAL << 2;
// @ts-ignore: decorator
@inline export const PARENTS: usize = <usize>IK_PARENTS << 2;
// @ts-ignore: decorator
@inline export const KIND: usize = <usize>IK_KIND << 2;
// @ts-ignore: decorator
@inline export const START: usize = <usize>IK_START << 2;
// @ts-ignore: decorator
@inline export const MID: usize = <usize>IK_MID << 2;
// @ts-ignore: decorator
@inline export const END: usize = <usize>IK_END << 2;
// @ts-ignore: decorator
@inline export const LAST: usize = <usize>IK_LAST << 2;
// @ts-ignore: decorator
@inline export const TARGET: usize = <usize>IK_TARGET << 2;
// @ts-ignore: decorator
@inline export const WEIGHT: usize = <usize>IK_WEIGHT << 2;
// @ts-ignore: decorator
@inline export const POLE: usize = <usize>IK_POLE << 2;
// @ts-ignore: decorator
@inline export const SOFTEN: usize = <usize>IK_SOFTEN << 2;
// @ts-ignore: decorator
@inline export const AXIS: usize = <usize>IK_AXIS << 2;
// @ts-ignore: decorator
@inline export const TWIST_COS: usize = <usize>IK_TWIST_COS << 2;
// @ts-ignore: decorator
@inline export const UP: usize = <usize>IK_UP << 2;
// @ts-ignore: decorator
@inline export const TWIST_SIN: usize = <usize>IK_TWIST_SIN << 2;
// @ts-ignore: decorator
@inline export const OFFSET: usize = <usize>IK_OFFSET << 2;
// @ts-ignore: decorator
@inline export const REACHED: usize = <usize>IK_REACHED << 2;
// @ts-ignore: decorator
@inline export const DISTANCE: usize = <usize>IK_DISTANCE << 2;
