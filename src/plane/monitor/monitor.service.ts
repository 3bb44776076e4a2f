import type { FastifyReply, FastifyRequest } from 'fastify';
import { sseComment, sseFrame } from '../../common/sse.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { LiveStreams } from '../live/sse.js';
import { Audience } from './audience.js';
import { replayed, type FleetMonitor } from './fleet.service.js';
import type { ProcessSampler, ProcessSample } from './process-sampler.js';

/** A resume point as sent: an integer of at most 15 digits, else null. */
function parseSeq(v: string | undefined): number | null {
  return v !== undefined && /^\d{1,15}$/.test(v) ? Number(v) : null;
}

/** The Last-Event-ID header: unparseable counts as 0 (document 1, monitor/nodes). */
function headerSeq(req: FastifyRequest): number | undefined {
  const h = req.headers['last-event-id'];
  if (typeof h !== 'string' || h === '') return undefined;
  return parseSeq(h.trim()) ?? 0;
}

/** Shared SSE rule 5: a resume point above the current number starts over from zero. */
const resumeFrom = (point: number, current: number) => (point > current ? 0 : point);

const text = (s: string) => Buffer.from(s);
const REBUILT = sseComment('snapshot-rebuilt');
const sampleSse = (s: ProcessSample) => sseFrame(JSON.stringify(s), { id: s.seq });

/**
 * The five telemetry endpoints of document 1, all from memory: the fleet monitor's summary and
 * snapshot, and the process sampler's ring. Streams take a slot of the process's live capacity.
 */
export class MonitorService {
  private readonly summaryAudience = new Audience();
  private readonly nodesAudience = new Audience();
  private readonly planeAudience = new Audience();

  constructor(
    private readonly fleet: FleetMonitor,
    private readonly sampler: ProcessSampler,
    private readonly streams: LiveStreams,
  ) {
    fleet.onChange((c) => {
      const summary = text(fleet.summaryFrame());
      this.summaryAudience.deliver(summary, c.summary.seq - 1, c.summary.seq, () => summary);
      if (!this.nodesAudience.size) return;
      const batch = text(c.frames.map((f) => f.sse).join(''));
      this.nodesAudience.deliver(batch, c.previousFrame, fleet.frameHead, (sent) =>
        text(REBUILT + this.snapshotAbove(sent)),
      );
    });
    sampler.onSample((s) => {
      this.planeAudience.deliver(text(sampleSse(s)), s.seq - 1, s.seq, (sent) =>
        text(sampler.after(sent).map(sampleSse).join('')),
      );
    });
  }

  summaryJson(): string {
    return this.fleet.summaryJson;
  }
  planeJson(): string {
    return this.sampler.envelope();
  }

  /** One frame per sweep; the current summary first when it is newer than the resume point (header only). */
  summaryStream(req: FastifyRequest, reply: FastifyReply, p: Principal): void {
    const seq = this.fleet.summary.seq;
    const resume = resumeFrom(headerSeq(req) ?? 0, seq);
    const stream = this.streams.start(req, reply, p);
    if (seq > resume) stream.sendShared(text(replayed(this.fleet.summaryFrame())));
    this.summaryAudience.join(stream, seq);
  }

  /** The current frame of each node above the resume point (header only) in number order, then live. */
  nodesStream(req: FastifyRequest, reply: FastifyReply, p: Principal): void {
    const head = this.fleet.frameHead;
    const resume = resumeFrom(headerSeq(req) ?? 0, head);
    const stream = this.streams.start(req, reply, p);
    const replay = this.snapshotAbove(resume);
    if (replay) stream.sendShared(text(replay));
    this.nodesAudience.join(stream, head);
  }

  /** Everything newer than the resume point (header, else `last_event_id`) from the ring, then one frame per sample. */
  planeStream(req: FastifyRequest, reply: FastifyReply, p: Principal, q: { last_event_id?: string }): void {
    let point = headerSeq(req);
    if (point === undefined && q.last_event_id !== undefined) {
      const v = parseSeq(q.last_event_id);
      if (v === null) throw errors.badRequest('bad_last_event_id');
      point = v;
    }
    const last = this.sampler.last;
    const resume = resumeFrom(point ?? 0, last);
    const stream = this.streams.start(req, reply, p);
    const replay = this.sampler
      .after(resume)
      .map((s) => replayed(sampleSse(s)))
      .join('');
    if (replay) stream.sendShared(text(replay));
    this.planeAudience.join(stream, last);
  }

  /** Counts of open streams per feed (tests, benches). */
  get audiences(): { summary: number; nodes: number; plane: number } {
    return { summary: this.summaryAudience.size, nodes: this.nodesAudience.size, plane: this.planeAudience.size };
  }

  private snapshotAbove(seq: number): string {
    let out = '';
    for (const f of this.fleet.frames) if (f.seq > seq) out += replayed(f.sse);
    return out;
  }
}
