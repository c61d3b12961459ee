/**
 * Waiting in a test for what another thread does, without blocking the
 * event loop (a worker's sleep, its wake).
 *
 * @module
 */

/** Waits until `done`, for at most 10 s, polling every millisecond: whether it came. */
export async function until(done: () => boolean): Promise<boolean> {
  for (const end = Date.now() + 10_000; Date.now() < end;) {
    if (done()) return true;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  return done();
}
