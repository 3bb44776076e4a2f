/**
 * An error that the HTTP layer renders as the spec's envelope `{error: code, ...extra}`.
 * Each program keeps its own catalogue of factories (errors.ts); this is only the shape.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(code);
    this.name = 'ApiError';
  }

  body(): Record<string, unknown> {
    return { error: this.code, ...this.extra };
  }
}
