import { Value } from 'typebox/value';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { isUuid } from '../http/list.js';
import type { UsersService } from '../users/users.service.js';
import type { AnalyticsService } from '../events/analytics/analytics.service.js';
import { AnalyticsQueryBody } from '../events/analytics/analytics.schemas.js';
import { AUDIENCE_MAX, VISIBILITIES, type Visibility } from './boards.rules.js';
import { PERIODS, type Period } from '../../common/calendar.js';

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const NAME_MAX = 128;

/** The checks that reports, dashboards and widgets share: names, audiences, periods, definitions. */
export class BoardChecks {
  constructor(
    private readonly db: Db,
    private readonly users: UsersService,
    private readonly analytics: AnalyticsService,
  ) {}

  name(v: unknown): string {
    if (typeof v !== 'string' || v.trim().length < 1 || v.length > NAME_MAX)
      throw errors.badRequest('analytics_bad_name');
    return v;
  }

  period(v: unknown): Period {
    if (typeof v !== 'string' || !(PERIODS as readonly string[]).includes(v))
      throw errors.badRequest('analytics_bad_period');
    return v as Period;
  }

  /**
   * Visibility and audience: the audience means something only with `users`, where it must hold
   * 1..64 enabled users of role `user` of the organisation (it is kept empty otherwise).
   */
  async audience(
    orgId: string,
    visibility: unknown,
    ids: unknown,
  ): Promise<{ visibility: Visibility; audience_user_ids: string[] }> {
    if (typeof visibility !== 'string' || !(VISIBILITIES as readonly string[]).includes(visibility))
      throw errors.badRequest('analytics_bad_visibility');
    if (visibility !== 'users') return { visibility: visibility as Visibility, audience_user_ids: [] };
    if (ids === undefined || ids === null || (Array.isArray(ids) && ids.length === 0))
      throw errors.badRequest('analytics_dashboard_audience_required');
    if (!Array.isArray(ids) || !ids.every((x) => typeof x === 'string' && isUuid(x)))
      throw errors.badRequest('analytics_dashboard_bad_audience');
    const unique = [...new Set(ids.map((x: string) => x.toLowerCase()))];
    if (unique.length > AUDIENCE_MAX) throw errors.badRequest('analytics_dashboard_audience_limit');
    const found = await this.users.audience(this.db, orgId, unique);
    if (found.length !== unique.length) throw errors.badRequest('analytics_dashboard_bad_audience');
    return { visibility: 'users', audience_user_ids: unique.sort() };
  }

  /**
   * A report's (or an inline widget's) definition: an analytics query body without org_id, from
   * and to, plus `period` (document 4 §11); checked as the query it becomes, fields included.
   */
  async definition(p: Principal, orgId: string, v: unknown): Promise<Record<string, unknown>> {
    if (!isObj(v) || 'org_id' in v || 'from' in v || 'to' in v) throw errors.badRequest('bad_request');
    const { period, ...query } = v;
    this.period(period);
    const probe = { ...query, org_id: orgId, from: '2000-01-01T00:00:00Z', to: '2000-01-02T00:00:00Z' };
    if (!Value.Check(AnalyticsQueryBody, probe)) throw errors.badRequest('bad_request');
    await this.analytics.check(p, probe);
    return v;
  }
}
