import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { ChannelSender, OutgoingMessage, SendResult } from './senders/sender.js';
import { channelsStore, type ChannelConfig, type ChannelKind, type ChannelRow } from './channels.store.js';
import { deliveriesStore, type ClaimedDelivery } from './deliveries.store.js';
import type { RulesCache } from './rules.cache.js';
import { DELIVERY_WINDOW_MS } from './outbox.js';
import type { SnapshotService } from '../evidence/snapshot.service.js';

/** A channel's settings as its sender gets them: the stored ones and the secret opened. */
export type ChannelSettings = ChannelConfig & { secret?: string | null; password?: string | null };
/** The sender of each channel kind; a kind without one fails its deliveries in words. */
export type SenderMap = Partial<Record<ChannelKind, ChannelSender<ChannelSettings>>>;

const NO_SENDER: Record<ChannelKind, string> = {
  webhook: 'the webhook sender is not configured',
  email: 'the e-mail sender is not configured',
  mqtt: 'the MQTT sender is not configured',
};
const BACKOFF_FIRST_MS = 5_000;
const BACKOFF_MAX_MS = 600_000;

/** The wait after the `attempts`-th failed attempt: 5 s doubling up to 10 min, with jitter (±20%, the cap kept). */
export function backoffMs(attempts: number, random: number): number {
  const d = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, Math.min(attempts - 1, 20)));
  return Math.min(BACKOFF_MAX_MS, Math.round(d * (0.8 + 0.4 * random)));
}

export interface DispatcherOptions {
  /** the plane's public URL, for card links */
  publicUrl: string;
  /** one attempt's bound */
  sendTimeoutMs: number;
  /** how long a claimed delivery is its process's: past it another process may claim it again */
  leaseMs: number;
  random: () => number;
  /** an event's snapshot (evidence): null, messages carry none */
  snapshots: Pick<SnapshotService, 'of' | 'bytes'> | null;
}

/**
 * The largest snapshot an e-mail carries inline; a larger one is only linked. Mail systems refuse
 * messages from 10-25 MB, and base64 adds a third.
 */
export const EMAIL_SNAPSHOT_MAX_BYTES = 5 * 1024 * 1024;

const titleOf = (t: unknown, detector: string): string => {
  if (typeof t === 'string' && t) return t;
  if (t && typeof t === 'object') {
    const o = t as Record<string, unknown>;
    const v = o.en ?? Object.values(o)[0];
    if (typeof v === 'string' && v) return v;
  }
  return detector;
};

/**
 * Sends one claimed delivery through the sender of its channel's kind and records the outcome:
 * sent; failed and due again after the backoff; dead once its 24 h have passed (a test message:
 * at its first failure); a receiver that says the channel is gone (410) disables the channel.
 */
