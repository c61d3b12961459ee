/**
 * Confinement of a file's URIs to the model's folder, by name: the rule
 * every reader (file system, network, the caller's `readFile`) applies
 * before it touches anything.
 *
 * @module
 */

/** A refusal or failure to read, as the end of a sentence ("… : <reason>"). */
export class ReadRefusal extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "ReadRefusal";
  }
}

/**
 * The relative reference a glTF URI names inside the model's folder, with
 * every segment percent-decoded, normalized (`.` and `x/..` removed) and
 * encoded again, so that resolving it against the folder's URL cannot
 * leave the folder. Refuses, with the reason: a scheme (`file:`, `http:`,
 * any other), an absolute or network path (`/x`, `//host/x`), a backslash,
 * a drive letter or NUL (also when percent-encoded), a query or fragment,
 * invalid percent-encoding, and a `..` that climbs above the folder.
 */
export function confineUri(uri: string): string {
  if (typeof uri !== "string" || uri.length === 0) throw new ReadRefusal("the URI is empty");
  if (/^[a-z][a-z0-9+.-]*:/i.test(uri)) {
    throw new ReadRefusal("only URIs relative to the model's folder are read");
  }
  if (/[?#]/.test(uri)) throw new ReadRefusal("a URI with a query or fragment is not read");
  let decoded: string;
  try {
    decoded = decodeURIComponent(uri);
  } catch {
    throw new ReadRefusal("the URI's percent-encoding is invalid");
  }
  if (/[\\:\0]/.test(decoded)) {
    throw new ReadRefusal("a backslash, colon or NUL in a URI is not read");
  }
  if (decoded.startsWith("/")) {
    throw new ReadRefusal("absolute paths are not read, only paths inside the model's folder");
  }
  const segments: string[] = [];
  for (const segment of decoded.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      if (segments.length === 0) throw new ReadRefusal("the path leaves the model's folder");
      segments.pop();
    } else segments.push(segment);
  }
  if (segments.length === 0) throw new ReadRefusal("the URI names the model's folder itself");
  return segments.map(encodeURIComponent).join("/");
}

/**
 * The URL of `uri` inside the folder of `model` (a `file:` or `http(s):`
 * URL), after {@linkcode confineUri}; checked again as a URL prefix.
 */
export function siblingUrl(model: URL, uri: string): URL {
  const folder = new URL(".", model);
  folder.search = folder.hash = "";
  const target = new URL(confineUri(uri), folder);
  if (target.origin !== folder.origin || !target.href.startsWith(folder.href)) {
    throw new ReadRefusal("the path leaves the model's folder");
  }
  return target;
}
