/**
 * The worker of the two-thread noise row (`twoThreadNoiseRun` in
 * `_session_noise.ts`): given the row's control words, it runs the noise
 * loop's rounds each time the calling thread starts a frame, and says when
 * it is done; a negative generation ends it.
 *
 * @module
 */

import { noiseLoop } from "./_session_noise.ts";

/** The worker's scope, as this file uses it. */
const scope = globalThis as unknown as {
  onmessage: ((event: MessageEvent<Int32Array>) => void) | null;
};

scope.onmessage = ({ data: control }) => {
  const loop = noiseLoop();
  for (let generation = 0;;) {
    Atomics.wait(control, 0, generation);
    generation = Atomics.load(control, 0);
    if (generation < 0) break;
    loop.work(Atomics.load(control, 2));
    Atomics.store(control, 1, generation);
    Atomics.notify(control, 1);
  }
  loop.keep();
};
