/**
 * Offline stand-in for `@std/testing/bdd`, used by `tests/_run.ts` when JSR
 * cannot be reached. Written from scratch on Deno's built-in `node:test`:
 *
 * - `describe` / `it` become `node:test` `describe` / `it` (so Deno reports
 *   them as a test with nested steps, as with the real package);
 * - `beforeAll` / `afterAll` become `node:test` `before` / `after` of the
 *   enclosing suite (of the whole module at top level);
 * - `beforeEach` / `afterEach` are run by the adapter around each test body,
 *   outer suites first for `beforeEach` and last for `afterEach`, so that
 *   they share the test's `this` as in `@std/testing/bdd`;
 * - the test body receives a `Deno.TestContext` whose `step` runs a
 *   `node:test` subtest.
 *
 * Signatures follow `@std/testing/bdd` 1.x. Differences: the options
 * `permissions` and `sanitize*` are accepted but not applied, and a suite's
 * callback runs when the suite starts rather than when it is declared.
 *
 * @module
 */

import * as nodeTest from "node:test";
import type { TestContext as NodeContext } from "node:test";

/** A `beforeAll` / `afterAll` / `beforeEach` / `afterEach` hook. */
type Hook<T> = (this: T) => void | Promise<void>;
/** A test body. */
type TestBody<T> = (this: T, t: Deno.TestContext) => void | Promise<void>;

/** Options of a test suite (see {@linkcode describe}). */
export interface DescribeDefinition<T> extends Omit<Deno.TestDefinition, "fn"> {
  /** Declares the suite's tests, hooks and nested suites. */
  fn?: () => void | undefined;
  /** The suite to nest this one in (default: the one being declared). */
  suite?: TestSuite<T>;
  /** Run once before the suite's tests. */
  beforeAll?: Hook<T> | Hook<T>[];
  /** Run once after the suite's tests. */
  afterAll?: Hook<T> | Hook<T>[];
  /** Run before each test of the suite and of its nested suites. */
  beforeEach?: Hook<T> | Hook<T>[];
  /** Run after each test of the suite and of its nested suites. */
  afterEach?: Hook<T> | Hook<T>[];
}

/** Options of a test case (see {@linkcode it}). */
export interface ItDefinition<T> extends Omit<Deno.TestDefinition, "fn"> {
  /** The test body. */
  fn: TestBody<T>;
  /** The suite the test belongs to (default: the one being declared). */
  suite?: TestSuite<T>;
}

/** A group of tests, as returned by {@linkcode describe}. */
export interface TestSuite<T> {
  /** Identifies the suite. */
  symbol: symbol;
}

/** The argument lists accepted by {@linkcode describe}. */
export type DescribeArgs<T> =
  | [DescribeDefinition<T>]
  | [string]
  | [string, Omit<DescribeDefinition<T>, "name">]
  | [string, () => void]
  | [() => void]
  | [string, Omit<DescribeDefinition<T>, "fn" | "name">, () => void]
  | [Omit<DescribeDefinition<T>, "fn">, () => void]
  | [Omit<DescribeDefinition<T>, "fn" | "name">, () => void]
  | [TestSuite<T>, string]
  | [TestSuite<T>, string, Omit<DescribeDefinition<T>, "name" | "suite">]
  | [TestSuite<T>, string, () => void]
  | [TestSuite<T>, () => void]
  | [
    TestSuite<T>,
    string,
    Omit<DescribeDefinition<T>, "fn" | "name" | "suite">,
    () => void,
  ]
  | [TestSuite<T>, Omit<DescribeDefinition<T>, "fn" | "suite">, () => void]
  | [
    TestSuite<T>,
    Omit<DescribeDefinition<T>, "fn" | "name" | "suite">,
    () => void,
  ];

