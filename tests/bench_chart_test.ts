/** The bench chart (bench/_chart.ts): rows read from `deno bench --json`, bars to scale. */
import { assertAlmostEquals, assertEquals, assertMatch, assertThrows } from "@std/assert";
import { benchRows, chartData, renderChart } from "../bench/_chart.ts";

const ok = (avgMs: number) => [{ ok: { avg: avgMs * 1e6 } }];
const REPORT = {
  benches: [
    { group: "system quatToMat", name: "quatToMat scalar", results: ok(0.2) },
    { group: "system quatToMat", name: "quatToMat simd", results: ok(0.02) },
    { group: "system quatToMat", name: "quatToMat relaxed-simd", results: ok(0.01) },
    { group: "system skin", name: "skin scalar", results: ok(80) },
    { group: "system skin", name: "skin simd", results: ok(4) },
    { group: "system skin", name: "skin relaxed-simd", results: ok(3.99) },
    { group: "frame, Fox.glb", name: "three.js positions only", results: ok(0.13) },
    { group: "scene frame vs three.js", name: "three.js positions only", results: ok(160) },
    { group: "system skin", name: "skin failed", results: [{ failed: "boom" }] },
    { group: "other", name: "frame scalar", results: ok(1) },
  ],
};

Deno.test("chart data: per-system rows per build, the scene's three.js frame (not a character's), failed rows left out", () => {
  const rows = benchRows(REPORT);
  assertEquals(rows.length, 9);
  const data = chartData(rows);
  assertEquals(data.systems.map((s) => s.name), ["quatToMat", "skin"]);
  assertAlmostEquals(data.systems[1].ms["simd"], 4, 1e-9);
  assertAlmostEquals(data.three!, 160, 1e-9);
  assertThrows(() => benchRows({}), Error, "not a `deno bench --json` report");
  assertThrows(() => chartData([]), Error, "no per-system rows");
});

Deno.test("chart: stacked frame bars to scale, labelled with totals and ratios to three.js", () => {
  const svg = renderChart(chartData(benchRows(REPORT)), "Title <&>", ["a note"]);
  assertMatch(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  assertMatch(svg, /Title &#60;&#38;&#62;/);
  const width = (label: string) =>
    Number(svg.match(new RegExp(`<rect [^>]*width="([\\d.]+)"[^>]*><title>${label}`))![1]);
  // The scalar frame is 80.2 ms, three.js 160 ms: its skin segment is half three.js' bar.
  const three = Number(
    svg.match(/<rect x="\d+" y="\d+" width="([\d.]+)" height="20" fill="#bab0ac"/)![1],
  );
  assertAlmostEquals(width("skin scalar") / three, 80 / 160, 1e-9);
  assertAlmostEquals(width("quatToMat scalar") / width("skin scalar"), 0.2 / 80, 1e-9);
  assertMatch(svg, /80 ms \(2\.0× three\.js\)/);
  assertMatch(svg, /simd 4\.0 ms \(20\.0×\)/);
  assertEquals(svg.match(/<svg/g)!.length, svg.match(/<\/svg>/g)!.length);
});
