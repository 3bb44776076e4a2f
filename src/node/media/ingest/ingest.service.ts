import { rm } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Logger } from 'pino';
import type { StorageSettings, StreamSettings } from '../../config/config.types.js';
import type { Recordings } from '../../lifecycle/recordings.js';
import { resolveInside } from '../../../common/resolve-inside.js';
import type { DvrService } from '../dvr/dvr.service.js';
import { Ingest, type IngestState, type IngestStatus } from './ingest.process.js';

/**
 * Where the pipeline reports each stream's state: the system domain's StreamRegistry. Declared
 * here, the lower module, because the registry's module imports the pipeline's type.
 */
export interface StreamStateSink {
  set(name: string, state: IngestState | 'parked'): void;
}

export interface PipelineOptions {
  log: Logger;
  now: () => number;
  registry: StreamStateSink;
  recordings: Recordings;
  dvr: DvrService;
  /** `{data_dir}/live`: one folder per running stream, wiped at every run. */
  liveRoot: string;
  ffmpeg: string;
  segmentSecs: number;
  /** Viewers of a stream right now (on-demand streams park when it falls to zero). */
  viewers: (stream: string) => number;
  /** An on-demand stream parks this long after its last viewer left. */
  parkAfterMs: number;
  /** Where each run's fragmented MP4 goes (live over WebSocket, media/live-ws); without it ffmpeg writes HLS only. */
  onFmp4?: (stream: string, out: Readable, run: number) => void;
}

interface Entry {
  settings: StreamSettings;
  ingest: Ingest | null;
  /** Ends the stream's entry in the open recordings (stop grace). */
  unregister: (() => void) | null;
  lastDemand: number;
  stopping: Promise<void> | null;
}

const CHECK_MS = 1000;

/**
 * The media pipeline: which streams have an ingest running. Always-on streams run from the
 * moment they are configured; on-demand streams start at the first viewer and park when the
 * last one has gone. Every configuration epoch reaches `sync`.
 */
export class MediaPipeline {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly o: PipelineOptions) {
    this.timer = setInterval(() => this.parkIdle(), CHECK_MS);
    this.timer.unref();
  }

  async sync(streams: StreamSettings[], storages: StorageSettings[]): Promise<void> {
    await this.o.dvr.configure(streams, storages);
    const wanted = new Map(streams.map((s) => [s.name, s]));
    for (const [name, e] of this.entries) {
      const next = wanted.get(name);
      if (!next) {
        this.entries.delete(name);
        void this.halt(e);
        continue;
      }
      const restart = next.input !== e.settings.input || JSON.stringify(next.dvr) !== JSON.stringify(e.settings.dvr);
      e.settings = next;
      if (restart && e.ingest) {
        void this.halt(e).then(() => this.launchIfWanted(name));
        continue;
      }
      if (next.on_demand && e.ingest && this.o.viewers(name) === 0) this.park(name, e);
      else if (!next.on_demand && !e.ingest) this.launch(name, e);
    }
    for (const s of streams) {
      if (this.entries.has(s.name)) continue;
      const e: Entry = { settings: s, ingest: null, unregister: null, lastDemand: 0, stopping: null };
      this.entries.set(s.name, e);
      if (!s.on_demand) this.launch(s.name, e);
      else this.o.registry.set(s.name, 'parked');
    }
  }

  ingest(stream: string): Ingest | null {
    return this.entries.get(stream)?.ingest ?? null;
  }

  status(stream: string): IngestStatus | null {
    return this.entries.get(stream)?.ingest?.status() ?? null;
  }

  /**
   * A viewer wants `stream`: starts a parked on-demand stream and waits (up to `waitMs`) for a
   * playable segment. Resolves with the ingest when it serves, else null.
   */
  async demand(stream: string, waitMs: number): Promise<Ingest | null> {
    const e = this.entries.get(stream);
    if (!e || this.closed) return null;
    e.lastDemand = this.o.now();
    if (e.stopping) await e.stopping;
    if (!e.ingest) this.launch(stream, e);
    const ingest = e.ingest;
    if (!ingest) return null;
    const state = ingest.status().state;
    if (state === 'failing' && ingest.live.length === 0) return null;
    return (await ingest.ready(waitMs)) ? ingest : null;
  }

  /** Stop: recordings were given their grace by the caller; whatever still runs is ended now. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    this.o.dvr.stop();
    await Promise.all([...this.entries.values()].map((e) => this.halt(e, 1000)));
  }

  private launchIfWanted(name: string): void {
    const e = this.entries.get(name);
    if (e && !e.ingest && (!e.settings.on_demand || this.o.viewers(name) > 0)) this.launch(name, e);
    else if (e && !e.ingest) this.o.registry.set(name, 'parked');
  }

  private launch(name: string, e: Entry): void {
    if (this.closed || e.ingest || !e.settings.input) return;
    const ingest = new Ingest({
      stream: name,
      input: e.settings.input,
      liveDir: resolveInside(this.o.liveRoot, name),
      ffmpeg: this.o.ffmpeg,
      segmentSecs: this.o.segmentSecs,
      log: this.o.log,
      now: this.o.now,
      onState: (state, reason) => {
        if (this.entries.get(name)?.ingest !== ingest) return;
        this.o.registry.set(name, state);
        if (state === 'failing') this.o.log.warn({ stream: name, reason }, 'stream failing');
      },
      onSegment: (seg) => this.o.dvr.segment(name, seg),
      ...(this.o.onFmp4 ? { onFmp4: (out: Readable, run: number) => this.o.onFmp4?.(name, out, run) } : {}),
    });
    e.ingest = ingest;
    if (this.o.dvr.records(name)) {
      // The stop grace: ffmpeg closes the open segment, and it is archived, before the process ends.
      e.unregister = this.o.recordings.add({ stream: name, close: () => this.halt(e) });
    }
    this.o.registry.set(name, 'starting');
    ingest.start();
  }

  private park(name: string, e: Entry): void {
    void this.halt(e).then(() => {
      if (this.entries.get(name) === e && !e.ingest) this.o.registry.set(name, 'parked');
    });
  }

  /** Stops the entry's ingest (ffmpeg finishes its segment) and waits for its segments to be recorded. */
  private halt(e: Entry, killAfterMs = 4000): Promise<void> {
    const ingest = e.ingest;
    if (!ingest) return e.stopping ?? Promise.resolve();
    e.ingest = null;
    const name = e.settings.name;
    e.stopping = (async () => {
      await ingest.stop(killAfterMs);
      await this.o.dvr.flush(name);
      e.unregister?.();
      e.unregister = null;
      await rm(resolveInside(this.o.liveRoot, name), { recursive: true, force: true }).catch(() => undefined);
    })().finally(() => {
      e.stopping = null;
    });
    return e.stopping;
  }

  private parkIdle(): void {
    const now = this.o.now();
    for (const [name, e] of this.entries) {
      if (!e.settings.on_demand || !e.ingest || e.stopping) continue;
      if (this.o.viewers(name) > 0 || now - e.lastDemand < this.o.parkAfterMs) continue;
      this.o.log.info({ stream: name }, 'no viewer left: parking the on-demand stream');
      this.park(name, e);
    }
  }
}
