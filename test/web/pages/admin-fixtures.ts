/**
 * Replies for the administrators' pages in the issue 22 page tests (people, organisations, module
 * tokens, templates), typed by the plane's OpenAPI document.
 */
import { me, ORG, type Body } from './console.harness.js';

type UserRow = Body<'/api/v1/users', 'get'>['rows'][number];
/** A user of the organisation; its id is derived from the login. */
export function person(login: string, role: UserRow['role'], over: Partial<UserRow> = {}): UserRow {
  return {
    ...me(role).user,
    role,
    id: `0190c0de-0000-7000-8000-${Buffer.from(login).toString('hex').padStart(12, '0').slice(-12)}`,
    login,
    name: '',
    ...over,
  };
}

type OrgRow = Body<'/api/v1/orgs', 'get'>['rows'][number];
export function organisation(id: string, name: string): OrgRow {
  return {
    id,
    name,
    max_cameras: null,
    max_users: null,
    max_dashboards: null,
    max_reports: null,
    max_tags: null,
    max_event_templates: null,
    attachment_quota_bytes: null,
    max_sessions_per_user: null,
    max_agents: null,
    max_agent_devices: null,
    max_agent_access_rules: null,
  };
}
export const OTHER_ORG = '0190c0de-0000-7000-8000-0000000000a2';

type TemplateRow = Body<'/api/v1/templates', 'get'>['rows'][number];
export function template(name: string, system = false): TemplateRow {
  return {
    id: `0190c0de-0000-7000-8000-${system ? '0000000005e5' : '0000000007e1'}`,
    org_id: system ? null : ORG,
    name,
    detector_match: 'lpr.*',
    version: 1,
    doc: { detector_match: 'lpr.*', title: { en: name } },
    system,
    enabled: true,
    unknown_fields: [],
    updated_at: '2026-11-01T08:00:00.000Z',
  };
}

export const token = (name: string) => ({
  id: '0190c0de-0000-7000-8000-0000000000f1',
  org_id: ORG,
  name,
  enabled: true,
  rate_limit: null,
  created_at: '2026-11-01T08:00:00.000Z',
  last_used_at: null,
});

type DashboardBody = Body<'/api/v1/analytics-dashboards/{id}', 'get'>;
export const BOARD = '0190c0de-0000-7000-8000-000000000b0a';
/** A dashboard of the organisation without widgets (nothing to run). */
export function board(name: string): DashboardBody {
  return {
    id: BOARD,
    org_id: ORG,
    name,
    description: '',
    visibility: 'org',
    audience_user_ids: [],
    audience_users: [],
    default_period: 'today',
    timezone: 'UTC',
    live_enabled: false,
    created_by: null,
    revision: 1,
    created_at: '2026-11-01T00:00:00.000Z',
    updated_at: '2026-11-01T00:00:00.000Z',
    widgets: [],
  };
}
