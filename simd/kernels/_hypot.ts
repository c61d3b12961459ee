/**
 * `Math.hypot` of three or four numbers, bit for bit, without its cost in
 * V8: there `Math.hypot` is a builtin that allocates an array of its
 * arguments' absolute values at every call, and optimized code boxes each
 * argument to call it. The same steps as V8's (`math.tq`): Infinity wins
 * over NaN, the values are divided by the largest and their squares summed
 * with Kahan's compensation, in argument order. Arguments and result pass
 * through {@linkcode hypotArgs} (a double passed to or returned from a
 * call that is not inlined is boxed: a heap number each).
 *
 * @module
 */

/** The arguments of {@linkcode hypotOf} (0..3) and its result (4). */
export const hypotArgs: Float64Array = new Float64Array(5);

/**
 * Writes `Math.hypot` of the first `count` (3 or 4) {@linkcode hypotArgs}
 * into `hypotArgs[4]`. (The global `Infinity` and `NaN` are not named:
 * comparing with them made optimized code box the result.)
 */
export function hypotOf(count: 3 | 4): void {
  const a = Math.abs(hypotArgs[0]), b = Math.abs(hypotArgs[1]), c = Math.abs(hypotArgs[2]);
  const d = count === 4 ? Math.abs(hypotArgs[3]) : 0;
  const big = Number.MAX_VALUE;
  if (a > big || b > big || c > big || d > big) hypotArgs[4] = big * 2;
  else if (a !== a || b !== b || c !== c || d !== d) hypotArgs[4] = a + b + c + d;
  else {
    const max = Math.max(a, b, c, d);
    let sum = 0, compensation = 0, n = a / max, summand = n * n - compensation;
    let preliminary = sum + summand;
    compensation = (preliminary - sum) - summand, sum = preliminary;
    n = b / max, summand = n * n - compensation, preliminary = sum + summand;
    compensation = (preliminary - sum) - summand, sum = preliminary;
    n = c / max, summand = n * n - compensation, preliminary = sum + summand;
    compensation = (preliminary - sum) - summand, sum = preliminary;
    if (count === 4) {
      n = d / max, summand = n * n - compensation, preliminary = sum + summand;
      sum = preliminary;
    }
    hypotArgs[4] = max === 0 ? 0 : Math.sqrt(sum) * max;
  }
}
