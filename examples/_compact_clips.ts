/**
 * `deno task compact <model.glb|.gltf> [-o file]`: imports a glTF model,
 * builds the compact form of each clip of each of its skeletons, and
 * writes one compact clip file per skeleton with clips
 * (`docs/clip_file_format.md`; `loadCompactClips` reads it). The file is
 * `-o`'s, else the model's path with `.clips` for its extension; a model
 * of several skeletons with clips gets `.<skeleton>` before the extension.
 *
 * @module
 */

import { parseArgs } from "node:util";
import { SkeletonAsset } from "../mod.ts";
import { importGltf } from "../gltf/mod.ts";
import { saveCompactClips } from "../clips.ts";

const USAGE = `usage: deno task compact <model.glb|.gltf> [-o file]

Builds the compact form of every clip of every skeleton of the model and
writes them to a compact clip file (loadCompactClips reads it):
  -o, --out FILE  the file to write (default: the model's path, extension .clips);
                  a model of several skeletons with clips writes FILE with
                  .<skeleton index> before its extension, one per skeleton
  -h, --help      this text`;

/** Where the task writes and reports (the tests give their own). */
export interface CompactOutput {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly writeFile: (path: string, bytes: Uint8Array) => Promise<void>;
}

class UsageError extends Error {}

/** `path` with `.<index>` before its extension. */
function indexed(path: string, index: number): string {
  const dot = path.lastIndexOf("."), slash = path.lastIndexOf("/");
  return dot > slash + 1 ? `${path.slice(0, dot)}.${index}${path.slice(dot)}` : `${path}.${index}`;
}

async function main(args: string[], output: CompactOutput): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: { out: { type: "string", short: "o" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return output.out(USAGE);
  if (positionals.length !== 1) throw new UsageError("expected one model file");
  const model = positionals[0];
  const base = values.out ?? model.replace(/\.(glb|gltf)$/i, "") + ".clips";
  const imported = await importGltf(model);
  const animated = imported.skeletons
    .map((character, index) => ({ character, index }))
    .filter(({ character }) => character.clips.length > 0);
  if (animated.length === 0) throw new Error(`${model}: no skeleton has clips`);
  for (const { character, index } of animated) {
    const started = performance.now();
    using skeleton = new SkeletonAsset(character.skeleton);
    const file = saveCompactClips(skeleton, character.clips);
    const seconds = (performance.now() - started) / 1000;
    const path = animated.length > 1 ? indexed(base, index) : base;
    await output.writeFile(path, file);
    output.out(
      `${path}: skeleton ${index} (${skeleton.jointCount} joints), ${character.clips.length} clips, ` +
        `${file.length} bytes, built in ${seconds.toFixed(2)} s`,
    );
  }
}

/** Runs the task; returns the exit code (2 for a mistake in the arguments). */
export async function runCompact(args: string[], output: CompactOutput): Promise<number> {
  try {
    await main(args, output);
    return 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const hint = error instanceof UsageError ? " (see --help)" : "";
    output.err(`error: ${message.split("\n")[0]}${hint}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

if (import.meta.main) {
  const code = await runCompact(Deno.args, {
    out: console.log,
    err: console.error,
    writeFile: (path, bytes) => Deno.writeFile(path, bytes),
  });
  if (code !== 0) Deno.exit(code);
}
