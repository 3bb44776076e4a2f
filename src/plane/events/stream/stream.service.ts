import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../../common/clock.js';
import type { Principal } from '../../http/principal.js';
import { LiveStreams, sseEvent, type LiveStream } from '../../live/sse.js';
import { cameraScope, type CameraScope } from '../../rights/camera-rights.js';
import { frameJson, type EventFrame } from '../log/events.frames.js';
import { cursorOf, parseEventCursor } from '../log/cursor.js';

export { parseEventCursor } from '../log/cursor.js';
import type { EventRing } from './stream.ring.js';
import type { RightsView, StreamRights } from './stream.rights.js';

const DAY_MS = 86_400_000;
// Frames an audience may hold while its rights are re-read; past it its streams resync.
const MAX_QUEUED = 4096;
// An audience writes to its sockets at most this often: frames of a busier stream wait up to
// this long and leave together (one write per socket per round, not per intake batch). At an
// idle moment a frame leaves in the same turn.
const WRITE_EVERY_MS = 25;

/** Milliseconds from `now` to the next midnight UTC. */
export function untilMidnightUtc(now: number): number {
  return DAY_MS - (((now % DAY_MS) + DAY_MS) % DAY_MS);
}

// One JSON encoding per frame, shared by every stream that gets it.
const encode = frameJson;

// The SSE text of a frame (`id:` and `data:` lines), made once per frame for every audience.
const texts = new WeakMap<EventFrame, { day: string | null; text: string }>();
function frameText(f: EventFrame, day: string | null): string {
  const t = texts.get(f);
  if (t && t.day === day) return t.text;
  const text = sseEvent(cursorOf(day, f.seq), encode(f));
  texts.set(f, { day, text });
  return text;
}

interface Member {
  stream: LiveStream;
  after: number;
}

/**
 * The streams that see the same frames (one camera scope): the rights check runs once per frame
 * for all of them, not once per stream. While an operator's rights are re-read the frames wait
 * and are then checked against the new rights, so a frame of a camera no longer granted is
 * never sent.
 */
class Audience {
  readonly members = new Set<Member>();
  /** streams holding this audience: members and streams still starting */
  refs = 0;
  private readonly queue: EventFrame[] = [];
  private waiting = false;
  /** frames passed for this audience in this turn of the event loop, in seq order */
  private tick: Array<{ seq: number; text: string }> = [];
  private flushing = false;
  private lastWrite = 0;
  private unsubscribe: () => void = () => {};

  constructor(
    private readonly scope: CameraScope,
    readonly view: RightsView | null,
    private readonly ring: EventRing,
    readonly release: () => void,
  ) {
    this.unsubscribe = ring.subscribe({
      frame: (f) => this.frame(f),
      purgeDay: () => {
        for (const m of [...this.members]) m.stream.end('resync-required');
      },
    });
  }

  close(): void {
    this.unsubscribe();
    this.release();
  }

  /** Whether `f` passes the scope; `set` is the operator's current cameras (granted scope). */
  visible(f: EventFrame, set: Set<string> | null): boolean {
    if (this.scope.kind !== 'all' && f.org_id !== this.scope.orgId) return false;
    return !this.view || (f.camera_id !== null && set!.has(f.camera_id));
  }

  private frame(f: EventFrame): void {
    if (!this.view) {
      this.send(f);
      return;
    }
    const set = this.queue.length ? null : this.view.current();
    if (set) {
      if (this.visible(f, set)) this.send(f);
      return;
    }
    if (this.queue.length >= MAX_QUEUED) {
      for (const m of [...this.members]) m.stream.end('resync-required');
      return;
    }
    this.queue.push(f);
    if (!this.waiting) {
      this.waiting = true;
      this.view.whenCurrent(() => this.flush());
    }
  }

  private flush(): void {
    this.waiting = false;
    while (this.queue.length) {
      const set = this.view!.current();
      if (!set) {
        this.waiting = true;
        this.view!.whenCurrent(() => this.flush());
        return;
      }
      const f = this.queue.shift()!;
      if (this.visible(f, set)) this.send(f);
    }
  }

  private send(f: EventFrame): void {
    if (this.scope.kind !== 'all' && f.org_id !== this.scope.orgId) return;
    this.tick.push({ seq: f.seq, text: frameText(f, this.ring.purgeDay) });
    if (this.flushing) return;
    this.flushing = true;
    const wait = this.lastWrite + WRITE_EVERY_MS - performance.now();
    if (wait <= 0) setImmediate(() => this.flush_());
    else setTimeout(() => this.flush_(), wait);
  }

