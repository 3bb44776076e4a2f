import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import type { Clock } from '../../common/clock.js';
import type { PoolStats } from '../db/drivers.js';
import type { Job } from '../jobs/jobs.js';
import { ReplayRing } from '../live/replay-ring.js';

/** Document 1: one sample every 2 seconds, the last 900 kept (a 30 minute window). */
export const CADENCE_SECS = 2;
export const RETENTION_POINTS = 900;

/** A control-plane process sample (document 1), fields in the document's order. */
export interface ProcessSample {
  seq: number;
  sampled_at_ms: number;
  uptime_s: number;
  rss_mb: number;
  proc_cpu_cores: number;
  cpus: number;
  host_cpu_busy_pct: number;
  mem_total_mb: number;
  mem_available_mb: number;
  open_fds: number;
  db_pool_max: number;
  db_pool_size: number;
  db_pool_idle: number;
  db_pool_in_use: number;
}

/** Where the figures come from; tests give their own. */
export interface HostReadings {
  /** process CPU time used so far, microseconds (user + system) */
  cpuMicros(): number;
  rssBytes(): number;
  cpus(): number;
  /** the first line of /proc/stat, or null where there is none */
  procStat(): Promise<string | null>;
  /** /proc/meminfo, or null where there is none */
  memInfo(): Promise<string | null>;
  /** open descriptors of the process, or 0 where they cannot be listed */
  openFds(): Promise<number>;
  /** the process's age in seconds when the sampler is made */
  uptimeSecs(): number;
}

const orNull = (p: Promise<string>) => p.catch(() => null);

export const systemReadings: HostReadings = {
  cpuMicros: () => { const u = process.cpuUsage(); return u.user + u.system; },
  rssBytes: () => process.memoryUsage.rss(),
  cpus: () => os.availableParallelism(),
  procStat: async () => (await orNull(readFile('/proc/stat', 'utf8')))?.split('\n', 1)[0] ?? null,
  memInfo: () => orNull(readFile('/proc/meminfo', 'utf8')),
  // The listing's own descriptor is among those listed: one less.
  openFds: async () => Math.max(0, (await readdir('/proc/self/fd').catch(() => [])).length - 1),
  uptimeSecs: () => process.uptime(),
};

/** busy and total jiffies of the host from the `cpu` line of /proc/stat (idle and iowait are not busy). */
export function cpuTimes(line: string | null): { busy: number; total: number } | null {
  if (!line?.startsWith('cpu ')) return null;
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (v.length < 4 || v.some((x) => !Number.isFinite(x))) return null;
  const total = v.reduce((a, b) => a + b, 0);
  const idle = v[3]! + (v[4] ?? 0);
  return { busy: total - idle, total };
}

function memField(text: string | null, name: string): number | null {
  const m = text ? new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text) : null;
  return m ? Number(m[1]) * 1024 : null;
}

const MB = 1024 * 1024;
const round2 = (x: number) => Math.round(x * 100) / 100;

/**
 * The process sampler: every 2 s one sample into a ring of 900. The CPU figures are differences
 * since the previous sample (the first one: since the process or the host started), so they say
 * how busy the last 2 s were, not an instant.
 */
export class ProcessSampler {
  private readonly ring = new ReplayRing<ProcessSample>(RETENTION_POINTS);
  private seq = 0;
  private readonly startedMs: number;
  private prev: { ms: number; cpu: number; host: { busy: number; total: number } | null };
  private readonly listeners = new Set<(s: ProcessSample) => void>();
  private envelopeJson: string | null = null;

  constructor(private readonly clock: Clock, private readonly pool: () => PoolStats, private readonly host: HostReadings = systemReadings) {
    this.startedMs = clock.now() - host.uptimeSecs() * 1000;
    this.prev = { ms: this.startedMs, cpu: 0, host: null };
  }

  get last(): number { return this.ring.last; }
  /** Samples after `seq`, oldest first; all it holds when `seq` is older than the ring. */
  after(seq: number): ProcessSample[] { return this.ring.after(seq) ?? this.ring.after(this.ring.base)!; }

  /** The envelope of GET /api/v1/monitor/plane as JSON text, encoded once per sample. */
  envelope(): string {
    this.envelopeJson ??= JSON.stringify({ cadence_secs: CADENCE_SECS, retention_points: RETENTION_POINTS, samples: this.after(0) });
    return this.envelopeJson;
  }

  onSample(fn: (s: ProcessSample) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  job(): Job {
    return { name: 'monitor.process_sample', everyMs: CADENCE_SECS * 1000, budgetMs: CADENCE_SECS * 1000, fixedRate: true, run: async () => { await this.sample(); } };
  }

  async sample(): Promise<ProcessSample> {
    const [stat, mem, fds] = await Promise.all([this.host.procStat(), this.host.memInfo(), this.host.openFds()]);
    const now = this.clock.now();
    const cpu = this.host.cpuMicros();
    const hostTimes = cpuTimes(stat);
    const wallMicros = (now - this.prev.ms) * 1000;
    let busyPct = 0;
    if (hostTimes) {
      const base = this.prev.host ?? { busy: 0, total: 0 };
      const total = hostTimes.total - base.total;
      busyPct = total > 0 ? round2(((hostTimes.busy - base.busy) / total) * 100) : 0;
    }
    const pool = this.pool();
    const s: ProcessSample = {
      seq: ++this.seq,
      sampled_at_ms: now,
      uptime_s: Math.max(0, Math.floor((now - this.startedMs) / 1000)),
      rss_mb: Math.round(this.host.rssBytes() / MB),
      proc_cpu_cores: wallMicros > 0 ? round2(Math.max(0, cpu - this.prev.cpu) / wallMicros) : 0,
      cpus: this.host.cpus(),
      host_cpu_busy_pct: busyPct,
      mem_total_mb: Math.round((memField(mem, 'MemTotal') ?? os.totalmem()) / MB),
      mem_available_mb: Math.round((memField(mem, 'MemAvailable') ?? os.freemem()) / MB),
      open_fds: fds,
      db_pool_max: pool.max, db_pool_size: pool.size, db_pool_idle: pool.idle, db_pool_in_use: pool.in_use,
    };
    this.prev = { ms: now, cpu, host: hostTimes };
    this.ring.push(s);
    this.envelopeJson = null;
    for (const fn of this.listeners) fn(s);
    return s;
  }
}
