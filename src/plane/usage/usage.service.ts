import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import type { AuthService } from '../auth/auth.service.js';
import type { EvidenceService } from '../evidence/evidence.service.js';
import { usageStore, type UsageCounters } from './usage.store.js';

/** A counted resource with a max_* limit, its limit field and its 409 code (document 4 §9). */
const QUOTAS = {
  cameras: ['max_cameras', 'max_cameras_reached'],
  users: ['max_users', 'max_users_reached'],
  tags: ['max_tags', 'max_tags_reached'],
  event_templates: ['max_event_templates', 'max_event_templates_reached'],
  dashboards: ['max_dashboards', 'max_dashboards_reached'],
  reports: ['max_reports', 'max_reports_reached'],
} as const satisfies Partial<Record<keyof UsageCounters, readonly [string, string]>>;
export type QuotaResource = keyof typeof QUOTAS;

/** The quota usage object of document 1 (GET /api/v1/usage). */
export interface Usage {
  org_id: string;
  org_name: string;
  cameras_count: number;
  max_cameras: number | null;
  users_count: number;
  max_users: number | null;
  attachment_bytes: number;
  attachment_quota_bytes: number | null;
  sessions_count: number;
  max_sessions_per_user: number | null;
  dashboards_count: number;
  max_dashboards: number | null;
  reports_count: number;
  max_reports: number | null;
  tags_count: number;
  max_tags: number | null;
  event_templates_count: number;
  max_event_templates: number | null;
  agents_count: number;
  max_agents: null;
  agent_devices_count: number;
  max_agent_devices: null;
  agent_access_rules_count: number;
  max_agent_access_rules: null;
  events_count: number;
  attachments_count: number;
}

/**
 * Usage figures from prepared counters (document 4 §9): the writes keep them (triggers of
 * migration 0013, the evidence accounting), a read never counts a resource table. The one
 * exception is bounded: expired sessions the expiry job has not swept yet (docs/usage.md).
 */
export class UsageService {
  constructor(
    private readonly db: Db,
    private readonly orgs: OrgsService,
    private readonly auth: AuthService,
    private readonly evidence: Pick<EvidenceService, 'usage'>,
    /** where the usage page reads its counters: a replica in use may be behind (document 4, section 15) */
    private readonly readDb: Db = db,
  ) {}

  /**
   * The quota check of a create, for a domain whose table has a counter (issue 13: dashboards,
   * reports): call it in the create's transaction before the insert. It locks the organisation's
   * row, so concurrent creates of one organisation admit one after the other and the counter it
   * reads includes every create committed before; N parallel creates at max-1 leave max rows.
   */
  async admit(trx: Db, orgId: string, resource: QuotaResource): Promise<void> {
    const limits = await this.orgs.lockLimits(trx, orgId);
    if (!limits) throw errors.notFound();
    const [field, code] = QUOTAS[resource];
    const max = limits[field];
    if (max !== null && (await usageStore.counters(trx, orgId))[resource] >= max) throw errors.quotaReached(code);
  }

  /** Events stored, every organisation together, from the prepared counters. */
  eventsTotal(): Promise<number> {
    return usageStore.eventsTotal(this.db);
  }

  async usage(p: Principal, query: { org_id?: string }): Promise<Usage> {
    const orgId = query.org_id ?? p.orgId;
    // An organisation administrator learns nothing of another organisation, not even whether it exists.
    if (p.role !== 'superadmin' && orgId !== p.orgId) throw errors.forbidden();
    const org = await this.orgs.find(orgId);
    if (!org) throw errors.notFound();
    const [c, evidence, expired] = await Promise.all([
      usageStore.counters(this.readDb, orgId),
      this.evidence.usage(orgId),
      this.auth.expiredUncounted(orgId),
    ]);
    return {
      org_id: org.id,
      org_name: org.name,
      cameras_count: c.cameras,
      max_cameras: org.max_cameras,
      users_count: c.users,
      max_users: org.max_users,
      attachment_bytes: evidence.bytes,
      attachment_quota_bytes: org.attachment_quota_bytes,
      sessions_count: Math.max(0, c.sessions - expired),
      max_sessions_per_user: org.max_sessions_per_user,
      dashboards_count: c.dashboards,
      max_dashboards: org.max_dashboards,
      reports_count: c.reports,
      max_reports: org.max_reports,
      tags_count: c.tags,
      max_tags: org.max_tags,
      event_templates_count: c.event_templates,
      max_event_templates: org.max_event_templates,
      // Argus has no agents in this release (document 4 §9): 0, unlimited whatever the row says.
      agents_count: 0,
      max_agents: null,
      agent_devices_count: 0,
      max_agent_devices: null,
      agent_access_rules_count: 0,
      max_agent_access_rules: null,
      events_count: c.events,
      attachments_count: evidence.attachments,
    };
  }
}
