/**
 * The command-line demo (run in-process: its usage, one-line errors with
 * exit codes, `--list`, clip names) and its default scene: the generated
 * wave clip played through the `sampleClips` system.
 */
import "../scalar.ts";
import {
  assert,
  assertEquals,
  assertGreater,
  assertLess,
  assertMatch,
  assertNotEquals,
} from "@std/assert";
import { runDemo } from "../examples/demo.ts";
import { Crowd, cylinderCharacter } from "../examples/crowd.ts";
import { waveClip } from "../procedural/cylinder.ts";
import { getPose } from "../mod.ts";
import { sampleClip } from "../clips.ts";
import { PoseField, poseIndex } from "../simd/memory/layout.ts";

const FIXTURES = "tests/fixtures/gltf/";

async function demo(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const code = await runDemo(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

Deno.test("demo --help prints the usage and exits 0", async () => {
  const { code, out, err } = await demo("--help");
  assertEquals([code, err], [0, []]);
  assertMatch(out.join("\n"), /usage: deno task demo \[FILE\.gltf\|FILE\.glb\] \[options\]/);
  assertMatch(out.join("\n"), /--list/);
});

Deno.test("demo reports a bad argument in one line and exits 2", async () => {
  for (
    const [args, pattern] of [
      [["--count", "0"], /^error: --count: expected a whole number/],
      [["--frames", "1e9"], /^error: --frames: /],
      [["--bogus"], /^error: Unknown option '--bogus'/],
      [["a.glb", "b.glb"], /^error: expected at most one file, got 2/],
      [["--list"], /^error: --list needs a glTF file/],
      [["--clip", "Run"], /^error: --clip needs a glTF file/],
      [["--count", "-3"], /^error: --count: expected a whole number from 1 to 100000, got "-3"/],
      [["--workers", "0"], /^error: --workers: expected a whole number from 1 to 16, got "0"/],
      [["--workers", "abc"], /^error: --workers: expected a whole number from 1 to 16, got "abc"/],
      [["--list", `${FIXTURES}Fox.glb`, "--frames", "0"], /^error: --frames: /],
    ] as const
  ) {
    const { code, out, err } = await demo(...args);
    assertEquals([code, out, err.length], [2, [], 1], args.join(" "));
    assertMatch(err[0], pattern);
    assert(!err[0].includes("\n") && err[0].endsWith("(see --help)"));
  }
});

Deno.test("demo reports an unreadable or unusable file in one line and exits 1", async () => {
  for (
    const [args, pattern] of [
      [[`${FIXTURES}ATTRIBUTION.md`], /^error: .*ATTRIBUTION\.md: /],
      [[`${FIXTURES}missing.glb`], /^error: .*missing\.glb/],
      [
        [`${FIXTURES}stats.json`],
        /^error: .*stats\.json: not a glTF file: JSON without glTF's "asset"/,
      ],
      [
        [`${FIXTURES}Fox.glb`, "--clip", "Fly"],
        /^error: .*no clip named "Fly" \(clips: "Survey", "Walk", "Run"\)$/,
      ],
    ] as const
  ) {
    const { code, err } = await demo(...args);
    assertEquals([code, err.length], [1, 1], args.join(" "));
    assertMatch(err[0], pattern);
  }
});

Deno.test("demo --list prints skins, primitives and clips, unnamed clips as animation_N", async () => {
  const { code, out } = await demo("--list", `${FIXTURES}CesiumMan.glb`);
  assertEquals(code, 0);
  assertMatch(out.join("\n"), /skin 0 "[^"]*": \d+ joints/);
  assertMatch(out.join("\n"), /primitive: node \d+ .*: 3273 vertices, \d+ indices, mode 4/);
  assertMatch(out.join("\n"), /clip "animation_0": 2\.00 s, \d+ channels/);
  const fox = await demo(`${FIXTURES}Fox.glb`, "--list");
  assertMatch(fox.out.join("\n"), /clip "Survey".*\n.*clip "Walk".*\n.*clip "Run"/);
});

Deno.test("demo times every system of the pipeline on a crowd and on a glTF file", async () => {
  for (const args of [[], [`${FIXTURES}Fox.glb`, "--clip", "Run"]]) {
    const { code, out } = await demo(...args, "--count", "2", "--frames", "2");
    assertEquals(code, 0, args.join(" "));
    for (const system of ["sampleClips", "quatToMat", "skin", "Marrow frame total"]) {
      assert(out.some((line) => line.startsWith(system)), `${system} in ${out.join("\n")}`);
    }
    // No entity has an IK chain: the table leaves the idle system out.
    assert(!out.some((line) => /^ik /.test(line)), out.join("\n"));
  }
});

Deno.test("the demo's idle systems are those no entity of its crowd goes through", () => {
  const crowd = new Crowd(cylinderCharacter(), 2, "scalar");
  try {
    // The cylinder has normals: its entities are skinned by skinWithTangents, not skin.
    assertEquals([...crowd.idleSystems()].sort(), ["ik", "skin"]);
  } finally {
    crowd.dispose();
  }
});

Deno.test("the wave clip loops seamlessly and animates the default crowd through sampleClips", () => {
  const clip = waveClip(30);
  assertEquals(clip.channels.length, 29);
  for (const channel of clip.channels) {
    assertEquals(channel.values.slice(0, 4), channel.values.slice(-4));
  }
  // The crowd's poses are the clip sampled at each entity's time, not code run per frame.
  const character = cylinderCharacter();
  const crowd = new Crowd(character, 3, "scalar");
  try {
    crowd.frame(0.25);
    const first = crowd.positions(1).slice();
    crowd.frame(0.25);
    assertNotEquals(crowd.positions(1), first);
    const pose = getPose(crowd.world, crowd.entities[1]);
    // Entity 1 starts 0.1 s into the clip; two frames of 0.25 s later it is at 0.6 s.
    const error = (time: number) => {
      const expected = character.skeleton.restPose.slice();
      sampleClip(clip, time, expected);
      let max = 0;
      for (let j = 1; j < 30; j++) {
        for (const f of [PoseField.QX, PoseField.QY, PoseField.QZ, PoseField.QW]) {
          max = Math.max(max, Math.abs(expected[poseIndex(j, f)] - pose[poseIndex(j, f)]));
        }
      }
      return max;
    };
    assertLess(error(0.6), 1e-5);
    assertGreater(error(0.35), 1e-2);
  } finally {
    crowd.dispose();
  }
});
