/**
 * Checks the offline `@std` adapter in `tests/_std/`. It imports the adapter
 * by relative path, so it runs (and must pass) whichever `@std` the runner
 * picked. Meta-checks use plain `throw`, not the assertions under test.
 */

import {
  assert,
  assertAlmostEquals,
  assertEquals,
  assertExists,
  assertGreater,
  assertInstanceOf,
  AssertionError,
  assertLess,
  assertLessOrEqual,
  assertMatch,
  assertNotEquals,
  assertNotStrictEquals,
  assertRejects,
  assertStrictEquals,
  assertStringIncludes,
  assertThrows,
  fail,
} from "./_std/assert.ts";

/** `fn` must pass. */
function passes(fn: () => unknown): void {
  fn();
}

/** `fn` must throw the adapter's AssertionError; returns its message. */
function rejects(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    if (error instanceof AssertionError && error.name === "AssertionError") {
      return error.message;
    }
    throw new Error(`expected an AssertionError, got ${error}`);
  }
  throw new Error("expected an AssertionError, nothing was thrown");
}

function check(condition: boolean, what: string): void {
  if (!condition) throw new Error(`adapter self-check failed: ${what}`);
}

class Vec {
  constructor(readonly x: number, readonly y: number) {}
}

Deno.test("std adapter: assert", () => {
  passes(() => assert(1));
  check(rejects(() => assert(0, "custom")) === "custom", "assert message");
});

Deno.test("std adapter: assertEquals follows @std rules", () => {
  passes(() => assertEquals({ a: [1, { b: 2 }] }, { a: [1, { b: 2 }] }));
  passes(() => assertEquals(NaN, NaN));
  passes(() => assertEquals(0, -0));
  passes(() => assertEquals(new Float32Array([NaN, -0]), new Float32Array([NaN, 0])));
  passes(() => assertEquals(new Map([[{ k: 1 }, "v"]]), new Map([[{ k: 1 }, "v"]])));
  passes(() => assertEquals(new Set([1, 2]), new Set([2, 1])));
  passes(() => assertEquals(new Date(5), new Date(5)));
  passes(() => assertEquals(/a/g, /a/g));
  passes(() => assertEquals(new Vec(1, 2), new Vec(1, 2)));
  const cyclic: { self?: unknown } = {};
  cyclic.self = cyclic;
  const cyclic2: { self?: unknown } = {};
  cyclic2.self = cyclic2;
  passes(() => assertEquals(cyclic, cyclic2));
  const message = rejects(() => assertEquals({ a: 1 }, { a: 2 }, "ctx"));
  check(message.includes("ctx"), "assertEquals message carries msg");
  rejects(() => assertEquals([1, 2], [1, 2, 3]));
  rejects(() => assertEquals({ a: undefined }, {}));
  rejects(() => assertEquals(new Float32Array([1]), [1] as unknown));
  rejects(() => assertEquals(new Vec(1, 2), { x: 1, y: 2 }));
  rejects(() => assertEquals(new Set([1]), new Set([2])));
  passes(() => assertEquals([1, "a"], [1, "a"]));
  rejects(() => assertEquals(1, "1" as unknown));
  let threw = false;
  try {
    assertEquals(new WeakMap(), new WeakMap());
  } catch (error) {
    threw = error instanceof TypeError;
  }
  check(threw, "WeakMaps cannot be compared");
});

Deno.test("std adapter: assertNotEquals / assertStrictEquals / assertNotStrictEquals", () => {
  passes(() => assertNotEquals({ a: 1 }, { a: 2 }));
  rejects(() => assertNotEquals([1], [1]));
  const o = { a: 1 };
  passes(() => assertStrictEquals(o, o));
  rejects(() => assertStrictEquals({ a: 1 }, { a: 1 }));
  rejects(() => assertStrictEquals(0, -0));
  passes(() => assertNotStrictEquals({ a: 1 }, { a: 1 }));
  rejects(() => assertNotStrictEquals(o, o));
});

Deno.test("std adapter: assertAlmostEquals uses a tolerance relative to expected", () => {
  passes(() => assertAlmostEquals(0.1 + 0.2, 0.3));
  passes(() => assertAlmostEquals(1e9 + 1, 1e9)); // 1e9 * 1e-7 = 100
  passes(() => assertAlmostEquals(1.0005, 1, 1e-3));
  passes(() => assertAlmostEquals(Infinity, Infinity));
  passes(() => assertAlmostEquals(NaN, NaN));
  rejects(() => assertAlmostEquals(1e-8, 1e-9));
  rejects(() => assertAlmostEquals(1.01, 1));
  rejects(() => assertAlmostEquals(0.1 + 0.2, 0.3, 1e-17));
});

Deno.test("std adapter: assertThrows: both overloads, returns the error", () => {
  const thrown = assertThrows(() => {
    throw new RangeError("out of range: 7");
  });
  check(thrown instanceof RangeError, "returns what was thrown");
  const typed: RangeError = assertThrows(
    () => {
      throw new RangeError("out of range: 7");
    },
    RangeError,
    "range: 7",
  );
  check(typed.message === "out of range: 7", "returns the typed error");
  passes(() => assertThrows(() => fail(), AssertionError, "Failed assertion"));
  rejects(() => assertThrows(() => {}));
  check(
    rejects(() => assertThrows(() => {}, "why")).includes("why"),
    "assertThrows(fn, msg) keeps msg",
  );
  rejects(() =>
    assertThrows(() => {
      throw new TypeError("x");
    }, RangeError)
  );
  rejects(() =>
    assertThrows(
      () => {
        throw new RangeError("abc");
      },
      RangeError,
      "xyz",
    )
  );
  rejects(() =>
    assertThrows(() => {
      throw "a string";
    }, Error)
  );
});

Deno.test("std adapter: assertRejects", async () => {
  const error = await assertRejects(
    () => Promise.reject(new TypeError("no")),
    TypeError,
    "no",
  );
  check(error.message === "no", "assertRejects returns the error");
  let failure: unknown;
  try {
    await assertRejects(() => Promise.resolve(1));
  } catch (e) {
    failure = e;
  }
  check(
    failure instanceof AssertionError,
    "assertRejects on a resolved promise",
  );
});

Deno.test("std adapter: assertInstanceOf", () => {
  passes(() => assertInstanceOf(new Vec(0, 0), Vec));
  rejects(() => assertInstanceOf({}, Vec));
  rejects(() => assertInstanceOf(null, Vec));
});

Deno.test("std adapter: assertExists", () => {
  passes(() => assertExists(0));
  passes(() => assertExists(""));
  rejects(() => assertExists(null));
  rejects(() => assertExists(undefined));
});

Deno.test("std adapter: ordering assertions", () => {
  passes(() => assertGreater(2, 1));
  rejects(() => assertGreater(1, 1));
  passes(() => assertLess(1, 2));
  rejects(() => assertLess(2, 2));
  passes(() => assertLessOrEqual(2, 2));
  rejects(() => assertLessOrEqual(3, 2));
  passes(() => assertGreater("b", "a"));
});

Deno.test("std adapter: assertMatch / assertStringIncludes", () => {
  passes(() => assertMatch("joint_12", /^joint_\d+$/));
  rejects(() => assertMatch("bone", /^joint/));
  passes(() => assertStringIncludes("skeleton", "ele"));
  rejects(() => assertStringIncludes("skeleton", "xyz"));
});

Deno.test("std adapter: fail", () => {
  check(rejects(() => fail("why")).includes("why"), "fail(msg)");
  rejects(() => fail());
});
