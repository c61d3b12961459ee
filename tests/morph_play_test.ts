/**
 * Morph weights played from clips, against three.js's AnimationMixer on the
 * synthetic morph document (`_gltf_morph.ts`: one primitive morphed and
 * skinned, one animation per interpolation keying its weights), at random
 * times, through `playClip`, a cross-fade, blend layers at threshold 1
 * (three.js's fill), an additive layer (`makeClipAdditive`) and a masked
 * override layer (three.js: two actions whose weights add to 1, a mask
 * weighing joints only). The game's weights stand where no clip animates a
 * target: three.js's original values (the influences when the action
 * started). Weights within 1e-5; the morphed mesh within 1e-4 of its size.
 */

import { assert, assertEquals, assertLess, assertThrows } from "@std/assert";
import { addEntity, createWorld } from "bitecs";
import * as THREE from "three";
import {
  addCharacter,
  ClipError,
  ComponentError,
  createAnimation,
  createAnimationPipeline,
  crossFadeTo,
  getPlayback,
  getSkinnedPositions,
  playClip,
  SkeletonAsset,
  SkinAsset,
} from "../mod.ts";
import {
  addMorphWeights,
  getMorphWeights,
  type MorphWeightsChannel,
  setMorphWeights,
} from "../morph.ts";
import { loadCompactClips, saveCompactClips } from "../clips.ts";
import { addLayer, setBlendThreshold, setLayerWeight } from "../layers.ts";
import { parseGltf } from "../gltf/mod.ts";
import { loadThree } from "./_three_gltf.ts";
import { writeGlb } from "./_gltf_rig.ts";
import { INTERPOLATIONS, morphDocument } from "./_gltf_morph.ts";
import { random } from "./_scene.ts";

const TOLERANCE = 1e-5;
const bytes = await writeGlb(morphDocument(9));
const model = await parseGltf(bytes);
const three = await loadThree(bytes);
const mesh = three.primitives[0].object;
const [character] = model.skeletons;
const clips = character.clips;
const threeClips = clips.map((c) => three.gltf.animations[c.animation]);
/** The clips' joints only: a clip that keys no weights. */
const bodies = clips.map(({ morphChannels: _, ...body }) => body);
const threeBodies = threeClips.map((c) =>
  new THREE.AnimationClip(
    `${c.name} body`,
    c.duration,
    c.tracks.filter((t: THREE.KeyframeTrack) => !t.name.endsWith("morphTargetInfluences")),
  )
);

interface Action {
  readonly clip: THREE.AnimationClip;
  readonly weight: number;
  readonly time: number;
  readonly additive?: boolean;
}

/** three.js's influences with `actions` (looping), the game's weights `game` the originals. */
function threeWeights(game: readonly number[], actions: readonly Action[]): number[] {
  three.mixer.stopAllAction();
  // In place: the mixer's bindings hold the array; read as the originals when actions start.
  mesh.morphTargetInfluences!.splice(0, 3, ...game);
  for (const a of actions) {
    const mode = a.additive ? THREE.AdditiveAnimationBlendMode : THREE.NormalAnimationBlendMode;
    const action = three.mixer.clipAction(a.clip, undefined, mode);
    action.reset().setLoop(THREE.LoopRepeat, Infinity).setEffectiveWeight(a.weight).play();
    // Wrapped here: an update by 0 s samples an action's time as it is.
    action.time = ((a.time % a.clip.duration) + a.clip.duration) % a.clip.duration;
  }
  three.mixer.update(0);
  return [...mesh.morphTargetInfluences!];
}

function assertWeights(actual: Float32Array, expected: readonly number[], what: string): void {
  for (let t = 0; t < expected.length; t++) {
    assertLess(Math.abs(actual[t] - expected[t]), TOLERANCE, `${what}: weight ${t}`);
  }
}

const world = createWorld();
createAnimation(world);
const animate = createAnimationPipeline();
const skeleton = new SkeletonAsset(character.skeleton);
const skin = new SkinAsset(skeleton, character.primitives[0].skin);

/** A new morphed character with the game's weights `game`. */
function entity(game: readonly number[]): number {
  const eid = addEntity(world);
  addCharacter(world, eid, skeleton, skin);
  addMorphWeights(world, eid, game, { nodes: [character.primitives[0].node] });
  return eid;
}

