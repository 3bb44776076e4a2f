/**
 * A refusal of the plane: its HTTP status, its catalogue code (`error` of the envelope) and the
 * whole body (some codes add fields). error-words.ts turns it into a sentence; pages test `code`.
 */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly body: unknown,
  ) {
    super(`${status} ${code}`);
  }
}
