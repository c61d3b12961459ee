/**
 * `animation/_private_slot.ts`: a value kept on an object that only its
 * slot reads, which a loaded clip's internals and every asset's lifetime
 * now use instead of WeakMaps. No proxy, reflection or other slot reaches
 * it, it leaves the object's keys, prototype and freezing as they were,
 * and a loaded clip looks as it did: a frozen plain object.
 */
import { assert, assertEquals, assertStrictEquals } from "@std/assert";
import { privateSlot } from "../animation/_private_slot.ts";
import { SkeletonAsset } from "../mod.ts";
import { createClip } from "../mod.ts";
import { compactClip, loadCompactClips, saveCompactClips } from "../clips.ts";
import { createCylinder } from "../procedural/cylinder.ts";
import { compactClipInternals } from "../animation/_asset_internals.ts";
import { lifetimeOf } from "../animation/_lifetime.ts";

Deno.test("private slot: each slot reads its own value, replaced by a second set", () => {
  const a = privateSlot<number>(), b = privateSlot<string>();
  const target = { x: 1 };
  assertStrictEquals(a.get(target), undefined);
  a.set(target, 1);
  b.set(target, "b");
  assertStrictEquals(a.get(target), 1);
  assertStrictEquals(b.get(target), "b");
  a.set(target, 2);
  assertStrictEquals(a.get(target), 2);
  assertStrictEquals(a.get({ x: 1 }), undefined);
  for (const other of [undefined, null, 0, "x", Symbol("s")]) {
    assertStrictEquals(a.get(other), undefined);
  }
  const fn = () => {};
  a.set(fn, 3);
  assertStrictEquals(a.get(fn), 3);
});

Deno.test("private slot: invisible to reflection, unforgeable by a proxy", () => {
  const slot = privateSlot<object>(), secret = {};
  const target = { x: 1 };
  slot.set(target, secret);
  Object.freeze(target);
  assertEquals(Reflect.ownKeys(target), ["x"]);
  assertStrictEquals(Object.getPrototypeOf(target), Object.prototype);
  assert(Object.isFrozen(target));
  assertStrictEquals(slot.get(target), secret);
  // A proxy's traps are never asked: neither of the target's value nor of a forged one.
  const proxy = new Proxy(target, { get: () => secret, has: () => true });
  assertStrictEquals(slot.get(proxy), undefined);
});

Deno.test("private slot: a loaded clip and its compact form look as before, their internals reached", () => {
  using skeleton = new SkeletonAsset(createCylinder({ joints: 4 }).skeleton);
  const lift = createClip({
    name: "lift",
    channels: [{
      joint: 2,
      path: "translation",
      interpolation: "STEP",
      times: Float32Array.of(0, 0.5, 1),
      values: Float32Array.of(0, 0, 0, 0, 0.1, 0, 0, 0.2, 0),
    }],
  });
  const [loaded] = loadCompactClips(skeleton, saveCompactClips(skeleton, [lift]));
  assert(Object.isFrozen(loaded));
  assertStrictEquals(Object.getPrototypeOf(loaded), Object.prototype);
  assertEquals(Reflect.ownKeys(loaded), ["name", "animation", "start", "duration", "channels"]);
  const compact = compactClip(loaded, skeleton);
  assertEquals(Reflect.ownKeys(compact).length, 9);
  assertStrictEquals(compactClipInternals(compact).byteOffset > 0, true);
  assertStrictEquals(lifetimeOf(compact).disposed, false);
});
