import type { Clock } from '../../../common/clock.js';
import type { EvidenceService } from '../../evidence/evidence.service.js';
import type { Job } from '../../jobs/jobs.js';
import { EVENT_RING_SIZE } from '../stream/stream.ring.js';
import type { EventLog } from '../log/event-log.js';

const DAY_MS = 86_400_000;

/** How long the records of a removal answer 410 archived_data_expired (docs/event-stream.md). */
export const PURGE_RECORD_RETENTION_MS = 30 * DAY_MS;

export interface PruneOptions {
  /** age past which a record is no longer kept for 410 answers */
  retentionMs?: number;
  /** frames a ring filled from the table holds (the replay depth): tombstones among them stay */
  replayDepth?: number;
  /** rows per statement */
  batch?: number;
}

/**
 * Prunes what purges and archive cleanups leave behind once no reader can still need it:
 * - a tombstone (`event_tombstones`) is read by stream replay (a ring filled from the table at
 *   start or after a gap holds the newest 512 frames, tombstones included) and by the 410 of the
 *   card, star and close; it goes once it is older than the retention AND outside the newest
 *   replay-depth frames (a cursor older than those resyncs anyway);
 * - a removed attachment's ref (`purged_attachments`) is read only by the 410 of a download or
 *   preview; it goes once it is older than the retention.
 * Afterwards those requests answer 404 not_found, as for an id that never existed. Idempotent,
 * batched (one short statement per batch), stops at its deadline.
 */
export class PurgeRecordsPruner {
  private readonly retentionMs: number;
  private readonly replayDepth: number;
  private readonly batch: number;

  constructor(
    private readonly log: EventLog,
    private readonly clock: Clock,
    private readonly evidence: EvidenceService,
    opts: PruneOptions = {},
  ) {
    this.retentionMs = opts.retentionMs ?? PURGE_RECORD_RETENTION_MS;
    this.replayDepth = opts.replayDepth ?? EVENT_RING_SIZE;
    this.batch = opts.batch ?? 5000;
  }

  job(): Job {
    return {
      name: 'events.prune_purge_records',
      everyMs: 3600_000,
      budgetMs: 30_000,
      run: async (deadline) => {
        await this.run(deadline);
      },
    };
  }

  async run(deadline: number): Promise<{ tombstones: number; attachments: number }> {
    const before = new Date(this.clock.now() - this.retentionMs);
    const tombstones = await this.log.pruneTombstones(
      before,
      this.replayDepth,
      this.batch,
      () => this.clock.now() < deadline,
    );
    let attachments = 0;
    for (let n = this.batch; n === this.batch && this.clock.now() < deadline;) {
      n = await this.evidence.prunePurged(before, this.batch);
      attachments += n;
    }
    return { tombstones, attachments };
  }
}
