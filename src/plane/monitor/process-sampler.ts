import { CpuMeter, memoryOf, systemReadings, type HostReadings } from '../../common/host-load.js';
import type { Clock } from '../../common/clock.js';
import type { PoolStats } from '../db/drivers.js';
import type { ReplicaStatus } from '../db/drivers.js';
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
  /**
   * With [database] read_url only (document 4, section 15): the largest lag of the replicas, in
   * seconds (null: none answered), and how many of them reads go to now.
   */
  db_replica_lag_secs?: number | null;
  db_replicas_used?: number;
}

/**
 * The process sampler: every 2 s one sample into a ring of 900. The CPU figures are differences
 * since the previous sample (src/common/host-load.ts), so they say how busy the last 2 s were.
 */
export class ProcessSampler {
  private readonly ring = new ReplayRing<ProcessSample>(RETENTION_POINTS);
  private seq = 0;
  private readonly startedMs: number;
  private readonly cpu: CpuMeter;
  private readonly listeners = new Set<(s: ProcessSample) => void>();
  private envelopeJson: string | null = null;

  constructor(
    private readonly clock: Clock,
    private readonly pool: () => PoolStats,
    private readonly host: HostReadings = systemReadings,
  ) {
    this.startedMs = clock.now() - host.uptimeSecs() * 1000;
    this.cpu = new CpuMeter(host, this.startedMs);
  }

  get last(): number {
    return this.ring.last;
  }
  /** Samples after `seq`, oldest first; all it holds when `seq` is older than the ring. */
  after(seq: number): ProcessSample[] {
    return this.ring.after(seq) ?? this.ring.after(this.ring.base)!;
  }

  /** The envelope of GET /api/v1/monitor/plane as JSON text, encoded once per sample. */
  envelope(): string {
    this.envelopeJson ??= JSON.stringify({
      cadence_secs: CADENCE_SECS,
      retention_points: RETENTION_POINTS,
      samples: this.after(0),
    });
    return this.envelopeJson;
  }

  onSample(fn: (s: ProcessSample) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  job(): Job {
    return {
      name: 'monitor.process_sample',
      everyMs: CADENCE_SECS * 1000,
      budgetMs: CADENCE_SECS * 1000,
      fixedRate: true,
      run: async () => {
        await this.sample();
      },
    };
  }

  async sample(): Promise<ProcessSample> {
    const [stat, mem, fds] = await Promise.all([this.host.procStat(), this.host.memInfo(), this.host.openFds()]);
    const now = this.clock.now();
    const cpu = this.cpu.read(now, stat);
    const memory = memoryOf(mem, this.host.rssBytes());
    const pool = this.pool();
    const s: ProcessSample = {
      seq: ++this.seq,
      sampled_at_ms: now,
      uptime_s: Math.max(0, Math.floor((now - this.startedMs) / 1000)),
      rss_mb: memory.rss_mb,
      proc_cpu_cores: cpu.proc_cpu_cores,
      cpus: this.host.cpus(),
      host_cpu_busy_pct: cpu.host_cpu_busy_pct,
      mem_total_mb: memory.mem_total_mb,
      mem_available_mb: memory.mem_available_mb,
      open_fds: fds,
      db_pool_max: pool.max,
      db_pool_size: pool.size,
      db_pool_idle: pool.idle,
      db_pool_in_use: pool.in_use,
      ...(pool.replicas ? replicaFigures(pool.replicas) : {}),
    };
    this.ring.push(s);
    this.envelopeJson = null;
    for (const fn of this.listeners) fn(s);
    return s;
  }
}

function replicaFigures(replicas: ReplicaStatus[]): Pick<ProcessSample, 'db_replica_lag_secs' | 'db_replicas_used'> {
  const lags = replicas.flatMap((r) => (r.lag_secs === null ? [] : [r.lag_secs]));
  return {
    db_replica_lag_secs: lags.length ? Math.max(...lags) : null,
    db_replicas_used: replicas.filter((r) => r.used).length,
  };
}
