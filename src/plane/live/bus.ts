import { sql } from 'kysely';
import type { Logger } from 'pino';
import type { Database, Db } from '../db/database.js';

/** Channels that carry live frames and session news between plane processes. */
export const channels = {
  audit: 'argus_audit',
  auth: 'argus_auth',
  events: 'argus_events',
  /** a module token changed (rate limit, secret, enabled, deleted): the payload is its id */
  moduleTokens: 'argus_module_tokens',
  /** a sweep's fleet summary and node frames are stored: the payload is its sweep number */
  monitor: 'argus_monitor',
  /**
   * camera rights changed for `{user_id}` (grants) or for everyone of `{org_id}` (a camera's
   * tags, a camera or tag deleted): rights-filtered live streams re-read them before the next frame
   */
  rights: 'argus_rights',
} as const;

/**
 * Counts the rights notices this process has queued. A process's own event frames reach its
 * streams at once, while its rights notice comes back through LISTEN only after them when the
 * machine is busy: a view read before this count last moved is re-read before its next frame
 * (stream.rights.ts), so an event written after a rights change committed here is never filtered
 * by the rights from before it. The count moves when the notice is queued (before the commit): a
 * re-read that races the commit is followed by the notice's own.
 */
let rightsNotices = 0;
export const rightsNoticesQueued = (): number => rightsNotices;

/** Queues a notification; PostgreSQL delivers it when the surrounding transaction commits. */
export async function notify(db: Db, channel: string, payload: string): Promise<void> {
  if (channel === channels.rights) rightsNotices++;
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

/**
 * Several notifications in one statement (one transaction, delivered together and in order).
 * Each payload is a parameter of its own in an array constructor: as one text[] parameter,
 * node-postgres escaped every payload through a regular expression pair (2% of the plane's CPU
 * in bench/plane/intake-single.ts).
 */
export async function notifyMany(db: Db, channel: string, payloads: string[]): Promise<void> {
  if (payloads.length === 1) return notify(db, channel, payloads[0]!);
  const list = sql.join(payloads.map((p) => sql`${p}::text`));
  await sql`select pg_notify(${channel}, p) from unnest(array[${list}]) with ordinality as u(p, n) order by n`.execute(
    db,
  );
}

/**
 * Queues the rights notice of an organisation in the caller's transaction: one per transaction,
 * delivered to every plane process at commit (PostgreSQL folds identical notices of one transaction).
 */
export async function rightsChanged(trx: Db, orgId: string): Promise<void> {
  await notify(trx, channels.rights, JSON.stringify({ org_id: orgId }));
}

/**
 * LISTEN for the whole process. A subscription made while the database is away is retried
 * until it holds; `onConnect` runs after every (re)connection so the subscriber can read what
 * was committed while it was deaf.
 */
export class LiveBus {
  private readonly unlisten: Array<() => Promise<void>> = [];
  private closed = false;

  constructor(
    private readonly database: Database,
    private readonly log: Logger,
    private readonly retryMs = 500,
  ) {}

  subscribe(channel: string, handler: (payload: string) => void, onConnect?: () => void): void {
    const attempt = async () => {
      if (this.closed) return;
      try {
        const stop = await this.database.listen(
          channel,
          (payload) => {
            try {
              handler(payload);
            } catch (err) {
              this.log.error({ err, channel }, 'live frame handler failed');
            }
          },
          onConnect,
        );
        if (this.closed) await stop();
        else this.unlisten.push(stop);
      } catch {
        setTimeout(attempt, this.retryMs).unref();
      }
    };
    void attempt();
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.unlisten.map((u) => u()));
  }
}
