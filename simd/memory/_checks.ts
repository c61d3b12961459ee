/**
 * Argument checks shared by the core's buffers and the assets built on
 * them. Each throws a `RangeError` naming the argument and index of the
 * first bad value, before anything is allocated or written.
 *
 * @module
 */

/** Most influences one vertex may have (the core stores counts as bytes). */
export const MAX_INFLUENCES = 255;
/** Most joints a skin's influences may name (they are stored as `u16`). */
export const MAX_SKIN_JOINTS = 65536;
/** Most vertices of a bind mesh: 16 bytes each per stream fill a 32-bit core at 2^28. */
export const MAX_VERTICES = 2 ** 28;
/** Most `[influences, vertexCount]` parts of a bind mesh. */
export const MAX_PARTS = 2 ** 20;
/** Most joints a skeleton may have (parents are stored as `i16`). */
const MAX_JOINTS = 32767;
// The largest magnitude of a bind-mesh coordinate is the core's (the morph
// kernel clamps to it), so it is defined with the core's constants.
export { MAX_MESH_MAGNITUDE } from "../abi.ts";

// The typed arrays' own accessors, read off the shared prototype: an
// instance's own `length`, `buffer` or `constructor` cannot answer for them.
const TYPED_PROTOTYPE = Object.getPrototypeOf(Uint8Array.prototype);
const typedAccessor = (key: PropertyKey) =>
  Object.getOwnPropertyDescriptor(TYPED_PROTOTYPE, key)!.get! as (this: unknown) => unknown;
const typedName = typedAccessor(Symbol.toStringTag);
const typedLength = typedAccessor("length");
const typedBuffer = typedAccessor("buffer");
const typedOffset = typedAccessor("byteOffset");

/** The kind of typed array `values` is ("Float32Array", …), by its own slots; undefined for anything else. */
export function typedArrayKind(values: unknown): string | undefined {
  return values === null || (typeof values !== "object" && typeof values !== "function")
    ? undefined
    : typedName.call(values) as string | undefined;
}

/** Longest string a message quotes whole. */
const QUOTED_CHARACTERS = 40;
/** Most elements of an array a message lists. */
const LISTED_ELEMENTS = 8;

/**
 * `value` for an error message, without running the caller's code where
 * it can: a template literal converts an object through its own
 * `toString` or `Symbol.toPrimitive` (which may throw, or change what was
 * checked), and throws for a symbol. Primitives as `String` gives them (a
 * long string cut), an array or typed array by its first elements (each
 * described), an object or a function by its kind.
 */
export function describeValue(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value.length > QUOTED_CHARACTERS ? `${value.slice(0, QUOTED_CHARACTERS)}…` : value;
    case "bigint":
      return `${value}n`;
    case "symbol":
      return String(value);
    case "function":
      return "a function";
    case "object": {
      if (value === null) return "null";
      return describeArray(value) ?? "an object";
    }
    default:
      return String(value);
  }
}

/**
 * An array's or typed array's first elements, undefined for anything
 * else; a proxy's traps are the caller's code, and one that throws gets
 * "an array".
 */
function describeArray(value: object): string | undefined {
  try {
    const typed = typedArrayKind(value) !== undefined;
    if (!typed && !Array.isArray(value)) return undefined;
    const length = typed ? typedLength.call(value) as number : (value as unknown[]).length;
    const shown = [];
    for (let i = 0; i < Math.min(length, LISTED_ELEMENTS); i++) {
      const element: unknown = (value as ArrayLike<unknown>)[i];
      shown.push(typeof element === "object" && element !== null ? "…" : describeValue(element));
    }
    return `[${shown.join(", ")}${length > LISTED_ELEMENTS ? ", …" : ""}]`;
  } catch {
    return "an array";
  }
}

/** What {@linkcode readOnce} reads. */
interface ReadCount {
  /** Read exactly this many values; `values` must hold at least as many (all of them if `exact`). */
  readonly count?: number;
  /** With no `count`, read them all, refusing more than this many. */
  readonly maxLength?: number;
  /** The length must be `count` exactly. */
  readonly exact?: boolean;
}

/** A typed array of numbers (not of bigints). */
type NumberArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray;

/** Typed arrays whose every value is a whole number: copied as they are. */
const WHOLE_KINDS = new Set([
  "Int32Array",
  "Uint32Array",
  "Int16Array",
  "Uint16Array",
  "Int8Array",
  "Uint8Array",
  "Uint8ClampedArray",
]);

