/**
 * The demo's crowd (`deno task demo --crowd N`, the web page's crowd mode):
 * its command line, and its level of detail by distance bands as the page
 * shows it: nearer bands nearer the viewpoint, culled characters publish
 * nothing new, full-rate ones move every frame.
 */
import { assert, assertEquals, assertGreater, assertMatch } from "@std/assert";
import { runDemo } from "../examples/demo.ts";
import { CROWD_BANDS, CrowdScene } from "../examples/crowd_scene.ts";

async function demo(...args: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
  const out: string[] = [], err: string[] = [];
  const code = await runDemo(args, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out, err };
}

Deno.test("demo --crowd times the crowd's systems and prints its bands", async () => {
  const { code, out, err } = await demo("--crowd", "200", "--frames", "20");
  assertEquals([code, err], [0, []]);
  const text = out.join("\n");
  assertMatch(text, /a crowd of 200 small characters/);
  assertMatch(text, /^skinWithTangents +\d+(\.\d+)? (µs|ms)$/m);
  assertMatch(text, /^frame +\d+(\.\d+)? (µs|ms)/m);
  for (const band of [...CROWD_BANDS.map((b) => b.label), "culled"]) {
    assertMatch(text, new RegExp(`^  ${band}[^:]*: \\d+$`, "m"));
  }
});

Deno.test("demo --crowd refuses a bad count, a file and --count in one line", async () => {
  for (
    const [args, pattern] of [
      [["--crowd", "0"], /^error: --crowd: expected a whole number from 1 to 100000/],
      [["--crowd", "5", "tests/fixtures/gltf/Fox.glb"], /^error: --crowd .*leave out a file/],
      [["--crowd", "5", "--count", "3"], /^error: --crowd .*leave out --count/],
    ] as const
  ) {
    const { code, out, err } = await demo(...args);
    assertEquals([code, out, err.length], [2, [], 1], args.join(" "));
    assertMatch(err[0], pattern);
  }
});

Deno.test("the crowd's bands follow the viewpoint; culled characters publish nothing new", () => {
  const scene = new CrowdScene(400, "simd");
  try {
    for (let frame = 0; frame < 20; frame++) scene.frame(1 / 60);
    const counts = scene.bandCounts();
    assertEquals(counts.reduce((a, b) => a + b, 0), 400);
    assert(counts.every((n) => n > 0), `every band and culled in use: ${counts}`);
    // Ground distance from the viewpoint: every character of a band nearer than any of the next.
    const [x, , z] = scene.camera;
    const far = new Array<number>(counts.length).fill(0);
    const near = new Array<number>(counts.length).fill(Infinity);
    scene.entities.forEach((_, i) => {
      const d = Math.hypot(scene.places[i * 2] - x, scene.places[i * 2 + 1] - z);
      const band = scene.bands[i];
      far[band] = Math.max(far[band], d), near[band] = Math.min(near[band], d);
    });
    for (let b = 1; b < counts.length; b++) assert(far[b - 1] <= near[b], `band ${b}`);
    // One more frame: full-rate characters move, culled ones keep their last output.
    const before = scene.entities.map((_, i) => scene.positions(i).slice());
    const bands = scene.bands.slice();
    scene.frame(1 / 60);
    let full = 0;
    scene.entities.forEach((_, i) => {
      if (bands[i] !== scene.bands[i]) return; // changed band this frame
      const moved = scene.positions(i).some((v, k) => v !== before[i][k]);
      if (bands[i] === CROWD_BANDS.length) assert(!moved, `culled character ${i} moved`);
      if (bands[i] === 0) assert(moved, `full-rate character ${i} did not move`), full++;
    });
    assertGreater(full, 0);
  } finally {
    scene.dispose();
  }
});
