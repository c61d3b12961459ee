/**
 * What the command-line examples (`deno task demo`, `deno task serve`)
 * share in reading their arguments with `node:util`'s `parseArgs`: values
 * that start with a dash, and its errors as one line.
 *
 * @module
 */

/**
 * `--count -3` as `--count=-3` for the options in `valued` (those that take
 * a value): `parseArgs` would take `-3` for an option and say only that the
 * argument "is ambiguous"; joined, the value reaches the option's own check
 * and its message.
 */
export function joinDashValues(args: readonly string[], valued: readonly string[]): string[] {
  const joined: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const next = args[i + 1];
    if (valued.includes(args[i]) && next?.startsWith("-") && !next.startsWith("--")) {
      joined.push(`${args[i]}=${next}`), i++;
    } else joined.push(args[i]);
  }
  return joined;
}

/**
 * A `parseArgs` error as one line: an unknown option without Node's second
 * sentence (how to pass a positional that starts with a dash).
 */
export function argsErrorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.match(/^Unknown option '[^']*'/)?.[0] ?? message.split("\n")[0];
}