  /**
   * The frames of this round go out as one buffer, encoded once and written to every member
   * (one write per socket per round). A member that joined during the round gets only the
   * frames after its replay.
   */
  private flush_(): void {
    this.flushing = false;
    const frames = this.tick;
    this.tick = [];
    if (!frames.length) return;
    this.lastWrite = performance.now();
    let whole: Buffer | null = null;
    for (const m of this.members) {
      if (m.stream.closed) continue;
      if (m.stream.lagging) {
        m.stream.end('resync-required');
        continue;
      }
      if (m.after < frames[0]!.seq)
        m.stream.sendShared(
          (whole ??= Buffer.from(frames.length === 1 ? frames[0]!.text : frames.map((x) => x.text).join(''))),
        );
      else {
        const rest = frames.filter((x) => x.seq > m.after);
        if (rest.length) m.stream.sendShared(Buffer.from(rest.map((x) => x.text).join('')));
      }
    }
  }
}

/**
 * GET /api/v1/events/stream (document 2, live stream): replay from the ring after the cursor,
 * then live; every frame passes the camera-rights rule of the caller; debug frames included.
 * Terminal `: resync-required` for a damaged or future cursor, one evicted from the ring, a
 * changed purge day, or a lagging subscriber. Ends at midnight UTC and at session expiry.
 */
export class EventStreamService {
  private readonly audiences = new Map<string, Audience>();

  constructor(
    private readonly clock: Clock,
    private readonly ring: EventRing,
    private readonly streams: LiveStreams,
    private readonly rights: StreamRights,
  ) {}

  async stream(
    req: FastifyRequest,
    reply: FastifyReply,
    p: Principal,
    q: { org?: string; last_event_id?: string },
  ): Promise<void> {
    const scope = cameraScope(p, q.org);
    const resume = LiveStreams.resumePoint(req, q.last_event_id);
    if (!this.ring.isReady) await this.ring.settle();
    const audience = await this.audience(scope);
    let stream: LiveStream;
    try {
      stream = this.streams.start(req, reply, p);
    } catch (err) {
      this.leave(audience, null);
      throw err;
    }
    // The purge-day route changes at midnight UTC: every stream ends then and reconnects.
    const midnight = setTimeout(() => stream.end(), Math.min(untilMidnightUtc(this.clock.now()), 2 ** 31 - 1));
    midnight.unref();
    stream.addTimer(midnight);

    let from: number | null = null;
    if (resume !== undefined) {
      const c = parseEventCursor(resume);
      if (c && c.day === this.ring.purgeDay && c.seq > this.ring.head) await this.ring.settle();
      if (!c || c.day !== this.ring.purgeDay || c.seq > this.ring.head) {
        this.leave(audience, null);
        stream.end('resync-required');
        return;
      }
      from = c.seq;
    }
    const set = audience.view
      ? (audience.view.current() ?? (await audience.view.load(), audience.view.current()))
      : null;
    if (stream.closed || (audience.view && !set)) {
      this.leave(audience, null);
      stream.end('resync-required');
      return;
    }
    // From here to joining nothing awaits, so no frame falls between the replay and the live frames.
    const replay = from === null ? [] : this.ring.after(from);
    if (!replay) {
      this.leave(audience, null);
      stream.end('resync-required');
      return;
    }
    for (const f of replay) {
      if (!audience.visible(f, set)) continue;
      stream.comment('delivery=replay');
      stream.sendEncoded(cursorOf(this.ring.purgeDay, f.seq), encode(f));
    }
    const member: Member = { stream, after: this.ring.head };
    audience.members.add(member);
    stream.onClose(() => this.leave(audience, member));
  }

  /** The audience of a scope, made on first use (an operator's rights are loaded first). */
  private async audience(scope: CameraScope): Promise<Audience> {
    const key =
      scope.kind === 'all'
        ? 'all'
        : scope.kind === 'org'
          ? `org:${scope.orgId}`
          : `user:${scope.userId}:${scope.orgId}`;
    const held = scope.kind === 'granted' ? await this.rights.acquire(scope) : null;
    let a = this.audiences.get(key);
    if (a) held?.release();
    else {
      a = new Audience(scope, held?.view ?? null, this.ring, held?.release ?? (() => {}));
      this.audiences.set(key, a);
    }
    a.refs++;
    return a;
  }

  /** Gives back one stream's hold on its audience (a member, once it joined); the last one closes it. */
  private leave(a: Audience, member: Member | null): void {
    if (member) a.members.delete(member);
    if (--a.refs > 0) return;
    a.close();
    for (const [k, v] of this.audiences) if (v === a) this.audiences.delete(k);
  }
}
