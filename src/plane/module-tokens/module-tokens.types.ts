// Types of module tokens that other domains use; apart from the store, which only this domain imports.

/** What the intake needs of the token that authenticates a request. */
export interface ModuleTokenCredential {
  id: string;
  org_id: string;
  name: string;
  rate_limit: number | null;
  last_used_at: Date | null;
  /**
   * The secret's SHA-256 when the credential came from this process's cache
   * (ModuleTokensService.authenticateCached) rather than from the database for this request:
   * whatever accepts events on it checks, in its own statement, that a token of this id and hash
   * is still enabled (document 1: a disabled, rotated or deleted token stops accepting events
   * immediately, in every plane process).
   */
  secret_sha256?: Uint8Array;
}

/** A token as the statement that accepted events on it found it (module-tokens.store.ts bySecret's columns). */
export interface ModuleTokenState {
  rate_limit: number | null;
  last_used_at: Date | null;
}
