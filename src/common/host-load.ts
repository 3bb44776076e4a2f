import { readdir, readFile } from 'node:fs/promises';
import os from 'node:os';

/**
 * How busy this process and its host are, the same way in both programs: the plane's process
 * samples (document 1) and the node's system body (document 4 §6) carry the same fields, so they
 * are measured by the same code. Readings are injectable so the arithmetic is testable.
 */
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
  /** the process's age in seconds */
  uptimeSecs(): number;
}

const orNull = (p: Promise<string>) => p.catch(() => null);

export const systemReadings: HostReadings = {
  cpuMicros: () => {
    const u = process.cpuUsage();
    return u.user + u.system;
  },
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
 * Memory in MB: MemAvailable counts reclaimable cache (os.freemem() would report a busy host as
 * nearly full); where /proc/meminfo is missing, the os module's figures.
 */
export function memoryOf(
  meminfo: string | null,
  rssBytes: number,
): { mem_total_mb: number; mem_available_mb: number; rss_mb: number } {
  return {
    mem_total_mb: Math.round((memField(meminfo, 'MemTotal') ?? os.totalmem()) / MB),
    mem_available_mb: Math.round((memField(meminfo, 'MemAvailable') ?? os.freemem()) / MB),
    rss_mb: Math.round(rssBytes / MB),
  };
}

/**
 * CPU figures as differences since the previous reading (the first: since the process, or the
 * host, started), so they say how busy the recent past was, not an instant.
 */
export class CpuMeter {
  private prev: { ms: number; cpu: number; host: { busy: number; total: number } | null };

  constructor(
    private readonly readings: HostReadings,
    startedMs: number,
  ) {
    this.prev = { ms: startedMs, cpu: 0, host: null };
  }

  /** `stat`: the /proc/stat line read for this reading (null: host figure 0). */
  read(nowMs: number, stat: string | null): { proc_cpu_cores: number; host_cpu_busy_pct: number } {
    const cpu = this.readings.cpuMicros();
    const host = cpuTimes(stat);
    const wallMicros = (nowMs - this.prev.ms) * 1000;
    let busyPct = 0;
    if (host) {
      const base = this.prev.host ?? { busy: 0, total: 0 };
      const total = host.total - base.total;
      busyPct = total > 0 ? round2(((host.busy - base.busy) / total) * 100) : 0;
    }
    const proc = wallMicros > 0 ? round2(Math.max(0, cpu - this.prev.cpu) / wallMicros) : 0;
    this.prev = { ms: nowMs, cpu, host };
    return { proc_cpu_cores: proc, host_cpu_busy_pct: busyPct };
  }
}
