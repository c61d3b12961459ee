/**
 * A clip build worker that crashes on the first request it gets (an
 * uncaught error in its message handler), for the worker-failure tests.
 *
 * @module
 */

(globalThis as unknown as { onmessage: (() => void) | null }).onmessage = () => {
  throw new Error("planted crash");
};
