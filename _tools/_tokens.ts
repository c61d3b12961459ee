/**
 * A tokenizer for TypeScript and AssemblyScript sources, enough to find
 * imports and exports (`_tools/_module_syntax.ts`): it skips comments,
 * strings, template text and regular expression literals, tokenizes the
 * `${…}` expressions of templates, and marks the tokens preceded by a
 * `/** … *\/` comment.
 *
 * @module
 */

/** One token; strings carry their value without quotes. */
export interface Token {
  kind: "id" | "str" | "num" | "punct" | "tpl";
  value: string;
  line: number;
  /** A `/** … *\/` comment sits between the previous token and this one. */
  doc: boolean;
  /** Brace plus paren/bracket depth at the token (0: the module's top level). */
  depth: number;
}

/** After these keywords a `/` starts a regular expression, not a division. */
const REGEX_AFTER_KEYWORD = new Set([
  "return",
  "typeof",
  "case",
  "do",
  "else",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "instanceof",
  "yield",
  "await",
]);

function isIdStart(c: string): boolean {
  return /[A-Za-z_$#]/.test(c) || c.charCodeAt(0) > 127;
}

function isIdPart(c: string): boolean {
  return /[\w$]/.test(c) || c.charCodeAt(0) > 127;
}

/** The source's tokens, in order. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  /** One entry per open `{`, `(`, `[` or template `${`. */
  const stack: string[] = [];
  let i = 0;
  let line = 1;
  let doc = false;
  const push = (kind: Token["kind"], value: string, startLine: number) => {
    tokens.push({ kind, value, line: startLine, doc, depth: stack.length });
    doc = false;
  };
  const regexAllowed = () => {
    const last = tokens.at(-1);
    if (!last) return true;
    if (last.kind === "id") return REGEX_AFTER_KEYWORD.has(last.value);
    if (last.kind === "punct") return !/^[)\]}]$/.test(last.value);
    return false;
  };
  /** Scans template text from `i` (after "`" or a closing `}`) to "`" or `${`. */
  const templateText = () => {
    const startLine = line;
    while (i < source.length) {
      const c = source[i];
      if (c === "\\") {
        i += 2;
        continue;
      }
      if (c === "\n") line++;
      if (c === "`") {
        i++;
        push("tpl", "", startLine);
        return;
      }
      if (c === "$" && source[i + 1] === "{") {
        i += 2;
        push("tpl", "", startLine);
        stack.push("${");
        return;
      }
      i++;
    }
  };
  while (i < source.length) {
    const c = source[i];
    if (c === "\n") {
      line++;
      i++;
    } else if (/\s/.test(c)) {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i++;
    } else if (c === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      const stop = end < 0 ? source.length : end + 2;
      const text = source.slice(i, stop);
      if (text.startsWith("/**") && text !== "/**/") doc = true;
      line += text.split("\n").length - 1;
      i = stop;
    } else if (c === '"' || c === "'") {
      const startLine = line;
      let value = "";
      i++;
      while (i < source.length && source[i] !== c && source[i] !== "\n") {
        if (source[i] === "\\") {
          value += source[i + 1] ?? "";
          i += 2;
        } else {
          value += source[i++];
        }
      }
      i++;
      push("str", value, startLine);
    } else if (c === "`") {
      i++;
      templateText();
    } else if (c === "/" && regexAllowed()) {
      const startLine = line;
      let inClass = false;
      i++;
      while (i < source.length && source[i] !== "\n") {
        const r = source[i];
        if (r === "\\") i++;
        else if (r === "[") inClass = true;
        else if (r === "]") inClass = false;
        else if (r === "/" && !inClass) break;
        i++;
      }
      i++;
      while (i < source.length && isIdPart(source[i])) i++;
      push("punct", "regex", startLine);
    } else if (isIdStart(c)) {
      const start = i++;
      while (i < source.length && isIdPart(source[i])) i++;
      push("id", source.slice(start, i), line);
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      const start = i++;
      while (i < source.length && /[\w.]/.test(source[i])) i++;
      push("num", source.slice(start, i), line);
    } else if (c === "." && source.startsWith("...", i)) {
      push("punct", "...", line);
      i += 3;
    } else {
      if (c === "{" || c === "(" || c === "[") {
        push("punct", c, line);
        stack.push(c);
      } else if (c === "}" || c === ")" || c === "]") {
        const open = stack.pop();
        if (open === "${" && c === "}") {
          i++;
          templateText();
          continue;
        }
        push("punct", c, line);
      } else {
        push("punct", c, line);
      }
      i++;
    }
  }
  return tokens;
}