/**
 * `values` read once, into a new array the caller owns: its length once
 * (checked against `count` or `maxLength` before any element is read),
 * then each element once. The checks and the copy that follow see one
 * answer, however `values` answers `length`, an element, `subarray` or its
 * species from one read to the next. A typed array is read through the
 * typed arrays' own accessors, in one copy: into an `Out`, or of its own
 * kind when it is an `Out` or (for a `Float64Array` asked) holds whole
 * numbers; any other array-like into an `Out`.
 */
export function readOnce(
  name: string,
  values: ArrayLike<number> | null | undefined,
  Out: Float32ArrayConstructor,
  count: ReadCount,
): Float32Array;
export function readOnce(
  name: string,
  values: ArrayLike<number> | null | undefined,
  Out: Float64ArrayConstructor,
  count: ReadCount,
): NumberArray;
export function readOnce(
  name: string,
  values: ArrayLike<number> | null | undefined,
  Out: Float32ArrayConstructor | Float64ArrayConstructor,
  { count, maxLength = Infinity, exact = false }: ReadCount,
): NumberArray {
  const kind = typedArrayKind(values);
  const length = kind === undefined ? values?.length : typedLength.call(values) as number;
  if (count === undefined) {
    if (!Number.isInteger(length) || length! < 0 || length! > maxLength) {
      throw new RangeError(
        `${name}: expected at most ${maxLength} values, got ${describeValue(length)}`,
      );
    }
  } else if (typeof length !== "number" || !(exact ? length === count : length >= count)) {
    throw new RangeError(
      `${name}: expected ${exact ? "" : "at least "}${count} values, got ${describeValue(length)}`,
    );
  }
  const n = count ?? length!;
  if (kind !== undefined) {
    const View = (globalThis as unknown as Record<
      string,
      new (b: unknown, o: unknown, n: number) => NumberArray
    >)[kind];
    const view = new View(typedBuffer.call(values), typedOffset.call(values), n);
    if ((Out === Float64Array && WHOLE_KINDS.has(kind)) || kind === Out.name) return view.slice();
    const out = new Out(n);
    out.set(view);
    return out;
  }
  const out = new Out(n);
  copyNumbers(values!, n, out, 0);
  return out;
}

/**
 * `count` elements of `values` into `into` from `at`, each read once: a
 * symbol or a bigint would throw in the store, so any non-number is NaN,
 * which the callers' checks refuse.
 */
function copyNumbers(
  values: ArrayLike<unknown>,
  count: number,
  into: Float32Array | Float64Array,
  at: number,
): void {
  for (let i = 0; i < count; i++) {
    const value = values[i];
    into[at + i] = typeof value === "number" ? value : NaN;
  }
}

/**
 * `values`' length, read once; when it is `count`, each element read once
 * into `into` from `at` (a non-number as NaN), without allocating (a pose
 * is written each frame). The caller refuses any other length.
 */
export function readInto(
  values: ArrayLike<number> | null | undefined,
  count: number,
  into: Float64Array,
  at: number,
): unknown {
  const length = typedArrayKind(values) !== undefined
    ? typedLength.call(values)
    : values !== null && typeof values === "object"
    ? values.length
    : undefined;
  if (length === count) copyNumbers(values!, count, into, at);
  return length;
}

/** `value` must be a whole number >= 0. */
export function checkCount(name: string, value: number): void {
  if (!Number.isInteger(value) || value < 0) {
    throw new RangeError(`${name}: expected a whole number >= 0, got ${describeValue(value)}`);
  }
}

/** `value` must be a whole number in `0..length-1`. */
export function checkIndex(name: string, value: number, length: number): void {
  if (!Number.isInteger(value) || value < 0 || value >= length) {
    throw new RangeError(`${name}: expected 0..${length - 1}, got ${describeValue(value)}`);
  }
}

/**
 * `parents` read once and checked: each -1 (a root) or an earlier joint,
 * so one forward pass works.
 */
export function readParents(parents: ArrayLike<number>): NumberArray {
  const length = typeof parents?.length === "number" ? parents.length : 0;
  if (length > MAX_JOINTS) {
    throw new RangeError(`parents: at most ${MAX_JOINTS} joints, got ${describeValue(length)}`);
  }
  const list = readOnce("parents", parents, Float64Array, { maxLength: MAX_JOINTS });
  checkParents(list);
  return list;
}

/** Parents must be -1 (a root) or an earlier joint, so one forward pass works. */
function checkParents(parents: NumberArray): void {
  for (let i = 0; i < parents.length; i++) {
    const p = parents[i];
    if (!Number.isInteger(p) || p < -1 || p >= i) {
      throw new RangeError(
        `parents[${i}]: expected -1 (root) or a joint before ${i}, got ${describeValue(p)}` +
          (Number.isInteger(p) && p >= i ? " (parents must come before their children)" : ""),
      );
    }
  }
}

