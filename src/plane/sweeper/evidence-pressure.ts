import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { Job } from '../jobs/jobs.js';
import type { SystemEvents, SystemOpen } from '../events/index.js';
import type { UsersService } from '../users/users.service.js';
import type { EvidenceService } from '../evidence/evidence.service.js';
import { sweeperStore } from './sweeper.store.js';

const NAMES = ['low', 'high', 'critical'] as const;
const SEVERITY = [2, 3, 4] as const;

/**
 * system.evidence_storage_pressure (document 4 §4): an instant event each time used_percent
 * rises to or past a watermark (low, high, critical). A watermark fires once, and is armed again
 * only when used_percent falls back below it. The level lives in the database (one row), so
 * several plane processes fire each crossing once. used_percent is the evidence domain's
 * (EvidenceService.usedPercent: the evidence bytes against `max_bytes` when configured, else the volume's),
 * the same figure that refuses uploads at the critical watermark.
 */
export class EvidencePressure {
  private readonly marks: [number, number, number];

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    config: Pick<PlaneConfig['evidencePressure'], 'lowPercent' | 'highPercent' | 'criticalPercent'>,
    private readonly evidence: Pick<EvidenceService, 'usedPercent'>,
    private readonly system: SystemEvents,
    private readonly users: UsersService,
  ) {
    this.marks = [config.lowPercent, config.highPercent, config.criticalPercent];
  }

  job(everyMs: number): Job {
    return {
      name: 'evidence.pressure',
      everyMs,
      budgetMs: everyMs,
      run: async () => {
        await this.check();
      },
    };
  }

  /** Measures once; returns the watermarks crossed upward by this call (usually none). */
  async check(): Promise<number[]> {
    const used = await this.evidence.usedPercent();
    const level = this.marks.filter((m) => used >= m).length;
    const at = this.clock.now();
    const crossed: number[] = [];
    const notice = await this.db.transaction().execute(async (trx) => {
      const was = await sweeperStore.moveLevel(trx, level, used, new Date(at));
      if (was === undefined || level <= was) return null;
      const opens: SystemOpen[] = [];
      const orgId = await this.users.superadminOrg(trx);
      for (let l = was + 1; l <= level; l++) {
        crossed.push(this.marks[l - 1]!);
        if (orgId)
          opens.push({
            detector: 'system.evidence_storage_pressure',
            orgId,
            occurredAt: at,
            interval: false,
            severity: SEVERITY[l - 1]!,
            nodeId: null,
            nodeName: null,
            cameraId: null,
            cameraName: null,
            payload: { used_percent: Math.round(used * 10) / 10, watermark: this.marks[l - 1], level: NAMES[l - 1] },
          });
      }
      return this.system.write(trx, opens, [], at);
    });
    this.system.publish(notice);
    return crossed;
  }
}
