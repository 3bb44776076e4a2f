import { access, constants, readFile, readdir, statfs, writeFile } from 'node:fs/promises';
import { availableParallelism, cpus, freemem, totalmem } from 'node:os';
import { join } from 'node:path';
import type { StorageSettings } from '../config/config.types.js';

const MB = 1024 * 1024;
const MARKER = '.argus-storage';

export interface StorageReport {
  name: string;
  total_bytes: number;
  avail_bytes: number;
  write_iops: number;
  identity_healthy: boolean;
}

/**
 * CPU figures are averages since the previous reading (the plane's sweeper reads every few
 * seconds), so they describe the recent past rather than the whole uptime.
 */
export class CpuSampler {
  private lastWall = process.hrtime.bigint();
  private lastProc = process.cpuUsage();
  private lastHost = hostTimes();

  sample(): { proc_cpu_cores: number; host_cpu_busy_pct: number } {
    const wall = process.hrtime.bigint();
    const proc = process.cpuUsage();
    const host = hostTimes();
    const wallUs = Number(wall - this.lastWall) / 1000;
    const procUs = proc.user - this.lastProc.user + proc.system - this.lastProc.system;
    const hostTotal = host.total - this.lastHost.total;
    const hostIdle = host.idle - this.lastHost.idle;
    this.lastWall = wall; this.lastProc = proc; this.lastHost = host;
    return {
      proc_cpu_cores: wallUs > 0 ? round2(procUs / wallUs) : 0,
      host_cpu_busy_pct: hostTotal > 0 ? round2((100 * (hostTotal - hostIdle)) / hostTotal) : 0,
    };
  }
}

function hostTimes(): { total: number; idle: number } {
  let total = 0;
  let idle = 0;
  for (const c of cpus()) {
    const t = c.times;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
    idle += t.idle;
  }
  return { total, idle };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

export async function memory(): Promise<{ mem_total_mb: number; mem_available_mb: number; rss_mb: number }> {
  let available = freemem();
  try {
    // MemAvailable counts reclaimable cache; freemem() would report a busy host as nearly full.
    const m = /^MemAvailable:\s+(\d+) kB/m.exec(await readFile('/proc/meminfo', 'utf8'));
    if (m) available = Number(m[1]) * 1024;
  } catch { /* not Linux: freemem() it is */ }
  return {
    mem_total_mb: Math.round(totalmem() / MB),
    mem_available_mb: Math.round(available / MB),
    rss_mb: Math.round(process.memoryUsage.rss() / MB),
  };
}

export function cpuCount(): number {
  return availableParallelism();
}

/**
 * A storage is healthy when its directory is there and writable and, if it carries the marker
 * file, the marker names this storage: an unmounted volume or a swapped disk shows up here
 * before recordings land on the wrong device.
 */
export async function storageReport(s: StorageSettings): Promise<StorageReport> {
  const report: StorageReport = { name: s.name, total_bytes: 0, avail_bytes: 0, write_iops: 0, identity_healthy: false };
  try {
    const fs = await statfs(s.path);
    report.total_bytes = fs.blocks * fs.bsize;
    report.avail_bytes = fs.bavail * fs.bsize;
    if (s.max_bytes !== undefined) report.total_bytes = Math.min(report.total_bytes, s.max_bytes);
    await access(s.path, constants.W_OK);
    report.identity_healthy = await markerMatches(s);
  } catch {
    report.identity_healthy = false;
  }
  return report;
}

async function markerMatches(s: StorageSettings): Promise<boolean> {
  try {
    const marker = JSON.parse(await readFile(join(s.path, MARKER), 'utf8')) as { name?: unknown };
    return marker.name === s.name;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/** Marks an empty storage directory as this storage's at start; a used one is left as it is. */
export async function markStorage(s: StorageSettings): Promise<void> {
  try {
    const names = await readdir(s.path);
    if (names.length === 0) await writeFile(join(s.path, MARKER), JSON.stringify({ name: s.name, marked_at: new Date().toISOString() }) + '\n', { flag: 'wx' });
  } catch { /* absent or unreadable: reported as unhealthy by storageReport */ }
}