export class Dispatcher {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly senders: SenderMap,
    private readonly cache: RulesCache,
    private readonly opts: DispatcherOptions,
  ) {}

  get leaseMs(): number {
    return this.opts.leaseMs;
  }

  settingsOf(c: ChannelRow): ChannelSettings {
    const open = () => (c.secret_enc === null ? null : this.box.open(c.secret_enc, secretContextOf(c)));
    return c.kind === 'mqtt'
      ? { ...c.config, password: open() }
      : c.kind === 'webhook'
        ? { ...c.config, secret: open() }
        : { ...c.config };
  }

  /**
   * The message of a delivery: the payload of §13 with the event's card link and, when the event
   * has an image attachment, a snapshot link signed now (valid 24 h from this attempt); an e-mail
   * also carries the image inline.
   */
  async messageOf(d: ClaimedDelivery, kind: ChannelKind): Promise<OutgoingMessage> {
    const e = d.event as Record<string, unknown> & { id: string; detector: string };
    const card = new URL(`/events/${e.id}`, this.opts.publicUrl).toString();
    const snaps = this.opts.snapshots;
    const snap = snaps && d.event_id !== null ? await snaps.of(d.org_id, d.event_id) : null;
    // Bytes that cannot be read leave the link alone in the message: the image is not worth a failed attempt.
    const bytes =
      snap && kind === 'email' ? await snaps!.bytes(snap, EMAIL_SNAPSHOT_MAX_BYTES).catch(() => null) : null;
    return {
      dedupeKey: d.dedupe_key,
      payload: {
        dedupe_key: d.dedupe_key,
        rule: d.rule_id === null ? null : { id: d.rule_id, name: d.rule_name },
        event: { ...e, card_url: card },
        snapshot_url: snap?.url ?? null,
      },
      summary: {
        severity: typeof e.severity === 'number' ? e.severity : 0,
        cameraName: typeof e.camera_name === 'string' ? e.camera_name : null,
        detectorTitle: titleOf(e.detector_title, e.detector),
      },
      snapshot: bytes && snap ? { bytes, contentType: snap.contentType } : null,
    };
  }

  /** One attempt: never throws; the outcome is stored. */
  async send(d: ClaimedDelivery, c: ChannelRow): Promise<SendResult> {
    const sender = this.senders[c.kind];
    let result: SendResult;
    if (!sender) result = { ok: false, error: NO_SENDER[c.kind] };
    else {
      try {
        const message = await this.messageOf(d, c.kind);
        result = await sender.send(this.settingsOf(c), message, AbortSignal.timeout(this.opts.sendTimeoutMs));
      } catch (err) {
        result = { ok: false, error: (err as Error).message || 'the sender failed' };
      }
    }
    await this.record(d, c, result);
    return result;
  }

  private async record(d: ClaimedDelivery, c: ChannelRow, r: SendResult): Promise<void> {
    const now = this.clock.now();
    if (r.ok) return deliveriesStore.markSent(this.db, d.id, new Date(now));
    const error = r.error ?? 'the receiver refused the message';
    if (r.disableChannel) {
      await this.db.transaction().execute(async (trx) => {
        if (await channelsStore.disable(trx, c.id, new Date(now))) await this.cache.changed(trx, c.org_id);
        await deliveriesStore.markFailed(trx, d.id, `${error}: the channel is disabled`, null);
      });
      return;
    }
    const last = d.rule_id === null || now >= new Date(d.deadline_at).getTime();
    const next = last ? null : new Date(now + backoffMs(d.attempts, this.opts.random()));
    await deliveriesStore.markFailed(this.db, d.id, error, next);
  }

  /** POST /notification-channels/{id}/test: one message now, its delivery as it ended. */
  async test(c: ChannelRow): Promise<ClaimedDelivery> {
    const now = this.clock.now();
    const id = uuidv7({ msecs: now });
    const occurred = new Date(now).toISOString();
    const event = {
      seq: 0,
      id: uuidv7({ msecs: now }),
      occurred_at: occurred,
      ended_at: null,
      org_id: c.org_id,
      camera_id: null,
      camera_name: null,
      node_id: null,
      node_name: null,
      detector: 'argus.notification_test',
      detector_title: 'Test message',
      category: 'system',
      severity: 1,
      template_id: null,
      interval: false,
      confidence: null,
      subject_type: null,
      subject_ref: null,
      ext_id: null,
      list_values: [],
      starred: false,
      updated: false,
      deleted: false,
    };
    await deliveriesStore.insert(
      this.db,
      [
        {
          id,
          dedupe_key: `test-${id}`,
          event_id: null,
          rule_id: null,
          channel_id: c.id,
          org_id: c.org_id,
          rule_name: null,
          event: JSON.stringify(event),
        },
      ],
      new Date(now),
      new Date(now + DELIVERY_WINDOW_MS),
    );
    const claimed = await deliveriesStore.claimOne(this.db, id, new Date(now + this.opts.leaseMs));
    await this.send(claimed, c);
    return (await deliveriesStore.get(this.db, id)) as ClaimedDelivery;
  }
}

/** The sealed secret's binding: a ciphertext copied to another row or field does not open. */
export const secretContext = (id: string, kind: ChannelKind) =>
  `notification_channel:${id}:${kind === 'mqtt' ? 'password' : 'secret'}`;
const secretContextOf = (c: ChannelRow) => secretContext(c.id, c.kind);
