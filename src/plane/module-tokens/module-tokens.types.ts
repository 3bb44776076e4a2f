// Types of module tokens that other domains use; apart from the store, which only this domain imports.

/** What the intake needs of the token that authenticates a request. */
export interface ModuleTokenCredential {
  id: string;
  org_id: string;
  name: string;
  rate_limit: number | null;
  last_used_at: Date | null;
}