/** The argument lists accepted by {@linkcode it}. */
export type ItArgs<T> =
  | [ItDefinition<T>]
  | [string, Omit<ItDefinition<T>, "name">]
  | [string, TestBody<T>]
  | [TestBody<T>]
  | [string, Omit<ItDefinition<T>, "fn" | "name">, TestBody<T>]
  | [Omit<ItDefinition<T>, "fn">, TestBody<T>]
  | [Omit<ItDefinition<T>, "fn" | "name">, TestBody<T>]
  | [TestSuite<T>, string, Omit<ItDefinition<T>, "name" | "suite">]
  | [TestSuite<T>, string, TestBody<T>]
  | [TestSuite<T>, TestBody<T>]
  | [
    TestSuite<T>,
    string,
    Omit<ItDefinition<T>, "fn" | "name" | "suite">,
    TestBody<T>,
  ]
  | [TestSuite<T>, Omit<ItDefinition<T>, "fn" | "suite">, TestBody<T>]
  | [TestSuite<T>, Omit<ItDefinition<T>, "fn" | "name" | "suite">, TestBody<T>];

/** The type of {@linkcode describe}. */
export interface DescribeFunction {
  /** Registers a test suite. */
  <T>(...args: DescribeArgs<T>): TestSuite<T>;
  /** Registers a test suite and runs only the suites and tests marked `only`. */
  only<T>(...args: DescribeArgs<T>): TestSuite<T>;
  /** Registers a test suite that is not run. */
  ignore<T>(...args: DescribeArgs<T>): TestSuite<T>;
  /** Alias of `ignore`. */
  skip<T>(...args: DescribeArgs<T>): TestSuite<T>;
}

/** The type of {@linkcode it}. */
export interface ItFunction {
  /** Registers a test case. */
  <T>(...args: ItArgs<T>): void;
  /** Registers a test case and runs only the suites and tests marked `only`. */
  only<T>(...args: ItArgs<T>): void;
  /** Registers a test case that is not run. */
  ignore<T>(...args: ItArgs<T>): void;
  /** Alias of `ignore`. */
  skip<T>(...args: ItArgs<T>): void;
}

// ---------------------------------------------------------------------------
// Suites

type AnyHook = (this: unknown) => void | Promise<void>;

interface Suite {
  readonly name: string;
  readonly parent: Suite | undefined;
  /** `this` of the suite's beforeAll/afterAll hooks; tests inherit from it. */
  readonly context: Record<PropertyKey, unknown>;
  readonly beforeEach: AnyHook[];
  readonly afterEach: AnyHook[];
  /** Registrations made through the `suite` argument before the suite ran. */
  readonly pending: (() => void)[];
  state: "declared" | "running" | "done";
}

function newSuite(name: string, parent: Suite | undefined): Suite {
  return {
    name,
    parent,
    context: Object.create(parent?.context ?? null),
    beforeEach: [],
    afterEach: [],
    pending: [],
    state: "declared",
  };
}

/** The module's top level: hooks declared outside any `describe`. */
const root: Suite = { ...newSuite("(top level)", undefined), state: "running" };
const suites = new Map<symbol, Suite>();
/** The suite whose callback is running, if any. */
let current: Suite | undefined;

function isTestSuite(value: unknown): value is TestSuite<unknown> {
  return typeof value === "object" && value !== null &&
    typeof (value as { symbol?: unknown }).symbol === "symbol" &&
    suites.has((value as TestSuite<unknown>).symbol);
}

function hookList<T>(hooks: Hook<T> | Hook<T>[] | undefined): AnyHook[] {
  if (!hooks) return [];
  return (Array.isArray(hooks) ? hooks : [hooks]) as AnyHook[];
}

/** The suite an item declared now (or with an explicit `suite`) belongs to. */
function ownerOf(suite: TestSuite<unknown> | undefined): Suite {
  if (!suite) return current ?? root;
  const owner = suites.get(suite.symbol);
  if (!owner) throw new Error("bdd adapter: unknown test suite");
  return owner;
}

/** Registers with `node:test` now, or when `owner`'s callback runs. */
function within(owner: Suite, register: () => void): void {
  if (owner === current || owner === root) {
    register();
  } else if (owner.state === "declared") {
    owner.pending.push(register);
  } else {
    throw new Error(
      `bdd adapter: cannot add to suite "${owner.name}" after it has started`,
    );
  }
}

