import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { freshDatabase, type TestDb } from '../harness.js';
import { migrate } from '../../../src/plane/db/migrate.js';
import { cameraScope, cameraVisible, canSeeCamera, visibleCameraIds } from '../../../src/plane/rights/camera-rights.js';
import type { Principal, Role } from '../../../src/plane/http/principal.js';
import { seedOrg, seedUser } from '../fixtures.js';

const principal = (role: Role, orgId: string, userId: string = randomUUID()): Principal => ({
  userId,
  orgId,
  role,
  login: 'x',
  name: 'x',
  sessionId: randomUUID(),
  expiresAt: Date.now() + 1000,
  ip: '',
  userAgent: '',
});

describe('cameraScope (the rule, without a database)', () => {
  const org = randomUUID(),
    other = randomUUID();
  it('superadmin: everything, or the organisation it names', () => {
    expect(cameraScope(principal('superadmin', org))).toEqual({ kind: 'all' });
    expect(cameraScope(principal('superadmin', org), other)).toEqual({ kind: 'org', orgId: other });
  });
  it('administrator: its organisation; a foreign one is cross_org', () => {
    expect(cameraScope(principal('admin', org))).toEqual({ kind: 'org', orgId: org });
    expect(cameraScope(principal('admin', org), org)).toEqual({ kind: 'org', orgId: org });
    expect(() => cameraScope(principal('admin', org), other)).toThrowError('cross_org');
  });
  it('operator: its grants inside its organisation; a foreign one is cross_org', () => {
    const p = principal('user', org);
    expect(cameraScope(p)).toEqual({ kind: 'granted', orgId: org, userId: p.userId });
    expect(() => cameraScope(p, other)).toThrowError('cross_org');
  });
});

describe('cameraVisible against the database', () => {
  let tdb: TestDb;
  let orgA: string, orgB: string, opA: string, opIdle: string, adminA: string;
  const cams: Record<string, string> = {};
  let tagA: string, tagB: string;

  beforeAll(async () => {
    tdb = await freshDatabase();
    await migrate(tdb.database);
    const db = tdb.database.db;
    orgA = await seedOrg(db, 'A');
    orgB = await seedOrg(db, 'B');
    opA = (await seedUser(db, orgA, 'user', 'opa')).id;
    opIdle = (await seedUser(db, orgA, 'user', 'idle')).id;
    adminA = (await seedUser(db, orgA, 'admin', 'adm')).id;
    const node = randomUUID();
    await db
      .insertInto('nodes')
      .values({
        id: node,
        name: 'n',
        url: 'http://n',
        api_token_enc: 'x',
        auth_backend_secret_enc: null,
        version: null,
        last_seen_at: null,
      })
      .execute();
    for (const [name, org] of [
      ['direct', orgA],
      ['tagged', orgA],
      ['both', orgA],
      ['hidden', orgA],
      ['foreign', orgB],
      ['foreignTagged', orgB],
    ] as const) {
      cams[name] = randomUUID();
      await db
        .insertInto('cameras')
        .values({ id: cams[name]!, org_id: org, node_id: node, name, main_source: 'rtsp://h/1', sub_source: null })
        .execute();
    }
    tagA = randomUUID();
    tagB = randomUUID();
    await db
      .insertInto('tags')
      .values([
        { id: tagA, org_id: orgA, name: 'ta' },
        { id: tagB, org_id: orgB, name: 'tb' },
      ])
      .execute();
    await db
      .insertInto('camera_tags')
      .values([
        { camera_id: cams.tagged!, tag_id: tagA },
        { camera_id: cams.both!, tag_id: tagA },
        { camera_id: cams.foreignTagged!, tag_id: tagB },
      ])
      .execute();
    await db
      .insertInto('user_camera_grants')
      .values([
        { user_id: opA, camera_id: cams.direct! },
        { user_id: opA, camera_id: cams.both! },
        // a stale cross-organisation grant (as if written around the service): the rule still refuses it
        { user_id: opA, camera_id: cams.foreign! },
      ])
      .execute();
    await db
      .insertInto('user_tag_grants')
      .values([
        { user_id: opA, tag_id: tagA },
        { user_id: opA, tag_id: tagB },
      ])
      .execute();
  });
  afterAll(async () => {
    await tdb?.drop();
  });

  const names = (ids: Set<string> | 'all') =>
    ids === 'all'
      ? 'all'
      : Object.entries(cams)
          .filter(([, id]) => ids.has(id))
          .map(([n]) => n)
          .sort();

  it('operator: granted directly or through a tag, only inside its organisation', async () => {
    const scope = cameraScope(principal('user', orgA, opA));
    expect(names(await visibleCameraIds(tdb.database.db, scope))).toEqual(['both', 'direct', 'tagged']);
    expect(await canSeeCamera(tdb.database.db, scope, cams.tagged!)).toBe(true);
    expect(await canSeeCamera(tdb.database.db, scope, cams.hidden!)).toBe(false);
    expect(await canSeeCamera(tdb.database.db, scope, cams.foreign!)).toBe(false);
    expect(await canSeeCamera(tdb.database.db, scope, 'not-a-uuid')).toBe(false);
  });

  it('operator without grants sees nothing; administrator its organisation; superadmin all or narrowed', async () => {
    expect(names(await visibleCameraIds(tdb.database.db, cameraScope(principal('user', orgA, opIdle))))).toEqual([]);
    expect(names(await visibleCameraIds(tdb.database.db, cameraScope(principal('admin', orgA, adminA))))).toEqual([
      'both',
      'direct',
      'hidden',
      'tagged',
    ]);
    expect(await visibleCameraIds(tdb.database.db, cameraScope(principal('superadmin', orgA)))).toBe('all');
    expect(names(await visibleCameraIds(tdb.database.db, cameraScope(principal('superadmin', orgA), orgB)))).toEqual([
      'foreign',
      'foreignTagged',
    ]);
  });

  it('filters a table that only holds a camera id (as events will), with and without an org column', async () => {
    const db = tdb.database.db;
    const scope = cameraScope(principal('user', orgA, opA));
    // camera_tags stands in for any table keyed by camera_id
    const rows = await db
      .selectFrom('camera_tags as e')
      .select('e.camera_id')
      .where(cameraVisible(scope, 'e.camera_id'))
      .execute();
    expect(new Set(rows.map((r) => r.camera_id))).toEqual(new Set([cams.tagged, cams.both]));
    const adminRows = await db
      .selectFrom('camera_tags as e')
      .select('e.camera_id')
      .where(cameraVisible(cameraScope(principal('admin', orgB)), 'e.camera_id'))
      .execute();
    expect(adminRows.map((r) => r.camera_id)).toEqual([cams.foreignTagged]);
  });
});
