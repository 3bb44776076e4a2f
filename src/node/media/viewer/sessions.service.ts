import type { TicketClaims } from '../../grants/session-keys.js';

/** A player that has not fetched anything for this long has left (live players reload every segment). */
export const SESSION_IDLE_MS = 10_000;

export interface ViewerSession {
  id: string;
  stream: string;
  protocol: string;
  client_ip: string;
  user_agent: string;
  sub: string;
  subject_kind: string | null;
  subject_name: string | null;
  camera_id: string | null;
  started_ms: number;
  last_seen_ms: number;
}

/**
 * Live viewer sessions, keyed by the session id their ticket carries. A session exists while
 * its player keeps fetching; a ticket still valid after its session went idle starts it again.
 */
export class ViewerSessions {
  private readonly sessions = new Map<string, ViewerSession>();
  /** Sessions held by an open connection (a WebSocket viewer): never idle while it is open. */
  private readonly held = new Set<string>();

  constructor(
    private readonly now: () => number,
    private readonly idleMs = SESSION_IDLE_MS,
  ) {}

  touch(claims: TicketClaims, client: { ip: string; userAgent: string }): void {
    if (!claims.sid) return;
    const now = this.now();
    const s = this.sessions.get(claims.sid);
    if (s && now - s.last_seen_ms <= this.idleMs) {
      s.last_seen_ms = now;
      return;
    }
    this.sessions.set(claims.sid, {
      id: claims.sid,
      stream: claims.stream,
      protocol: 'hls',
      client_ip: client.ip,
      user_agent: client.userAgent.slice(0, 512),
      sub: claims.sub,
      subject_kind: claims.subject_kind ?? null,
      subject_name: claims.subject_name ?? null,
      camera_id: claims.camera_id ?? null,
      started_ms: now,
      last_seen_ms: now,
    });
  }

  /**
   * A session that lasts as long as its connection (protocol `ws`): listed and counted as a viewer
   * until the returned function is called when the socket closes.
   */
  open(s: Omit<ViewerSession, 'started_ms' | 'last_seen_ms'>): () => void {
    const now = this.now();
    this.sessions.set(s.id, { ...s, user_agent: s.user_agent.slice(0, 512), started_ms: now, last_seen_ms: now });
    this.held.add(s.id);
    return () => {
      if (this.held.delete(s.id)) this.sessions.delete(s.id);
    };
  }

  list(): ViewerSession[] {
    this.prune();
    return [...this.sessions.values()].map((s) => ({ ...s }));
  }

  /** Viewers of `stream` that are still there. */
  count(stream: string): number {
    this.prune();
    let n = 0;
    for (const s of this.sessions.values()) if (s.stream === stream) n++;
    return n;
  }

  private prune(): void {
    const cutoff = this.now() - this.idleMs;
    for (const [id, s] of this.sessions) if (s.last_seen_ms < cutoff && !this.held.has(id)) this.sessions.delete(id);
  }
}
