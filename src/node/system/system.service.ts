import { access, constants, readFile, readdir, statfs, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { CpuMeter, memoryOf, systemReadings } from '../../common/host-load.js';
import { join } from 'node:path';
import type { StorageSettings } from '../config/config.types.js';

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
 * seconds), so they describe the recent past rather than the whole uptime; measured as the
 * plane measures its own process (src/common/host-load.ts).
 */
export class CpuSampler {
  private readonly meter = new CpuMeter(systemReadings, Date.now() - systemReadings.uptimeSecs() * 1000);

  async sample(): Promise<{ proc_cpu_cores: number; host_cpu_busy_pct: number }> {
    return this.meter.read(Date.now(), await systemReadings.procStat());
  }
}

export async function memory(): Promise<{ mem_total_mb: number; mem_available_mb: number; rss_mb: number }> {
  return memoryOf(await systemReadings.memInfo(), systemReadings.rssBytes());
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
  const report: StorageReport = {
    name: s.name,
    total_bytes: 0,
    avail_bytes: 0,
    write_iops: 0,
    identity_healthy: false,
  };
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
    if (names.length === 0)
      await writeFile(
        join(s.path, MARKER),
        JSON.stringify({ name: s.name, marked_at: new Date().toISOString() }) + '\n',
        { flag: 'wx' },
      );
  } catch {
    /* absent or unreadable: reported as unhealthy by storageReport */
  }
}
