/**
 * `deno task serve` run as a command: a bad flag and a busy port are one
 * line on standard error (no stack trace), said before the page is
 * bundled, with exit codes 2 and 1; the busy port's line suggests `--port`.
 */
import { assert, assertEquals, assertMatch } from "@std/assert";

const DENO = Deno.execPath();
const ROOT = new URL("../", import.meta.url).pathname;

async function serve(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { code, stdout, stderr } = await new Deno.Command(DENO, {
    args: ["task", "--quiet", "serve", ...args],
    cwd: ROOT,
    env: { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);
  return { code, out: text(stdout), err: text(stderr) };
}

function assertOneLine(err: string, pattern: RegExp): void {
  const lines = err.trimEnd().split("\n");
  assertEquals(lines.length, 1, err);
  assertMatch(lines[0], pattern);
  assert(!/\bat .*:\d+:\d+/.test(err), `a stack trace: ${err}`);
}

Deno.test("serve refuses a bad flag in one line, before bundling", async () => {
  for (
    const [args, pattern] of [
      [["--bogus"], /^error: Unknown option '--bogus' \(usage: deno task serve/],
      [["--port", "abc"], /^error: --port: expected a port number from 0 to 65535, got "abc"/],
      [["--port", "-3"], /^error: --port: expected a port number from 0 to 65535, got "-3"/],
      [["--port", "70000"], /^error: --port: expected a port number/],
    ] as const
  ) {
    const { code, out, err } = await serve(...args);
    assertEquals([code, out], [2, ""], args.join(" "));
    assertOneLine(err, pattern);
  }
});

Deno.test("serve on a busy port says so in one line and suggests --port", async () => {
  // The test holds no network permission: a child process holds the port.
  const holder = new Deno.Command(DENO, {
    args: [
      "eval",
      "const l = Deno.listen({ hostname: '127.0.0.1', port: 0 }); console.log(l.addr.port);" +
      " for await (const c of l) c.close();",
    ],
    env: { DENO_NO_UPDATE_CHECK: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  try {
    const reader = holder.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let first = "";
    while (!first.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      first += value;
    }
    reader.releaseLock();
    const port = Number(first.trim());
    assert(Number.isInteger(port) && port > 0, `the holder's port: "${first}"`);
    const { code, out, err } = await serve("--port", String(port));
    assertEquals([code, out], [1, ""]);
    assertOneLine(
      err,
      new RegExp(`^error: port ${port} is in use on 127\\.0\\.0\\.1: .*--port N$`),
    );
  } finally {
    holder.kill();
    await holder.status;
    await holder.stdout.cancel().catch(() => {});
  }
});
