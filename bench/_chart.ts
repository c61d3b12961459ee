/**
 * `deno task bench:chart [--input bench.json] [--output docs/frame_chart.svg]`:
 * runs the scene benchmark (`deno bench --json bench/scene_bench.ts`), or
 * reads a saved run, and draws its results as an SVG chart: the whole frame
 * per core build, split by system, against three.js; and each system on
 * each build (log scale).
 *
 * @module
 */

import "../scalar.ts";
import { parseArgs } from "node:util";

/** One benchmark of a `deno bench --json` report. */
export interface BenchRow {
  readonly group?: string;
  readonly name: string;
  /** Mean time in milliseconds. */
  readonly ms: number;
}

/** The core builds drawn, slowest first. */
export const CHART_BUILDS = ["scalar", "simd", "relaxed-simd"] as const;

/** Reads the mean times out of a `deno bench --json` report. */
export function benchRows(report: unknown): BenchRow[] {
  const benches = (report as { benches?: unknown[] }).benches;
  if (!Array.isArray(benches)) throw new Error("not a `deno bench --json` report (no benches)");
  return benches.flatMap((b) => {
    const { group, name, results } = b as {
      group?: string;
      name: string;
      results: { ok?: { avg: number } }[];
    };
    const avg = results?.[0]?.ok?.avg;
    return avg === undefined ? [] : [{ group, name, ms: avg / 1e6 }];
  });
}

/** What the chart shows, picked from the scene benchmark's rows. */
export interface ChartData {
  /** Systems in frame order, each with its time per build. */
  readonly systems: readonly { name: string; ms: Record<string, number> }[];
  /** three.js' whole frame (positions only), if measured. */
  readonly three?: number;
}

/**
 * Picks the per-system rows (group `system <name>`, name `<name> <build>`)
 * and three.js' frame (a row named `three.js …` of the scene's group
 * `scene frame vs three.js`: a whole `deno task bench` run has other
 * three.js rows, of single characters).
 */
export function chartData(rows: readonly BenchRow[]): ChartData {
  const systems: { name: string; ms: Record<string, number> }[] = [];
  for (const row of rows) {
    const system = row.group?.match(/^system (\S+)$/)?.[1];
    const build = CHART_BUILDS.find((b) => row.name === `${system} ${b}`);
    if (!system || !build) continue;
    let entry = systems.find((s) => s.name === system);
    if (!entry) systems.push(entry = { name: system, ms: {} });
    entry.ms[build] = row.ms;
  }
  const three = rows.find((r) =>
    r.group === "scene frame vs three.js" && r.name.startsWith("three.js")
  )?.ms;
  if (systems.length === 0) throw new Error("no per-system rows (group `system <name>`) found");
  return { systems, three };
}

const COLOURS = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948"];
const BUILD_COLOURS: Record<string, string> = {
  scalar: "#9c755f",
  simd: "#4e79a7",
  "relaxed-simd": "#59a14f",
};

function escape(text: string): string {
  return text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
}

function ms(value: number): string {
  return value >= 10
    ? `${value.toFixed(0)} ms`
    : value >= 1
    ? `${value.toFixed(1)} ms`
    : `${(value * 1000).toFixed(0)} µs`;
}