const next = random(31);
const weights = () => [next() * 1.2 - 0.1, next() * 1.2 - 0.1, next() * 1.2 - 0.1];

for (const [c, interpolation] of INTERPOLATIONS.entries()) {
  Deno.test(`morph play (${interpolation}): playClip samples the weights as three.js`, () => {
    for (let i = 0; i < 12; i++) {
      const game = weights(), time = next() * 5 - 0.5;
      const eid = entity(game);
      playClip(world, eid, clips[c], { time });
      animate(world, 0);
      const expected = threeWeights(game, [{ clip: threeClips[c], weight: 1, time }]);
      assertWeights(getMorphWeights(world, eid), expected, `time ${time}`);
    }
  });

  Deno.test(`morph play (${interpolation}): a cross-fade lerps the weights as three.js`, () => {
    for (let i = 0; i < 8; i++) {
      const game = weights(), from = next() * 2, to = next() * 2, fade = next() * 0.9 + 0.05;
      // From a clip that keys no weights (the game's stand in), or from another interpolation's.
      const other = (c + 1 + (i % 2)) % 3, body = i % 2 === 0;
      const eid = entity(game);
      playClip(world, eid, body ? bodies[other] : clips[other], { time: from });
      crossFadeTo(world, eid, clips[c], 1, { time: to });
      animate(world, fade);
      const expected = threeWeights(game, [
        {
          clip: body ? threeBodies[other] : threeClips[other],
          weight: 1 - fade,
          time: from + fade,
        },
        { clip: threeClips[c], weight: fade, time: to + fade },
      ]);
      assertWeights(getMorphWeights(world, eid), expected, `fade ${fade}, body ${body}`);
    }
  });

  Deno.test(`morph play (${interpolation}): layers blend the weights as three.js actions`, () => {
    for (let i = 0; i < 8; i++) {
      const game = weights(), base = next() * 2, top = next() * 2, w = next() * 0.9 + 0.05;
      const other = (c + 1) % 3;
      // Blend layers at threshold 1: three.js's mixer; a total below 1 filled by the game's.
      const blended = entity(game), w0 = next() * 0.8 + 0.1;
      playClip(world, blended, clips[other], { time: base });
      setBlendThreshold(world, blended, 1);
      setLayerWeight(world, blended, 0, w0);
      addLayer(world, blended, clips[c], { mode: "blend", weight: w, time: top });
      // Additive: the clip's change from its first frame, added by weight.
      const added = entity(game);
      playClip(world, added, clips[other], { time: base });
      addLayer(world, added, clips[c], { mode: "additive", weight: w, time: top });
      // A masked override: the mask weighs joints only, the weights by the layer's weight.
      const masked = entity(game);
      playClip(world, masked, clips[other], { time: base });
      addLayer(world, masked, clips[c], { weight: w, time: top, mask: [0, 1] });
      animate(world, 0);
      const under = { clip: threeClips[other], time: base };
      assertWeights(
        getMorphWeights(world, blended),
        threeWeights(game, [{ ...under, weight: w0 }, {
          clip: threeClips[c],
          weight: w,
          time: top,
        }]),
        `blend ${w0} + ${w}`,
      );
      const additive = THREE.AnimationUtils.makeClipAdditive(threeClips[c].clone());
      assertWeights(
        getMorphWeights(world, added),
        threeWeights(game, [
          { ...under, weight: 1 },
          { clip: additive, weight: w, time: top, additive: true },
        ]),
        `additive ${w}`,
      );
      assertWeights(
        getMorphWeights(world, masked),
        threeWeights(game, [
          { ...under, weight: 1 - w },
          { clip: threeClips[c], weight: w, time: top },
        ]),
        `override ${w}`,
      );
    }
  });
}

