import type { StreamSettings } from '../config/config.types.js';

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
