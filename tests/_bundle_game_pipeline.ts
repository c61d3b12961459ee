/**
 * The minimal game (`_bundle_game.ts`) with the frame's systems run by
 * `createAnimationPipeline`, which adds IK, the worker pool's frame and the
 * warm-up to what a game bundles.
 *
 * @module
 */

import { createAnimationPipeline } from "../mod.ts";
import { playGame } from "./_bundle_game.ts";

playGame(createAnimationPipeline());
