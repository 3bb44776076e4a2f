import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { FOREIGN_KEY_VIOLATION, pgCode } from '../db/pg-errors.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { requireUuid } from '../http/list.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import { orgsStore } from './orgs.store.js';

/** A domain whose records keep an organisation alive (a user, camera or tag): 409 org_not_empty while it has any. */
export interface OrgOccupant {
  anyInOrg(db: Db, orgId: string): Promise<boolean>;
}

/**
 * The archive cleanup of a deleted organisation (purge domain). `queue` runs in the deleting
 * transaction: it ends what must stop at once (module tokens) and queues a cleanup job when the
 * organisation still holds event history; `start` runs the job after commit.
 */
export interface OrgArchiver {
  queue(
    trx: Db,
    orgId: string,
    createdBy: string | null,
  ): Promise<{ job: { id: string; preview: Record<string, number> } | null; module_tokens: number }>;
  start(): void;
}

/**
 * DELETE /api/v1/orgs/{id}. Built after the domains that occupy an organisation and the event
 * domain that archives its history, which it receives here instead of having them registered
 * on the organisations service later.
 */
export class OrgRemovalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly occupants: readonly OrgOccupant[],
    private readonly archiver: OrgArchiver,
  ) {}

  /**
   * An organisation with users, cameras or tags is 409 org_not_empty. One that still holds event
   * history (events, attachments) goes at once for every read and leaves a cleanup job of kind
   * `archive` that removes the history and then the row (`cleanup_job_id` in the reply, null
   * when there was nothing to clean up). Its module tokens stop at once.
   */
  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true; cleanup_job_id: string | null }> {
    const id = requireUuid(rawId);
    if (id === p.orgId) throw errors.conflict('org_not_empty');
    let queued = false;
    try {
      const reply = await this.db.transaction().execute(async (trx) => {
        const before = await orgsStore.get(trx, id, { lock: true });
        if (!before) throw errors.notFound();
        for (const o of this.occupants) if (await o.anyInOrg(trx, id)) throw errors.conflict('org_not_empty');
        const archive = await this.archiver.queue(trx, id, p.userId);
        const now = new Date(this.clock.now());
        if (archive.job) await orgsStore.markDeleted(trx, id, now);
        else await orgsStore.delete(trx, id);
        // (a key naming tokens would be redacted as a secret)
        const params: Record<string, unknown> = {
          cleanup_job_id: archive.job?.id ?? null,
          revoked_modules: archive.module_tokens,
        };
        if (archive.job) params.preview = archive.job.preview;
        await this.audit.record(trx, {
          actor: actorOf(p),
          orgId: id,
          action: 'org.delete',
          objectType: 'org',
          objectId: id,
          objectName: before.name,
          params,
        });
        queued = archive.job !== null;
        return { id, deleted: true as const, cleanup_job_id: archive.job?.id ?? null };
      });
      if (queued) this.archiver.start();
      return reply;
    } catch (err) {
      // A table of another domain that still references the organisation: the database names the rule.
      if (pgCode(err) === FOREIGN_KEY_VIOLATION) throw errors.conflict('org_not_empty');
      throw err;
    }
  }
}