/** Merges an argument list of strings, functions and option objects. */
function mergeArgs(args: unknown[]): {
  suite?: TestSuite<unknown>;
  name?: string;
  fn?: (...a: never[]) => unknown;
  options: Record<string, unknown>;
} {
  const rest = [...args];
  const suite = isTestSuite(rest[0]) ? rest.shift() as TestSuite<unknown> : undefined;
  let name: string | undefined;
  let fn: ((...a: never[]) => unknown) | undefined;
  let options: Record<string, unknown> = {};
  for (const arg of rest) {
    if (typeof arg === "string") name = arg;
    else if (typeof arg === "function") fn = arg as typeof fn;
    else if (arg && typeof arg === "object") options = { ...options, ...arg };
  }
  fn ??= options.fn as typeof fn;
  name ??= (options.name as string | undefined) ?? fn?.name;
  return {
    suite: suite ?? options.suite as TestSuite<unknown> | undefined,
    name,
    fn,
    options,
  };
}

function nodeOptions(
  options: Record<string, unknown>,
  flag?: "only" | "ignore",
): { skip: boolean; only: boolean } {
  return {
    skip: flag === "ignore" || options.ignore === true,
    only: flag === "only" || options.only === true,
  };
}

function declareSuite<T>(
  args: DescribeArgs<T>,
  flag?: "only" | "ignore",
): TestSuite<T> {
  const { suite, name, fn, options } = mergeArgs(args);
  if (!name) throw new TypeError("describe: a name is required");
  const parent = ownerOf(suite);
  const self = newSuite(name, parent);
  const symbol = Symbol(name);
  suites.set(symbol, self);
  const def: Partial<DescribeDefinition<unknown>> = options;
  within(
    parent,
    () =>
      nodeTest.describe(name, nodeOptions(options, flag), () => {
        const outer = current;
        current = self;
        self.state = "running";
        try {
          for (const hook of hookList(def.beforeAll)) {
            nodeTest.before(() => hook.call(self.context));
          }
          for (const hook of hookList(def.afterAll)) {
            nodeTest.after(() => hook.call(self.context));
          }
          self.beforeEach.push(...hookList(def.beforeEach));
          self.afterEach.push(...hookList(def.afterEach));
          (fn as (() => void) | undefined)?.();
          for (const register of self.pending.splice(0)) register();
        } finally {
          self.state = "done";
          current = outer;
        }
      }),
  );
  return { symbol };
}

// ---------------------------------------------------------------------------
// Tests

/** A `Deno.TestContext` whose steps are `node:test` subtests. */
function denoContext(
  node: NodeContext,
  name: string,
  parent?: Deno.TestContext,
): Deno.TestContext {
  const context: Deno.TestContext = {
    name,
    origin: Deno.mainModule,
    parent,
    async step(
      first:
        | string
        | Deno.TestStepDefinition
        | ((t: Deno.TestContext) => void | Promise<void>),
      second?: (t: Deno.TestContext) => void | Promise<void>,
    ): Promise<boolean> {
      const step: Deno.TestStepDefinition = typeof first === "string"
        ? { name: first, fn: second! }
        : typeof first === "function"
        ? { name: first.name, fn: first }
        : first;
      if (step.ignore) {
        await node.test(step.name, { skip: true }, () => {});
        return false;
      }
      let passed = true;
      await node.test(step.name, async (sub: NodeContext) => {
        try {
          await step.fn(denoContext(sub, step.name, context));
        } catch (error) {
          passed = false;
          throw error;
        }
      });
      return passed;
    },
    assertSnapshot(): Promise<void> {
      return Promise.reject(
        new Error(
          "t.assertSnapshot is not available with the offline @std adapter",
        ),
      );
    },
  };
  return context;
}

function chainOf(suite: Suite): Suite[] {
  const chain: Suite[] = [];
  for (let s: Suite | undefined = suite; s; s = s.parent) chain.unshift(s);
  return chain;
}

