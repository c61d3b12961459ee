/**
 * Collections in tests that run without `--expose-gc` (the runner grants
 * no `--allow-run`): garbage that lives a few rounds, so that it reaches
 * the old generation and full collections run, until the test's probes
 * (FinalizationRegistry callbacks, the core's bytes) say enough.
 *
 * @module
 */

/** Allocates garbage that reaches the old generation until `done()`, at most 400 rounds. */
export async function collectUntil(done: () => boolean): Promise<void> {
  const ballast: Uint8Array[] = [];
  for (let round = 0; round < 400 && !done(); round++) {
    const block = new Uint8Array(4 * 2 ** 20);
    block[round] = 1;
    ballast.push(block);
    if (ballast.length > 16) ballast.splice(0, 8);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}
