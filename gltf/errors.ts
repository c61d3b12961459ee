/**
 * {@linkcode GltfImportError}: the one error class of the glTF loader.
 *
 * @module
 */

/** Options of {@linkcode GltfImportError}. */
export interface GltfImportErrorOptions extends ErrorOptions {
  /**
   * JSON pointer (RFC 6901) to the offending object of the file, such as
   * `/accessors/3` or `/skins/0/joints/5`; `""` for the file as a whole.
   */
  readonly pointer?: string;
}

/**
 * A glTF file could not be read or holds data that cannot be imported.
 * The message is one sentence naming the file, the JSON pointer (when the
 * problem is inside the file) and what is wrong, on one line: control
 * characters from the file (a name, the token JSON.parse stopped at) are
 * escaped, `\n`, `\r` and `\t` as in JSON, others as `\u00XX`.
 */
export class GltfImportError extends Error {
  /** The file (path, URL or the caller's name for the bytes). */
  readonly file: string;
  /** JSON pointer to the offending object, or `""` for the file as a whole. */
  readonly pointer: string;

  /**
   * Creates the error; the message is `"<file> at <pointer>: <problem>"`, or
   * `"<file>: <problem>"` without a pointer.
   *
   * @param file Names the input in the message.
   * @param message What is wrong, as one plain sentence.
   * @param options `pointer`, and the standard `cause`.
   */
  constructor(file: string, message: string, options?: GltfImportErrorOptions) {
    const pointer = options?.pointer ?? "";
    super(oneLine(`${file}${pointer ? ` at ${pointer}` : ""}: ${message}`), options);
    this.name = "GltfImportError";
    this.file = file;
    this.pointer = pointer;
  }
}

const SHORT_ESCAPES: Readonly<Record<string, string>> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/** `text` with its control and line-separator characters escaped. */
function oneLine(text: string): string {
  return text.replace(
    // deno-lint-ignore no-control-regex -- control characters are what it escapes
    /[\u0000-\u001f\u007f\u2028\u2029]/g,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}
