import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import { evidenceStore } from './evidence.store.js';

/** The volume that holds `dir` (or its nearest existing parent: a folder not made yet lives there), as df counts it. */
export async function volumeFigures(dir: string): Promise<{ capacity: number; available: number; used: number }> {
  for (let d = dir; ; d = dirname(d)) {
    try {
      const s = await statfs(d);
      const used = (s.blocks - s.bfree) * s.bsize,
        available = s.bavail * s.bsize;
      return { capacity: used + available, available, used };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(d) === d) throw err;
    }
  }
}

/** used_percent of the volume that holds `dir`: used / (used + available). */
export async function volumeUsedPercent(dir: string): Promise<number> {
  const v = await volumeFigures(dir);
  return v.capacity > 0 ? (v.used / v.capacity) * 100 : 0;
}

export interface FullnessConfig {
  maxBytes: number | null;
  criticalPercent: number;
  dir: string;
}

/**
 * How full the evidence storage is (document 1, watermarks): the evidence bytes against
 * `max_bytes` when set (always for s3), else the volume of the folder. At or above the critical
 * watermark an upload is refused with 507 `evidence_storage_full` and counted in
 * `pressure_dropped_attachments` (document 4 §10); the figure is measured at most once per
 * `ttlMs`, so a burst of uploads costs one measurement.
 */
export class EvidenceFullness {
  private measured: { at: number; percent: number } | null = null;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly config: FullnessConfig,
    private readonly ttlMs = 1000,
  ) {}

  async usedPercent(): Promise<number> {
    if (this.config.maxBytes !== null)
      return ((await evidenceStore.totals(this.db)).bytes / this.config.maxBytes) * 100;
    return volumeUsedPercent(this.config.dir);
  }

  /** Throws 507 evidence_storage_full (and counts it) when the storage is at or above the critical watermark. */
  async admit(): Promise<void> {
    const now = this.clock.now();
    if (!this.measured || now - this.measured.at >= this.ttlMs)
      this.measured = { at: now, percent: await this.usedPercent() };
    if (this.measured.percent < this.config.criticalPercent) return;
    await evidenceStore.countPressureDrop(this.db);
    throw errors.evidenceStorageFull();
  }

  /** Forgets the last measurement (a retention purge has just freed space). */
  forget(): void {
    this.measured = null;
  }

  pressureDropped(): Promise<number> {
    return evidenceStore.pressureDropped(this.db);
  }
}
