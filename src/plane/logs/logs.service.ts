import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import {
  LOG_PAGE_DEFAULT,
  RING_LEVELS,
  compileFilter,
  type LogEntry,
  type LogFilter,
  type LogRing,
  type RingLevel,
} from '../../common/log-ring.js';
import type { LogLevel, PlaneConfig } from '../config/config.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { LiveStreams } from '../live/sse.js';

export interface PlaneLogPage {
  head_seq: number;
  capacity: number;
  capture_level: RingLevel;
  capture_source: string;
  capture_environment_override: boolean;
  entries: LogEntry[];
}

/** Where the capture level comes from: the environment variable that owns it, else the settings file. */
export function captureSource(config: Pick<PlaneConfig, 'logLevelSource' | 'logLevelEnv' | 'configFile'>): string {
  if (config.logLevelSource === 'environment') return `environment ${config.logLevelEnv ?? 'RUST_LOG'}`;
  return `settings file ${config.configFile ?? 'plane.toml'} [logging] minimum_level`;
}

/**
 * The control-plane log (document 1, superadmin only): pages and the live tail of the ring the
 * plane's logger feeds, and the capture level, which the settings change live unless the
 * environment (RUST_LOG / ARGUS_LOG) owns it.
 */
export class PlaneLogService {
  constructor(
    private readonly ring: LogRing,
    private readonly log: Logger,
    private readonly config: Pick<PlaneConfig, 'logLevelSource' | 'logLevelEnv' | 'configFile'>,
    private readonly streams: LiveStreams,
  ) {}

  /** The level pino admits, and so the ring (pino's `trace` counts as debug). */
  get captureLevel(): RingLevel {
    const level = this.log.level;
    if ((RING_LEVELS as readonly string[]).includes(level)) return level as RingLevel;
    return level === 'fatal' ? 'error' : 'debug';
  }

  get environmentOverride(): boolean {
    return this.config.logLevelSource === 'environment';
  }

  page(q: LogFilter & { after?: number; limit?: number }): PlaneLogPage {
    return {
      head_seq: this.ring.head,
      capacity: this.ring.capacity,
      capture_level: this.captureLevel,
      capture_source: captureSource(this.config),
      capture_environment_override: this.environmentOverride,
      entries: this.ring.page(q, q.after ?? 0, q.limit ?? LOG_PAGE_DEFAULT),
    };
  }

  /**
   * Changes what is captured, at once (every child logger that did not set its own level follows
   * the root). Refused with 409 rust_log_override while the environment owns the level.
   */
  /** The level the plane logs and captures at now. */
  level(): string {
    return this.log.level;
  }

  setCaptureLevel(level: LogLevel): void {
    if (this.environmentOverride) throw errors.rustLogOverride();
    this.log.level = level;
  }

  /**
   * The live tail: matching entries above the resume point oldest first, then live ones. A
   * resume point above the head (an earlier process, or nonsense) or unparseable counts as 0:
   * a full replay (document 1, shared SSE rules).
   */
  stream(req: FastifyRequest, reply: FastifyReply, p: Principal, q: LogFilter & { last_event_id?: string }): void {
    const raw = LiveStreams.resumePoint(req, q.last_event_id);
    const n = raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : 0;
    const resume = n > this.ring.head ? 0 : n;
    const match = compileFilter(q);
    const stream = this.streams.start(req, reply, p);
    for (const e of this.ring.since(resume)) if (match(e)) stream.send(e.seq, e);
    const unsubscribe = this.ring.subscribe((e) => {
      if (!match(e)) return;
      // A client that does not read is cut rather than buffered without bound; it resumes with Last-Event-ID.
      if (stream.lagging) {
        stream.end('resync-required');
        return;
      }
      stream.send(e.seq, e);
    });
    stream.onClose(unsubscribe);
  }
}
