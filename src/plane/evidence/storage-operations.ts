import type { Readable } from 'node:stream';
import type { Clock } from '../../common/clock.js';
import type { EvidenceLocation } from '../config/config.js';
import { LocalEvidenceStorage, type EvidenceStorage } from './evidence.storage.js';
import { S3EvidenceStorage } from './s3.storage.js';
import { receiveWhole } from './upload-gate.js';

/** `stats.operations` of the evidence storage (document 1, settings): figures of this process. */
export interface OperationFigures {
  in_flight: number;
  total_ops: number;
  errors: number;
  ops_per_second: number;
  bytes_per_second: number;
  average_latency_ms: number;
  max_latency_ms: number;
}

const WINDOW_S = 60;

/** The storage of a configured location (folder or bucket); `dataDir` is refused as a folder. */
export function storageAt(loc: EvidenceLocation, dataDir: string | null = null): EvidenceStorage {
  return loc.backend === 's3' && loc.s3 ? new S3EvidenceStorage(loc.s3) : new LocalEvidenceStorage(loc.dir, dataDir);
}

/** Whether a storage holds at least one object (the first page of its listing is enough). */
export async function holdsObjects(storage: EvidenceStorage): Promise<boolean> {
  for await (const _ of storage.list()) return true;
  return false;
}

/**
 * A storage that counts what passes through it: calls in flight, calls and failures since the
 * start, rates over the last minute (per-second buckets, so a quiet minute reads 0), latency of
 * a call until it settles (an open: until the object is found, not until it is read). Bytes
 * are those written by uploads and those announced by opened objects.
 */
export class MeteredStorage implements EvidenceStorage {
  readonly backend: 'local' | 's3';
  private inFlight = 0;
  private total = 0;
  private failures = 0;
  private latencyTotal = 0;
  private latencyMax = 0;
  private readonly started: number;
  /** per second of the window: [second, ops, bytes] */
  private readonly buckets: Array<[number, number, number]> = [];

  constructor(
    private readonly inner: EvidenceStorage,
    private readonly clock: Clock,
  ) {
    this.backend = inner.backend;
    this.started = clock.now();
  }

  private async measure<T>(run: () => Promise<T>, bytes: (r: T) => number): Promise<T> {
    const t0 = this.clock.now();
    this.inFlight++;
    try {
      const r = await run();
      this.count(t0, bytes(r));
      return r;
    } catch (err) {
      this.failures++;
      this.count(t0, 0);
      throw err;
    } finally {
      this.inFlight--;
    }
  }

  private count(t0: number, bytes: number): void {
    const now = this.clock.now();
    const latency = now - t0;
    this.total++;
    this.latencyTotal += latency;
    this.latencyMax = Math.max(this.latencyMax, latency);
    const second = Math.floor(now / 1000);
    const last = this.buckets[this.buckets.length - 1];
    if (last && last[0] === second) {
      last[1]++;
      last[2] += bytes;
    } else this.buckets.push([second, 1, bytes]);
    while (this.buckets.length && this.buckets[0]![0] <= second - WINDOW_S) this.buckets.shift();
  }

  figures(): OperationFigures {
    const now = this.clock.now();
    const second = Math.floor(now / 1000);
    const recent = this.buckets.filter(([s]) => s > second - WINDOW_S);
    // A process younger than the window divides by its age (at least a second).
    const span = Math.max(1, Math.min(WINDOW_S, (now - this.started) / 1000));
    const round = (n: number) => Math.round(n * 100) / 100;
    return {
      in_flight: this.inFlight,
      total_ops: this.total,
      errors: this.failures,
      ops_per_second: round(recent.reduce((n, b) => n + b[1], 0) / span),
      bytes_per_second: Math.round(recent.reduce((n, b) => n + b[2], 0) / span),
      average_latency_ms: this.total ? round(this.latencyTotal / this.total) : 0,
      max_latency_ms: round(this.latencyMax),
    };
  }

  put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    return this.measure(
      () => this.inner.put(key, bytes, contentType),
      () => bytes.length,
    );
  }

  putStream(
    key: string,
    body: Readable,
    contentType: string,
    maxBytes: number,
  ): Promise<{ size: number; sha256: Buffer }> {
    const inner = this.inner;
    const write = inner.putStream
      ? () => inner.putStream!(key, body, contentType, maxBytes)
      : () =>
          receiveWhole(body, maxBytes).then(async (r) => {
            await inner.put(key, r.bytes, contentType);
            return { size: r.size, sha256: r.sha256 };
          });
    return this.measure(write, (r) => r.size);
  }

  open(key: string): Promise<{ size: number; body: Readable } | null> {
    return this.measure(
      () => this.inner.open(key),
      (r) => r?.size ?? 0,
    );
  }

  exists(key: string): Promise<boolean> {
    return this.measure(
      () => this.inner.exists(key),
      () => 0,
    );
  }
  delete(key: string): Promise<void> {
    return this.measure(
      () => this.inner.delete(key),
      () => 0,
    );
  }
  list(): AsyncIterable<{ key: string; size: number }> {
    return this.inner.list();
  }
  describe() {
    return this.inner.describe();
  }
}

/**
 * The storage in use and the one being retired (document 4 §10, rotation): writes go to the
 * storage in use; a read that misses there is answered by the retired one, so events keep their
 * evidence until `argus-plane evidence migrate` has moved it; a delete removes the object from
 * both (a purge must not leave a copy behind in the retired storage).
 */
export class RotatingStorage implements EvidenceStorage {
  readonly backend: 'local' | 's3';
  readonly putStream?: EvidenceStorage['putStream'];

  constructor(
    private readonly active: EvidenceStorage,
    readonly retired: EvidenceStorage | null,
  ) {
    this.backend = active.backend;
    if (active.putStream) this.putStream = (key, body, type, max) => active.putStream!(key, body, type, max);
  }

  put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    return this.active.put(key, bytes, contentType);
  }

  async open(key: string): Promise<{ size: number; body: Readable } | null> {
    return (await this.active.open(key)) ?? (this.retired ? this.retired.open(key) : null);
  }

  async exists(key: string): Promise<boolean> {
    return (await this.active.exists(key)) || (this.retired !== null && (await this.retired.exists(key)));
  }

  async delete(key: string): Promise<void> {
    await this.active.delete(key);
    if (this.retired) await this.retired.delete(key);
  }

  list(): AsyncIterable<{ key: string; size: number }> {
    return this.active.list();
  }
  describe() {
    return this.active.describe();
  }
}
