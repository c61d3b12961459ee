/**
 * The imports, exports and top-level declarations of one TypeScript or
 * AssemblyScript source, read from its text alone (no type checker, no
 * file system), for the repository's rules check (`_tools/rules.ts`).
 *
 * The tokenizer (`_tools/_tokens.ts`) skips comments, strings, template
 * text and regular expression literals, so that an `import` inside a string
 * or a comment is not taken for one. Then, at brace
 * and paren depth 0, it reads the static forms: `import … from "x"`,
 * `import type …`, `import "x"`, `export … from "x"`, `export * from "x"`,
 * `export * as ns from "x"`, `export { a as b }`, and exported
 * declarations (`function`, `class`, `const`/`let`/`var`, `interface`,
 * `type`, `enum`, `namespace`, `default`), with AssemblyScript's decorators
 * (`@inline export function …`). Dynamic `import("x")` with a string
 * literal is read at any depth, `typeof import("x")` in a type included.
 *
 * @module
 */

import { tokenize } from "./_tokens.ts";

/** One `import`, `export … from`, or dynamic `import("x")` of a source. */
export interface ImportRecord {
  /** The specifier as written. */
  specifier: string;
  /** 1-based line of the `import`/`export` keyword. */
  line: number;
  /** Imported names (`default` for a default import); empty for the other forms. */
  names: string[];
  /** Every export of the target is reached: `* as ns`, `export * as ns`, dynamic `import()`. */
  whole: boolean;
  /** The statement is an `export … from` (a re-export). */
  reexport: boolean;
}

/** One name a source exports. */
export interface ExportRecord {
  /** The exported name (`default` for `export default`). */
  name: string;
  /** 1-based line of the declaration or of the `export` keyword. */
  line: number;
  /** A `/** … *\/` comment directly precedes the declaration. */
  documented: boolean;
  /** Re-exported from another module: `[specifier, name there]`; undefined when declared here. */
  from?: [string, string];
}

/** What {@linkcode readModule} finds in one source. */
export interface ModuleSyntax {
  /** Every import, re-export and dynamic import with a string-literal specifier. */
  imports: ImportRecord[];
  /** Every exported name, declared here or re-exported by name. */
  exports: ExportRecord[];
  /** Specifiers of `export * from "x"` (names unknown without the target). */
  starExports: string[];
  /** The source opens with a comment that carries `@module`. */
  moduleDoc: boolean;
}

/** Keywords that may stand between `export` (or a statement's start) and what it declares. */
const MODIFIERS = new Set(["declare", "async", "abstract", "default"]);
const DECLARATIONS = new Set([
  "function",
  "class",
  "interface",
  "enum",
  "namespace",
  "module",
  "const",
  "let",
  "var",
  "type",
]);

/**
 * Reads the imports, exports and module doc of one source (see the module
 * doc for the forms understood). Pure: the same text gives the same result.
 */
