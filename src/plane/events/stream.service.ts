import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../common/clock.js';
import type { Principal } from '../http/principal.js';
import { LiveStreams } from '../live/sse.js';
import { cameraScope } from '../rights/camera-rights.js';
import type { EventFrame } from './events.frames.js';
import type { EventRing } from './stream.ring.js';
import type { RightsView, StreamRights } from './stream.rights.js';

const DAY_MS = 86_400_000;

/** `g:<n>`, or `d<purge-day>:<n>` once a purge day applies; null for anything else. */
export function parseEventCursor(text: string): { day: string | null; seq: number } | null {
  const m = /^(?:g|d(\d{8})):(\d{1,15})$/.exec(text);
  return m ? { day: m[1] ?? null, seq: Number(m[2]) } : null;
}

export function cursorOf(day: string | null, seq: number): string {
  return day ? `d${day}:${seq}` : `g:${seq}`;
}

/** Milliseconds from `now` to the next midnight UTC. */
export function untilMidnightUtc(now: number): number {
  return DAY_MS - (((now % DAY_MS) + DAY_MS) % DAY_MS);
}

/**
 * GET /api/v1/events/stream (document 2, live stream): replay from the ring after the cursor,
 * then live; every frame passes the camera-rights rule of the caller; debug frames included.
 * Terminal `: resync-required` for a damaged or future cursor, one evicted from the ring, a
 * changed purge day, or a lagging subscriber. Ends at midnight UTC and at session expiry.
 */
export class EventStreamService {
  constructor(private readonly clock: Clock, private readonly ring: EventRing, private readonly streams: LiveStreams,
    private readonly rights: StreamRights) {}

  async stream(req: FastifyRequest, reply: FastifyReply, p: Principal, q: { org?: string; last_event_id?: string }): Promise<void> {
    const scope = cameraScope(p, q.org);
    const resume = LiveStreams.resumePoint(req, q.last_event_id);
    if (!this.ring.isReady) await this.ring.settle();
    const held = scope.kind === 'granted' ? await this.rights.acquire(scope) : null;
    let stream;
    try { stream = this.streams.start(req, reply, p); } catch (err) { held?.release(); throw err; }
    if (held) stream.onClose(held.release);
    // The purge-day route changes at midnight UTC: every stream ends then and reconnects.
    const midnight = setTimeout(() => stream.end(), Math.min(untilMidnightUtc(this.clock.now()), 2 ** 31 - 1));
    midnight.unref();
    stream.addTimer(midnight);

    let replay: EventFrame[] = [];
    if (resume !== undefined) {
      const c = parseEventCursor(resume);
      if (c && c.day === this.ring.purgeDay && c.seq > this.ring.head) await this.ring.settle();
      const after = c && c.day === this.ring.purgeDay && c.seq <= this.ring.head ? this.ring.after(c.seq) : null;
      if (!after) { stream.end('resync-required'); return; }
      replay = after;
    }

    const orgOk = (f: EventFrame) => scope.kind === 'all' || f.org_id === scope.orgId;
    const view: RightsView | null = held?.view ?? null;
    // Frames wait here while the operator's rights are being re-read.
    const queue: Array<[EventFrame, boolean]> = [];
    const send = (f: EventFrame, replayed: boolean, set: Set<string> | null) => {
      if (!orgOk(f)) return;
      if (view && (f.camera_id === null || !set!.has(f.camera_id))) return;
      if (replayed) stream.comment('delivery=replay');
      stream.send(cursorOf(this.ring.purgeDay, f.seq), f);
    };
    const flush = () => {
      while (queue.length && !stream.closed) {
        const set = view!.current();
        if (!set) { view!.whenCurrent(flush); return; }
        const [f, replayed] = queue.shift()!;
        send(f, replayed, set);
      }
    };
    const deliver = (f: EventFrame, replayed: boolean) => {
      if (!view) { send(f, replayed, null); return; }
      const set = queue.length ? null : view.current();
      if (set) { send(f, replayed, set); return; }
      if (!queue.length) view.whenCurrent(flush);
      queue.push([f, replayed]);
    };

    for (const f of replay) deliver(f, true);
    const unsubscribe = this.ring.subscribe({
      frame: (f) => {
        if (stream.lagging || queue.length > 4096) { stream.end('resync-required'); return; }
        deliver(f, false);
      },
      purgeDay: () => stream.end('resync-required'),
    });
    stream.onClose(unsubscribe);
  }
}
