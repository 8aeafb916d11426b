/**
 * The one error type of the model layer.
 */

/** A model that cannot be loaded: `file` is repository-relative, `pointer` is an RFC 6901 pointer into it. */
export class ModelError extends Error {
  constructor(
    readonly file: string,
    readonly pointer: string,
    readonly detail: string,
  ) {
    super(`${file}${pointer ? ` at ${pointer}` : ""}: ${detail}`);
    this.name = "ModelError";
  }
}