Deno.test("morph play: the played weights morph the mesh, and the game's return when clips stop keying them", () => {
  const game = [0.3, 0.6, 0.1], eid = entity(game), time = 0.7;
  playClip(world, eid, clips[0], { time });
  animate(world, 0);
  const played = getMorphWeights(world, eid);
  assertWeights(played, threeWeights(game, [{ clip: threeClips[0], weight: 1, time }]), "played");
  // The morph uses the played weights: the same mesh as the game setting them.
  const check = entity([...played]);
  playClip(world, check, bodies[0], { time });
  animate(world, 0);
  assertEquals(getSkinnedPositions(world, eid), getSkinnedPositions(world, check));
  // A clip that keys no weights: the game's show again, and the game's later weights too.
  playClip(world, eid, bodies[1]);
  animate(world, 0.1);
  assertEquals([...getMorphWeights(world, eid)], [...Float32Array.from(game)]);
  setMorphWeights(world, eid, [1, 0, 0.5]);
  animate(world, 0.1);
  assertEquals([...getMorphWeights(world, eid)], [1, 0, 0.5]);
  // A channel drives the meshes of its node: a decoy of another node, first, drives them only
  // without `nodes` (each mesh then takes the first channel with as many targets).
  const [channel] = clips[0].morphChannels!;
  const decoy = { ...channel, node: channel.node + 1, values: channel.values.map((v) => v / 2) };
  const both = { ...clips[0], name: "decoy", morphChannels: [decoy, channel] };
  const unnamed = addEntity(world);
  addCharacter(world, unnamed, skeleton, skin);
  addMorphWeights(world, unnamed);
  for (const e of [eid, unnamed]) playClip(world, e, both, { time });
  animate(world, 0);
  assertEquals(getMorphWeights(world, eid), played);
  const halves = getMorphWeights(world, unnamed);
  for (let t = 0; t < 3; t++) assertLess(Math.abs(halves[t] - played[t] / 2), 1e-6);
});

Deno.test("morph play: compact clip files keep morph channels; bad channels and nodes are typed errors", () => {
  // Saved and loaded, each clip (LINEAR, STEP, CUBICSPLINE) drives the weights as the clip saved.
  const loaded = loadCompactClips(skeleton, saveCompactClips(skeleton, clips));
  loaded.forEach((clip, i) => assertEquals(clip.morphChannels, clips[i].morphChannels));
  loaded.forEach((clip, i) => {
    const saved = entity([0, 0, 0]), back = entity([0, 0, 0]);
    const time = clips[i].duration * 0.37;
    playClip(world, saved, clips[i], { time });
    playClip(world, back, clip, { time });
    animate(world, 0);
    assertEquals(getMorphWeights(world, back), getMorphWeights(world, saved), clip.name);
    assertEquals(getSkinnedPositions(world, back), getSkinnedPositions(world, saved), clip.name);
  });
  // A channel no frame could play is refused before anything is built.
  const [first] = clips[0].morphChannels!;
  const unplayable = { ...clips[0], morphChannels: [{ ...first, targetCount: 0 }] };
  const error = assertThrows(() => saveCompactClips(skeleton, [bodies[0], unplayable]), ClipError);
  assertEquals(error.clip, clips[0].name);
  assert(error.message.includes("morphChannels[0]"), error.message);
  const eid = entity([0, 0, 0]);
  playClip(world, eid, clips[0]);
  const [channel] = clips[0].morphChannels!;
  const times = channel.times.slice();
  times[2] = times[1];
  for (
    const [bad, field] of [
      [{ ...channel, times }, "times[2]"],
      [{ ...channel, values: channel.values.slice(1) }, "values must be"],
      [{ ...channel, targetCount: 0 }, "targetCount"],
      [{ ...channel, interpolation: "CUBIC" }, "interpolation"],
      [{ ...channel, values: channel.values.map((v, i) => i === 4 ? NaN : v) }, "values[4] is NaN"],
    ] as const
  ) {
    const clip = { ...bodies[2], name: "bad", morphChannels: [bad as MorphWeightsChannel] };
    const e = assertThrows(() => playClip(world, eid, clip), ClipError);
    assert(e.message.includes(`morphChannels[0]: ${field}`), e.message);
    assertEquals(getPlayback(world, eid).clip, clips[0]);
  }
  const other = addEntity(world);
  addCharacter(world, other, skeleton, skin);
  assertThrows(
    () => addMorphWeights(world, other, undefined, { nodes: [] }),
    ComponentError,
    "nodes",
  );
  assertThrows(
    () => addMorphWeights(world, other, undefined, { nodes: [-1] }),
    ComponentError,
    "nodes[0] is -1",
  );
});