/**
 * The first `length` values must be finite and below `limit` in magnitude;
 * `stride` names elements and components in the message.
 */
export function checkFinite(
  name: string,
  values: ArrayLike<number>,
  stride: number,
  length: number,
  limit = Infinity,
): void {
  if (!values || typeof values.length !== "number" || values.length < length) {
    throw new RangeError(
      `${name}: expected at least ${length} values, got ${describeValue(values?.length)}`,
    );
  }
  for (let i = 0; i < length; i++) {
    if (!(Math.abs(values[i]) < limit)) {
      throw new RangeError(
        `${name}[${i}] (element ${Math.floor(i / stride)}, component ${i % stride}) is ${
          values[i]
        }${Number.isFinite(values[i]) ? `, beyond ±${limit}` : ""}`,
      );
    }
  }
}

/** What {@linkcode checkInfluences} found. */
interface InfluenceTotals {
  /** Number of vertices. */
  readonly vertexCount: number;
  /** Sum of the influence counts. */
  readonly influenceCount: number;
  /** Highest joint used + 1. */
  readonly jointCount: number;
  /** Most influences of any vertex. */
  readonly maxInfluences: number;
  /** The joints as read and checked, one per influence. */
  readonly joints: NumberArray;
  /** The weights as read and checked, one per influence. */
  readonly weights: NumberArray;
}

/**
 * Checks influence lists: each vertex's count (of `counts`, already read
 * once by the caller) must be 1..255; `joints` and `weights`, read once
 * here, must hold at least as many values as the counts add up to; joint
 * indices must be whole numbers below `jointLimit`; weights finite and
 * >= 0, and, with `positiveSums`, each vertex's weights must sum above 0.
 * Names use `where` (for example `"joints"` or `"mesh 2: joints"`).
 */
export function checkInfluences(
  counts: NumberArray,
  jointsGiven: ArrayLike<number>,
  weightsGiven: ArrayLike<number>,
  jointLimit: number,
  options: {
    readonly positiveSums?: boolean;
    readonly where?: string;
    readonly countsName?: string;
  } = {},
): InfluenceTotals {
  const where = options.where ? `${options.where}: ` : "";
  const countsName = options.countsName ?? "counts";
  let influenceCount = 0, maxInfluences = 0;
  for (let v = 0; v < counts.length; v++) {
    const n = counts[v];
    if (!Number.isInteger(n) || n < 1 || n > MAX_INFLUENCES) {
      throw new RangeError(
        `${where}${countsName}[${v}]: influences per vertex must be 1..${MAX_INFLUENCES}, got ${
          describeValue(n)
        }`,
      );
    }
    influenceCount += n;
    if (n > maxInfluences) maxInfluences = n;
  }
  const count = { count: influenceCount };
  const joints = readOnce(`${where}joints`, jointsGiven, Float64Array, count);
  const weights = readOnce(`${where}weights`, weightsGiven, Float64Array, count);
  let maxJoint = -1;
  for (let v = 0, k = 0; v < counts.length; v++) {
    let sum = 0;
    for (let i = 0; i < counts[v]; i++, k++) {
      const j = joints[k], w = weights[k];
      if (!Number.isInteger(j) || j < 0 || j >= jointLimit) {
        throw new RangeError(
          `${where}joints[${k}]: expected a joint index 0..${jointLimit - 1}, got ${
            describeValue(j)
          } (vertex ${v} influence ${i})`,
        );
      }
      if (!Number.isFinite(w) || w < 0) {
        throw new RangeError(
          `${where}weights[${k}]: expected a finite weight >= 0, got ${
            describeValue(w)
          } (vertex ${v} influence ${i})`,
        );
      }
      sum += w;
      if (j > maxJoint) maxJoint = j;
    }
    if (options.positiveSums && !(sum > 0)) {
      throw new RangeError(`${where}weights: vertex ${v}: weights sum to zero`);
    }
  }
  return {
    vertexCount: counts.length,
    influenceCount,
    jointCount: maxJoint + 1,
    maxInfluences,
    joints,
    weights,
  };
}

/**
 * Copies the first `count` values of `source` (read once and checked) into
 * `target` at element `at`, refusing a section that does not fit.
 */
export function copyChecked(
  target: Float32Array | Uint16Array | Uint32Array,
  at: number,
  source: NumberArray,
  count: number,
): void {
  const section = target.subarray(at, at + count);
  if (section.length !== count) throw new RangeError(`copy: ${count} values do not fit at ${at}`);
  section.set(source.subarray(0, count));
}
