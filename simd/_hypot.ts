/**
 * `Math.hypot` of three and four numbers, bit for bit, without its cost
 * in V8: there `Math.hypot` is a builtin that allocates an array of its
 * arguments' absolute values at every call (and optimized code boxes each
 * argument to call it). The same steps as V8's (`math.tq`): Infinity wins
 * over NaN, the values are divided by the largest and their squares summed
 * with Kahan's compensation, in argument order.
 *
 * @module
 */

// The running sum and compensation of the Kahan summation in progress.
let sum = 0, compensation = 0;

/** Adds the square of `n` to the Kahan sum. */
function add(n: number): void {
  const summand = n * n - compensation, preliminary = sum + summand;
  compensation = (preliminary - sum) - summand;
  sum = preliminary;
}

/** `Math.hypot(a, b, c)`, the same bits, nothing allocated. */
export function hypot3(a: number, b: number, c: number): number {
  a = Math.abs(a), b = Math.abs(b), c = Math.abs(c);
  if (a === Infinity || b === Infinity || c === Infinity) return Infinity;
  if (a !== a || b !== b || c !== c) return NaN;
  const max = Math.max(a, b, c);
  if (max === 0) return 0;
  sum = 0, compensation = 0;
  add(a / max), add(b / max), add(c / max);
  return Math.sqrt(sum) * max;
}

/** `Math.hypot(a, b, c, d)`, the same bits, nothing allocated. */
export function hypot4(a: number, b: number, c: number, d: number): number {
  a = Math.abs(a), b = Math.abs(b), c = Math.abs(c), d = Math.abs(d);
  if (a === Infinity || b === Infinity || c === Infinity || d === Infinity) return Infinity;
  if (a !== a || b !== b || c !== c || d !== d) return NaN;
  const max = Math.max(a, b, c, d);
  if (max === 0) return 0;
  sum = 0, compensation = 0;
  add(a / max), add(b / max), add(c / max), add(d / max);
  return Math.sqrt(sum) * max;
}
