/**
 * What `scalar_entry_test.ts` runs in a child process: the default core and
 * a scalar one, with `scalar.ts` imported first when the argument is
 * `with`, printed as one JSON line (each the build made, or the error).
 *
 * @module
 */
import { createWorld } from "bitecs";
import { createAnimation, createAnimationPipeline } from "../mod.ts";
import { Core } from "../kernels.ts";

if (Deno.args[0] === "with") await import("../scalar.ts");

/** The build `make` ends with, or its error as a string. */
function attempt(make: () => string): string {
  try {
    return make();
  } catch (error) {
    return String(error);
  }
}

console.log(JSON.stringify({
  scalar: attempt(() => Core.create("scalar").build),
  default: attempt(() => {
    const world = createWorld();
    createAnimation(world);
    createAnimationPipeline()(world, 1 / 60);
    return Core.default.build;
  }),
}));