async function runTest(
  owner: Suite,
  name: string,
  fn: TestBody<unknown>,
  node: NodeContext,
): Promise<void> {
  const self: Record<PropertyKey, unknown> = Object.create(owner.context);
  const chain = chainOf(owner);
  let failed = false;
  let failure: unknown;
  try {
    for (const suite of chain) {
      for (const hook of suite.beforeEach) await hook.call(self);
    }
    await fn.call(self, denoContext(node, name));
  } catch (error) {
    failed = true;
    failure = error;
  }
  for (const suite of chain.reverse()) {
    for (const hook of suite.afterEach) {
      try {
        await hook.call(self);
      } catch (error) {
        if (!failed) [failed, failure] = [true, error];
      }
    }
  }
  if (failed) throw failure;
}

function declareTest<T>(args: ItArgs<T>, flag?: "only" | "ignore"): void {
  const { suite, name, fn, options } = mergeArgs(args);
  if (!name) throw new TypeError("it: a name is required");
  if (typeof fn !== "function") {
    throw new TypeError(`it: test "${name}" has no function`);
  }
  const owner = ownerOf(suite);
  within(owner, () => {
    nodeTest.it(
      name,
      nodeOptions(options, flag),
      (node: NodeContext) => runTest(owner, name, fn as TestBody<unknown>, node),
    );
  });
}

// ---------------------------------------------------------------------------
// Public API

/** Registers a test suite; returns a handle that `it`/`describe` accept as first argument. */
export const describe: DescribeFunction = Object.assign(
  <T>(...args: DescribeArgs<T>): TestSuite<T> => declareSuite(args),
  {
    only: <T>(...args: DescribeArgs<T>): TestSuite<T> => declareSuite(args, "only"),
    ignore: <T>(...args: DescribeArgs<T>): TestSuite<T> => declareSuite(args, "ignore"),
    skip: <T>(...args: DescribeArgs<T>): TestSuite<T> => declareSuite(args, "ignore"),
  },
);

/** Registers a test case. */
export const it: ItFunction = Object.assign(
  <T>(...args: ItArgs<T>): void => declareTest(args),
  {
    only: <T>(...args: ItArgs<T>): void => declareTest(args, "only"),
    ignore: <T>(...args: ItArgs<T>): void => declareTest(args, "ignore"),
    skip: <T>(...args: ItArgs<T>): void => declareTest(args, "ignore"),
  },
);

/** Alias of {@linkcode it}. */
export const test: ItFunction = it;

/**
 * Runs `fn` once before the tests of the enclosing suite (of the module at
 * top level).
 *
 * @param fn The hook; `this` is the suite's context.
 */
export function beforeAll<T>(fn: (this: T) => void | Promise<void>): void {
  const owner = current ?? root;
  nodeTest.before(() => (fn as AnyHook).call(owner.context));
}

/**
 * Runs `fn` once after the tests of the enclosing suite (of the module at
 * top level).
 *
 * @param fn The hook; `this` is the suite's context.
 */
export function afterAll<T>(fn: (this: T) => void | Promise<void>): void {
  const owner = current ?? root;
  nodeTest.after(() => (fn as AnyHook).call(owner.context));
}

/**
 * Runs `fn` before each test of the enclosing suite and its nested suites.
 *
 * @param fn The hook; `this` is the test's context.
 */
export function beforeEach<T>(fn: (this: T) => void | Promise<void>): void {
  (current ?? root).beforeEach.push(fn as AnyHook);
}

/**
 * Runs `fn` after each test of the enclosing suite and its nested suites.
 *
 * @param fn The hook; `this` is the test's context.
 */
export function afterEach<T>(fn: (this: T) => void | Promise<void>): void {
  (current ?? root).afterEach.push(fn as AnyHook);
}

/** Alias of {@linkcode beforeAll}. */
export const before: typeof beforeAll = beforeAll;
/** Alias of {@linkcode afterAll}. */
export const after: typeof afterAll = afterAll;
