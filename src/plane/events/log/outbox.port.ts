import type { Db } from '../../db/database.js';
import type { EventFrame, NewFrame } from './events.frames.js';
import type { Alongside } from './intake.writer.js';

/**
 * What the event log asks of the notification outbox (document 4 §13): the deliveries of new
 * events are written in the transaction that writes the events, so a crash after the commit loses
 * none and a rolled-back write leaves none. Declared here, implemented by notifications/outbox.ts
 * and given to createEvents by app.ts.
 */
export interface EventOutbox {
  /** Whether new events of the organisation may give deliveries (its enabled rules, cached; `db` loads them). */
  active(orgId: string, db?: Db): Promise<boolean>;
  /** Inside the write's transaction: the deliveries of these new events (their frames at their positions). Returns how many. */
  record(trx: Db, orgId: string, frames: EventFrame[]): Promise<number>;
  /**
   * Ahead of intake's one statement, from the events as sent: the deliveries the statement writes
   * itself for the events it inserts; 'transaction' when they must be planned in the write's
   * transaction (`record`); null when none of them gives one.
   */
  ahead(orgId: string, db: Db, frames: NewFrame[]): Promise<Alongside | 'transaction' | null>;
  /** After the commit of a write that recorded deliveries: wake the senders (once per committed write). */
  committed(): void;
}