/** The chart as an SVG document; `title` and the lines of `notes` head it. */
export function renderChart(data: ChartData, title: string, notes: readonly string[]): string {
  const width = 820, left = 190, right = 150, plot = width - left - right;
  const out: string[] = [];
  const text = (x: number, y: number, s: string, extra = "") =>
    out.push(`<text x="${x}" y="${y}"${extra}>${escape(s)}</text>`);
  text(12, 24, title, ' class="title"');
  notes.forEach((note, i) => text(12, 42 + 15 * i, note, ' class="note"'));

  // Part 1: the frame, stacked by system, linear scale.
  let y = 70 + 15 * notes.length;
  text(
    12,
    y,
    "Whole frame: sum of the systems' means (linear scale; shorter is faster)",
    ' class="head"',
  );
  y += 14;
  const totals = CHART_BUILDS.map((b) => data.systems.reduce((n, s) => n + (s.ms[b] ?? 0), 0));
  const max = Math.max(data.three ?? 0, ...totals);
  const scale = plot / max;
  const bar = (label: string, total: number) => {
    text(left - 8, y + 15, label, ' text-anchor="end"');
    const vs = data.three ? ` (${(data.three / total).toFixed(1)}× three.js)` : "";
    text(left + total * scale + 6, y + 15, `${ms(total)}${vs}`);
  };
  if (data.three !== undefined) {
    out.push(
      `<rect x="${left}" y="${y}" width="${data.three * scale}" height="20" fill="#bab0ac"/>`,
    );
    text(left - 8, y + 15, "three.js (positions only)", ' text-anchor="end"');
    text(left + data.three * scale + 6, y + 15, ms(data.three));
    y += 28;
  }
  CHART_BUILDS.forEach((build, b) => {
    let x = left;
    data.systems.forEach((s, i) => {
      const w = (s.ms[build] ?? 0) * scale;
      out.push(
        `<rect x="${x}" y="${y}" width="${w}" height="20" fill="${COLOURS[i % COLOURS.length]}">` +
          `<title>${escape(`${s.name} ${build}: ${ms(s.ms[build] ?? 0)}`)}</title></rect>`,
      );
      x += w;
    });
    bar(`Marrow ${build}`, totals[b]);
    y += 28;
  });
  let lx = left;
  data.systems.forEach((s, i) => {
    out.push(`<rect x="${lx}" y="${y + 2}" width="10" height="10" fill="${COLOURS[i]}"/>`);
    text(lx + 14, y + 11, s.name, ' class="small"');
    lx += 24 + s.name.length * 6.2;
  });
  y += 40;

  // Part 2: each system on each build, log scale.
  text(12, y, "Each system per frame (log scale)", ' class="head"');
  y += 14;
  const all = data.systems.flatMap((s) => Object.values(s.ms)).filter((v) => v > 0);
  const lo = Math.log10(Math.min(...all)) - 0.3, hi = Math.log10(Math.max(...all)) + 0.1;
  const logX = (v: number) => left + ((Math.log10(v) - lo) / (hi - lo)) * plot;
  for (const s of data.systems) {
    text(left - 8, y + 22, s.name, ' text-anchor="end"');
    for (const build of CHART_BUILDS) {
      const v = s.ms[build];
      if (v === undefined) continue;
      out.push(
        `<rect x="${left}" y="${y}" width="${logX(v) - left}" height="11" ` +
          `fill="${BUILD_COLOURS[build]}"/>`,
      );
      const speedUp = build === "scalar" ? "" : ` (${(s.ms.scalar / v).toFixed(1)}×)`;
      text(logX(v) + 5, y + 9.5, `${build} ${ms(v)}${speedUp}`, ' class="small"');
      y += 13;
    }
    y += 9;
  }
  const height = y + 8;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" ` +
    `viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="12">`,
    `<style>.title{font-size:15px;font-weight:bold}.head{font-weight:bold}` +
    `.note{fill:#555}.small{font-size:10.5px}</style>`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    ...out,
    "</svg>",
    "",
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: { input: { type: "string" }, output: { type: "string" } },
  });
  let json: string;
  if (values.input) json = await Deno.readTextFile(values.input);
  else {
    console.log("running deno bench --json bench/scene_bench.ts …");
    const { code, stdout } = await new Deno.Command(Deno.execPath(), {
      args: [
        "bench",
        "--import-map=import_map.dev.json",
        "--allow-read",
        "--allow-env",
        "--json",
        "bench/scene_bench.ts",
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    if (code !== 0) Deno.exit(code);
    json = new TextDecoder().decode(stdout);
  }
  const report = JSON.parse(json);
  const data = chartData(benchRows(report));
  const output = values.output ?? "docs/frame_chart.svg";
  const svg = renderChart(
    data,
    "Marrow: time per frame, 100 characters × 64 joints × 10,000 vertices (4 influences)",
    [
      `deno task bench:chart (deno bench bench/scene_bench.ts): ${report.runtime ?? "Deno"}, ` +
      `${report.cpu ?? "unknown CPU"}, ${new Date().toISOString().slice(0, 10)}.`,
      "Marrow skins positions, normals and tangents; three.js (CPU skinning, " +
      "applyBoneTransform) positions only. The scene plays no clips.",
    ],
  );
  await Deno.writeTextFile(output, svg);
  console.log(`wrote ${output}`);
  for (const s of data.systems) {
    console.log(`${s.name}: ${CHART_BUILDS.map((b) => `${b} ${ms(s.ms[b] ?? NaN)}`).join(", ")}`);
  }
  if (data.three) console.log(`three.js frame: ${ms(data.three)}`);
}
