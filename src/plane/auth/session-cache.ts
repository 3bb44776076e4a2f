import type { SessionUserRow } from './auth.store.js';

/**
 * Live sessions recently confirmed by the database, so an authenticated request costs no
 * round trip of its own. Correctness rests on invalidation, not on the TTL: every revocation
 * (logout, eviction, disable/demote/delete, key rotation) drops entries in the process that
 * makes it, and its NOTIFY drops them in every other process; a LISTEN reconnect clears all.
 * The short TTL only bounds what a notification lost with its connection could leave behind.
 */
export class SessionCache {
  private readonly entries = new Map<string, { row: SessionUserRow; kid: string; at: number }>();

  constructor(
    private readonly ttlMs = 2000,
    private readonly maxEntries = 50_000,
  ) {}

  get(sid: string, kid: string, now: number): SessionUserRow | undefined {
    const e = this.entries.get(sid);
    if (!e) return undefined;
    if (e.kid !== kid || now - e.at > this.ttlMs || e.row.expires_at.getTime() <= now) {
      this.entries.delete(sid);
      return undefined;
    }
    return e.row;
  }

  put(row: SessionUserRow, kid: string, now: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(row.session_id, { row, kid, at: now });
  }

  dropSession(sid: string): void {
    this.entries.delete(sid);
  }

  dropUser(userId: string): void {
    for (const [sid, e] of this.entries) if (e.row.user_id === userId) this.entries.delete(sid);
  }

  clear(): void {
    this.entries.clear();
  }
}
