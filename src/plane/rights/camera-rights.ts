import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Db } from '../db/database.js';
import type { Principal } from '../http/principal.js';
import { readScope } from './org-scope.js';
import { isUuid } from '../http/list.js';

/**
 * THE camera-rights rule, in one place. Every query that shows cameras or anything tied to a
 * camera (events, analytics, attachments, viewing) takes its filter from here:
 * - superadmin: every camera, or those of the organisation it names in `org`;
 * - organisation administrator: every camera of its organisation;
 * - user (operator): the cameras of its organisation granted to it directly or through a tag.
 * A non-superadmin naming a foreign organisation gets 403 cross_org (from readScope).
 */
export type CameraScope =
  { kind: 'all' } | { kind: 'org'; orgId: string } | { kind: 'granted'; orgId: string; userId: string };

export function cameraScope(p: Principal, org?: string): CameraScope {
  const orgId = readScope(p, org);
  if (orgId === null) return { kind: 'all' };
  if (p.role === 'user') return { kind: 'granted', orgId, userId: p.userId };
  return { kind: 'org', orgId };
}

/**
 * The SQL condition "this camera is visible" over a camera id column, e.g. `c.id` or
 * `e.camera_id`. Give the column of the camera's organisation when the row has one (it lets an
 * organisation filter use its index); otherwise the organisation is looked up in `cameras`.
 *
 *   db.selectFrom('cameras as c').where(cameraVisible(scope, 'c.id', 'c.org_id'))
 */
export function cameraVisible(scope: CameraScope, cameraIdColumn: string, orgIdColumn?: string): RawBuilder<SqlBool> {
  const cam = sql.ref(cameraIdColumn);
  switch (scope.kind) {
    case 'all':
      return sql<SqlBool>`true`;
    case 'org':
      return orgIdColumn
        ? sql<SqlBool>`${sql.ref(orgIdColumn)} = ${scope.orgId}`
        : sql<SqlBool>`${cam} in (select rc.id from cameras rc where rc.org_id = ${scope.orgId})`;
    case 'granted':
      // The organisation check stays even for granted cameras: a grant never crosses organisations.
      return sql<SqlBool>`${cam} in (
        select rc.id from cameras rc
        where rc.org_id = ${scope.orgId} and (
          exists (select 1 from user_camera_grants rg where rg.user_id = ${scope.userId} and rg.camera_id = rc.id)
          or exists (select 1 from camera_tags rct join user_tag_grants rtg on rtg.tag_id = rct.tag_id
                     where rtg.user_id = ${scope.userId} and rct.camera_id = rc.id)))`;
  }
}

/**
 * The visible camera ids as a set, for code that filters in memory (live feeds): `'all'` when
 * nothing is filtered. Prefer `cameraVisible` inside SQL.
 */
export async function visibleCameraIds(db: Db, scope: CameraScope): Promise<Set<string> | 'all'> {
  if (scope.kind === 'all') return 'all';
  const rows = await db
    .selectFrom('cameras as c')
    .select('c.id')
    .where(cameraVisible(scope, 'c.id', 'c.org_id'))
    .execute();
  return new Set(rows.map((r) => r.id));
}

/** Whether one camera is visible: the check of a single-camera route (play, PTZ, attachments). */
export async function canSeeCamera(db: Db, scope: CameraScope, cameraId: string): Promise<boolean> {
  if (!isUuid(cameraId)) return false;
  const row = await db
    .selectFrom('cameras as c')
    .select('c.id')
    .where('c.id', '=', cameraId)
    .where(cameraVisible(scope, 'c.id', 'c.org_id'))
    .executeTakeFirst();
  return row !== undefined;
}
