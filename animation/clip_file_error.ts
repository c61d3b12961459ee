/**
 * {@linkcode ClipFileError}: a compact clip file (`clip_file.ts`) that
 * cannot be loaded.
 *
 * @module
 */

/**
 * A compact clip file that is not valid, or not for the skeleton it is
 * loaded for: thrown before anything is allocated in the core. The message
 * starts with the byte offset and the field.
 */
export class ClipFileError extends RangeError {
  /** The field at fault, as in `docs/clip_file_format.md` (e.g. `clips[2].image.tracks[5].values`). */
  readonly field: string;
  /** Byte offset of the field in the file. */
  readonly byteOffset: number;

  /** Creates the error; the message is `clip file: byte <offset>: <field>: <message>`. */
  constructor(field: string, byteOffset: number, message: string) {
    super(`clip file: byte ${byteOffset}: ${field}: ${message}`);
    this.name = "ClipFileError";
    this.field = field;
    this.byteOffset = byteOffset;
  }
}
