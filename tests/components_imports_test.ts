/**
 * `components/` has no import circle: the graph of its modules' imports of
 * each other (type-only imports and re-exports included: a circle of types
 * is as hard to read as one of values) has no cycle. A component's
 * definition sits below the registry, the lifecycle machinery below the
 * definitions (it gets the registry handed in, `createAnimation`), and
 * what needs every component above the registry.
 */

import { assertEquals, assertThrows } from "@std/assert";
import { COMPONENTS } from "../components/registry.ts";
import { WorldBase } from "../components/_world.ts";
import { Core } from "../simd/memory/core.ts";

/** The relative imports of `source` inside its own folder (`./x.ts`). */
export function siblingImports(source: string): string[] {
  const found = new Set<string>();
  const pattern = /(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*"\.\/([^"/]+\.ts)"/g;
  for (const match of source.matchAll(pattern)) found.add(match[1]);
  return [...found];
}

/** The cycles of `graph` (one per strongly connected component of more than one node, or a self-import). */
export function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>(), low = new Map<string, number>();
  const stack: string[] = [], onStack = new Set<string>(), found: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next), low.set(node, next), next++;
    stack.push(node), onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!graph.has(to)) continue;
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node)!, index.get(to)!));
    }
    if (low.get(node) === index.get(node)) {
      const members: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        members.push(member);
      } while (member !== node);
      if (members.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(members.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/** The import graph of the `.ts` files of `folder`. */
export async function importGraph(folder: string): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>();
  for await (const entry of Deno.readDir(folder)) {
    if (!entry.isFile || !entry.name.endsWith(".ts")) continue;
    graph.set(entry.name, siblingImports(await Deno.readTextFile(`${folder}/${entry.name}`)));
  }
  return graph;
}

Deno.test("components/: no import circle, type-only imports included", async () => {
  const folder = new URL("../components", import.meta.url).pathname;
  assertEquals(cycles(await importGraph(folder)), []);
});

Deno.test("import circle check: finds a planted circle, a self-import, and multi-line imports", () => {
  const graph = new Map<string, string[]>([
    [
      "a.ts",
      siblingImports(
        'import {\n  x,\n  y,\n} from "./b.ts";\nimport type { Z } from "../up/c.ts";',
      ),
    ],
    ["b.ts", siblingImports('export { x } from "./c.ts";')],
    ["c.ts", siblingImports('import type { A } from "./a.ts";')],
    ["d.ts", siblingImports('import { d } from "./d.ts";')],
    ["e.ts", siblingImports('import { a } from "./a.ts";')],
  ]);
  assertEquals(graph.get("a.ts"), ["b.ts"]);
  assertEquals(cycles(graph), [["a.ts", "b.ts", "c.ts"], ["d.ts"]]);
});

Deno.test("the registry lists each component after the components it needs", () => {
  assertEquals(COMPONENTS.length, new Set(COMPONENTS.map((c) => c.name)).size);
  new WorldBase(Core.default, COMPONENTS);
  const [skeleton, jointQuat, ...rest] = COMPONENTS;
  assertThrows(
    () => new WorldBase(Core.default, [jointQuat, skeleton, ...rest]),
    Error,
    "registry: JointQuat needs Skeleton",
  );
  assertThrows(() => new WorldBase(Core.default, rest), Error, "listed after it or not");
});
