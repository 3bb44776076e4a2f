import { readFile } from 'node:fs/promises';
import type { Logger } from 'pino';
import type { StorageSettings, StreamSettings } from '../../config/config.types.js';
import type { FinishedSegment } from '../ingest/ingest.process.js';
import { DvrStore } from './dvr.store.js';
import { retentionMs } from './retention.js';

const SWEEP_MS = 5000;
const RATE_WINDOW_MS = 10_000;

interface Recording {
  store: DvrStore;
  storage: string;
  retentionMs: number;
  /** Writes of this stream, in order: a segment is archived before the next one. */
  queue: Promise<void>;
}

/**
 * Recording (`dvr <storage> <retention>`): every finished live segment of a recorded stream is
 * copied into its storage. Retention and the storage's `max_bytes` are enforced by a sweep and
 * after each write; the oldest segments of the whole storage go first when it is full.
 */
export class DvrService {
  private readonly recordings = new Map<string, Recording>();
  private storages = new Map<string, StorageSettings>();
  private readonly writes = new Map<string, number[]>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** Applies the configuration: which streams record where. Stores load their folders on first use. */
  async configure(streams: StreamSettings[], storages: StorageSettings[]): Promise<void> {
    this.storages = new Map(storages.map((s) => [s.name, s]));
    const wanted = new Map(streams.filter((s) => s.dvr && this.storages.has(s.dvr.storage)).map((s) => [s.name, s]));
    for (const name of [...this.recordings.keys()]) {
      const r = this.recordings.get(name)!;
      const s = wanted.get(name);
      if (!s || s.dvr!.storage !== r.storage) {
        await r.queue;
        this.recordings.delete(name);
      }
    }
    for (const s of wanted.values()) {
      const existing = this.recordings.get(s.name);
      if (existing) {
        existing.retentionMs = retentionMs(s.dvr!.retention);
        continue;
      }
      const store = new DvrStore(this.storages.get(s.dvr!.storage)!.path, s.name);
      const rec: Recording = {
        store,
        storage: s.dvr!.storage,
        retentionMs: retentionMs(s.dvr!.retention),
        queue: Promise.resolve(),
      };
      this.recordings.set(s.name, rec);
      rec.queue = store
        .load()
        .catch((err: unknown) => this.log.error({ err, stream: s.name }, 'recording folder unreadable'));
    }
    // Playback of what was recorded before a restart must work from the first request.
    await Promise.all([...this.recordings.values()].map((r) => r.queue));
    if (!this.timer) {
      this.timer = setInterval(() => {
        void this.sweep();
      }, SWEEP_MS);
      this.timer.unref();
    }
  }

  records(stream: string): boolean {
    return this.recordings.has(stream);
  }

  store(stream: string): DvrStore | undefined {
    return this.recordings.get(stream)?.store;
  }

  /** Called for every finished live segment; queued per stream so order and flush are kept. */
  segment(stream: string, seg: FinishedSegment): void {
    const rec = this.recordings.get(stream);
    if (!rec) return;
    rec.queue = rec.queue.then(async () => {
      try {
        const data = await readFile(seg.path);
        const ops = await rec.store.add(Math.round(seg.start), Math.round(seg.duration * 1000), data);
        this.countWrites(rec.storage, ops);
        await this.enforceMaxBytes(rec.storage);
      } catch (err) {
        this.log.error({ err, stream }, 'segment not recorded');
      }
    });
  }

  /** Resolves when every segment handed in so far is on disk. */
  async flush(stream: string): Promise<void> {
    await this.recordings.get(stream)?.queue;
  }

  /** Recording writes per second on `storage` over the last ten seconds (GET /api/v1/system). */
  writeRate(storage: string): number {
    const cutoff = this.now() - RATE_WINDOW_MS;
    const list = (this.writes.get(storage) ?? []).filter((t) => t >= cutoff);
    this.writes.set(storage, list);
    return Math.round((list.length / (RATE_WINDOW_MS / 1000)) * 100) / 100;
  }

  async sweep(): Promise<void> {
    const now = this.now();
    for (const [stream, rec] of this.recordings) {
      rec.queue = rec.queue
        .then(async () => {
          const n = await rec.store.pruneBefore(now - rec.retentionMs);
          if (n > 0) this.log.debug({ stream, removed: n }, 'retention removed old segments');
        })
        .catch((err: unknown) => this.log.error({ err, stream }, 'retention sweep failed'));
      await rec.queue;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async enforceMaxBytes(storage: string): Promise<void> {
    const max = this.storages.get(storage)?.max_bytes;
    if (max === undefined) return;
    const stores = [...this.recordings.values()].filter((r) => r.storage === storage).map((r) => r.store);
    let used = stores.reduce((a, s) => a + s.bytes, 0);
    while (used > max) {
      // The oldest segment of the whole storage, whichever stream it belongs to.
      let victim: DvrStore | undefined;
      for (const s of stores) {
        const o = s.oldest();
        if (o && (!victim || o.start < victim.oldest()!.start)) victim = s;
      }
      if (!victim) break;
      const before = victim.bytes;
      await victim.removeOldest(1);
      used -= before - victim.bytes;
    }
  }

  private countWrites(storage: string, ops: number): void {
    const list = this.writes.get(storage) ?? [];
    const t = this.now();
    for (let i = 0; i < ops; i++) list.push(t);
    this.writes.set(storage, list);
  }
}