export function readModule(source: string): ModuleSyntax {
  const tokens = tokenize(source);
  const imports: ImportRecord[] = [];
  const exports: ExportRecord[] = [];
  const starExports: string[] = [];
  /** Local name → [specifier, imported name], for `export { a }` of an import. */
  const bindings = new Map<string, [string, string]>();
  /** Top-level declarations: name → documented. */
  const declared = new Map<string, { documented: boolean; line: number }>();
  /** `export { a as b }` without `from`: resolved once every declaration is known. */
  const localLists: { local: string; name: string; line: number }[] = [];
  const at = (k: number) =>
    tokens[k] ?? { kind: "punct", value: "", line: 0, doc: false, depth: 0 };
  const is = (k: number, value: string) => at(k).value === value && at(k).kind !== "str";

  /** Whether the statement whose first keyword is at `k` carries a doc comment (decorators included). */
  const statementDoc = (k: number) => {
    let start = k;
    while (start > 0 && (MODIFIERS.has(at(start - 1).value) || is(start - 1, "export"))) start--;
    while (start >= 2 && at(start - 1).kind === "id" && is(start - 2, "@")) start -= 2;
    return at(start).doc;
  };

  /** Reads `{ a, type b, c as d }` from the `{` at `k`; returns [pairs, index after `}`]. */
  const readList = (k: number): [[string, string][], number] => {
    const pairs: [string, string][] = [];
    k++;
    while (k < tokens.length && !is(k, "}")) {
      if (is(k, ",")) {
        k++;
        continue;
      }
      if (is(k, "type") && !is(k + 1, ",") && !is(k + 1, "}") && !is(k + 1, "as")) k++;
      const first = at(k).value;
      let second = first;
      if (is(k + 1, "as")) {
        second = at(k + 2).value;
        k += 2;
      }
      pairs.push([first, second]);
      k++;
    }
    return [pairs, k + 1];
  };

  for (let k = 0; k < tokens.length; k++) {
    const token = tokens[k];
    if (token.kind !== "id" || is(k - 1, ".")) continue;
    if (token.value === "import" && is(k + 1, "(")) {
      if (at(k + 2).kind === "str" && (is(k + 3, ")") || is(k + 3, ","))) {
        const specifier = at(k + 2).value;
        imports.push({ specifier, line: token.line, names: [], whole: true, reexport: false });
      }
      continue;
    }
    if (token.depth !== 0) continue;
    if (token.value === "import" && !is(k + 1, ".")) {
      let j = k + 1;
      if (is(j, "type") && !is(j + 1, "from") && !is(j + 1, ",")) j++;
      const names: string[] = [];
      let whole = false;
      while (j < tokens.length && at(j).kind !== "str" && !is(j, "=") && !is(j, ";")) {
        if (is(j, "*") && is(j + 1, "as")) {
          whole = true;
          j += 3;
        } else if (is(j, "{")) {
          const [pairs, next] = readList(j);
          for (const [imported, local] of pairs) {
            names.push(imported), bindings.set(local, ["", imported]);
          }
          j = next;
        } else if (at(j).kind === "id" && !is(j, "from")) {
          names.push("default");
          bindings.set(at(j).value, ["", "default"]);
          j++;
        } else {
          j++;
        }
      }
      if (at(j).kind !== "str") continue;
      const specifier = at(j).value;
      for (const binding of bindings.values()) if (binding[0] === "") binding[0] = specifier;
      imports.push({ specifier, line: token.line, names, whole, reexport: false });
      k = j;
      continue;
    }
    if (token.value !== "export") {
      if (DECLARATIONS.has(token.value) && at(k + 1).kind === "id") {
        if (token.value === "type" && !is(k + 2, "=") && !is(k + 2, "<")) continue;
        if (!declared.has(at(k + 1).value)) {
          declared.set(at(k + 1).value, { documented: statementDoc(k), line: token.line });
        }
      }
      continue;
    }
    let j = k + 1;
    if (is(j, "type") && (is(j + 1, "{") || is(j + 1, "*"))) j++;
    if (is(j, "*")) {
      const nsName = is(j + 1, "as") ? at(j + 2).value : undefined;
      while (j < tokens.length && at(j).kind !== "str") j++;
      const specifier = at(j).value;
      // `export *` reaches the target's names only as far as they are used through this file.
      imports.push({ specifier, line: token.line, names: [], whole: !!nsName, reexport: true });
      if (nsName) exports.push({ name: nsName, line: token.line, documented: token.doc });
      else starExports.push(specifier);
      k = j;
    } else if (is(j, "{")) {
      const [pairs, next] = readList(j);
      if (is(next, "from") && at(next + 1).kind === "str") {
        const specifier = at(next + 1).value;
        const names = pairs.map(([name]) => name);
        imports.push({ specifier, line: token.line, names, whole: false, reexport: true });
        for (const [name, alias] of pairs) {
          exports.push({
            name: alias,
            line: token.line,
            documented: true,
            from: [specifier, name],
          });
        }
        k = next + 1;
      } else {
        for (const [local, name] of pairs) localLists.push({ local, name, line: token.line });
        k = next - 1;
      }
    } else if (is(j, "=")) {
      continue;
    } else {
      while (MODIFIERS.has(at(j).value) && !is(j, "default")) j++;
      if (is(j, "default")) {
        exports.push({ name: "default", line: token.line, documented: statementDoc(k) });
        continue;
      }
      if (is(j, "const") && is(j + 1, "enum")) j++;
      if (!DECLARATIONS.has(at(j).value)) continue;
      if (is(j, "function") && is(j + 1, "*")) j++;
      const names: string[] = [];
      if (is(j + 1, "{") || is(j + 1, "[")) {
        // A destructuring declaration: every identifier of the pattern that is not a property key.
        let m = j + 2;
        while (m < tokens.length && at(m).depth > token.depth) {
          if (at(m).kind === "id" && !is(m + 1, ":")) names.push(at(m).value);
          m++;
        }
      } else {
        names.push(at(j + 1).value);
      }
      const documented = statementDoc(k);
      for (const name of names) {
        exports.push({ name, line: token.line, documented });
        declared.set(name, { documented, line: token.line });
      }
      k = j + 1;
    }
  }
  for (const { local, name, line } of localLists) {
    const binding = bindings.get(local);
    if (binding) {
      exports.push({ name, line, documented: true, from: binding });
    } else {
      const declaration = declared.get(local);
      exports.push({
        name,
        line: declaration?.line ?? line,
        documented: !!declaration?.documented,
      });
    }
  }
  const first = source.match(/^(?:\s*\/\/[^\n]*\n)*\s*(\/\*[\s\S]*?\*\/)/);
  const moduleDoc = !!first && first[1].startsWith("/**") && first[1].includes("@module");
  return { imports, exports, starExports, moduleDoc };
}
