/**
 * The minimal game (`_bundle_game.ts`) with the frame's systems run by hand.
 *
 * @module
 */

import {
  multiplyInverseBindSystem,
  quatToMatSystem,
  sampleClipsSystem,
  skinWithTangentsSystem,
  transformSkeletonSystem,
} from "../mod.ts";
import { playGame } from "./_bundle_game.ts";

playGame((world, deltaSeconds) => {
  sampleClipsSystem(world, deltaSeconds);
  quatToMatSystem(world);
  transformSkeletonSystem(world);
  multiplyInverseBindSystem(world);
  skinWithTangentsSystem(world);
});
