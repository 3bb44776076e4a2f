import { maskUrlPassword } from '../../common/redact.js';
import type { StreamChange } from '../config/config.schemas.js';
import type { ApplyResult, ConfigService } from '../config/config.service.js';
import type { StreamSettings } from '../config/config.types.js';
import type { DvrService } from '../media/dvr/dvr.service.js';
import type { MediaPipeline } from '../media/ingest/ingest.service.js';
import type { ViewerSessions } from '../media/viewer/sessions.service.js';

/**
 * `starting` until the first segment, then `live`, `degraded` or `failing` as the ingest reports;
 * `parked` is an on-demand stream with no viewer; `offline` a stream the pipeline does not run.
 */
export type StreamState = 'starting' | 'live' | 'degraded' | 'failing' | 'parked' | 'offline' | 'removed';

export interface StreamStatus {
  name: string;
  state: StreamState;
  since_ms: number;
}

export type StreamEvent = StreamStatus;

/**
 * The state of every configured stream and the feed of its changes (`GET /api/v1/events`).
 * The configuration decides which streams exist; the media pipeline sets their state.
 */
export class StreamRegistry {
  private readonly states = new Map<string, StreamStatus>();
  private readonly subscribers = new Set<(e: StreamEvent) => void>();

  constructor(private readonly now: () => number) {}

  sync(streams: StreamSettings[]): void {
    const names = new Set(streams.map((s) => s.name));
    for (const name of [...this.states.keys()]) {
      if (!names.has(name)) {
        this.states.delete(name);
        this.emit({ name, state: 'removed', since_ms: this.now() });
      }
    }
    for (const s of streams) {
      const initial: StreamState = s.on_demand ? 'parked' : 'starting';
      const prev = this.states.get(s.name);
      if (!prev) this.set(s.name, initial);
    }
  }

  set(name: string, state: Exclude<StreamState, 'removed'>): void {
    const prev = this.states.get(name);
    if (prev?.state === state) return;
    const status = { name, state, since_ms: this.now() };
    this.states.set(name, status);
    this.emit(status);
  }

  list(): StreamStatus[] {
    return [...this.states.values()].map((s) => ({ ...s }));
  }

  get(name: string): StreamStatus | undefined {
    return this.states.get(name);
  }

  counts(): { total: number; live: number; degraded: number; failing: number } {
    const all = [...this.states.values()];
    const n = (st: StreamState): number => all.filter((s) => s.state === st).length;
    return { total: all.length, live: n('live'), degraded: n('degraded'), failing: n('failing') };
  }

  subscribe(fn: (e: StreamEvent) => void): () => void {
    this.subscribers.add(fn);
    return () => this.subscribers.delete(fn);
  }

  private emit(e: StreamEvent): void {
    for (const fn of this.subscribers) fn(e);
  }
}

export interface StreamsServiceDeps {
  config: ConfigService;
  registry: StreamRegistry;
  pipeline: MediaPipeline;
  sessions: ViewerSessions;
  dvr: DvrService;
}

/** A stream as configured, with what its ingest reports now (null where nothing is known yet). */
export interface StreamRow {
  name: string;
  input: string | null;
  dvr: { storage: string; retention: string } | null;
  on_demand: boolean;
  state: string;
  since_ms: number | null;
  reason: string | null;
  bitrate_kbps: number | null;
  fps: number | null;
  resolution: string | null;
  codec: string | null;
  video: string | null;
  last_error: string | null;
  last_error_ms: number | null;
  viewers: number;
  recorded_bytes: number | null;
}

/**
 * Streams as the API shows and changes them: each change is a configuration epoch (`via: api`)
 * written by the config service; a row joins the configuration with the pipeline's report.
 */
export class StreamsService {
  constructor(private readonly deps: StreamsServiceDeps) {}

  list(): StreamRow[] {
    return this.deps.config.config.streams.map((s) => this.row(s));
  }

  /** Adds or replaces a stream; `stream` is its row once applied. */
  async put(
    actor: string,
    name: string,
    settings: StreamChange,
  ): Promise<{ result: ApplyResult; created: boolean; stream: StreamRow | null }> {
    const { created, ...result } = await this.deps.config.setStream(actor, name, settings);
    const s = this.deps.config.config.streams.find((x) => x.name === name);
    return { result, created, stream: s ? this.row(s) : null };
  }

  delete(actor: string, name: string): Promise<ApplyResult> {
    return this.deps.config.deleteStream(actor, name);
  }

  private row(s: StreamSettings): StreamRow {
    const { registry, pipeline, sessions, dvr } = this.deps;
    const reg = registry.get(s.name);
    const st = pipeline.status(s.name);
    return {
      // Camera credentials live in input URLs; the read token may list streams but not learn passwords.
      name: s.name,
      input: s.input === undefined ? null : maskUrlPassword(s.input),
      dvr: s.dvr ?? null,
      on_demand: s.on_demand,
      state: reg?.state ?? 'offline',
      since_ms: reg?.since_ms ?? null,
      reason: st?.reason ?? null,
      bitrate_kbps: st?.bitrate_kbps ?? null,
      fps: st?.fps ?? null,
      resolution: st?.resolution ?? null,
      codec: st?.codec ?? null,
      video: st?.video ?? null,
      last_error: st?.last_error ?? null,
      last_error_ms: st?.last_error_ms ?? null,
      viewers: sessions.count(s.name),
      recorded_bytes: dvr.store(s.name)?.bytes ?? null,
    };
  }
}
