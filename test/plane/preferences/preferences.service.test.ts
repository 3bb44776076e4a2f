import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../../src/plane/errors.js';
import type { Principal, Role } from '../../../src/plane/http/principal.js';
import { DEFAULT_PREFERENCES, PreferencesService } from '../../../src/plane/preferences/preferences.service.js';
import { preferencesStore } from '../../../src/plane/preferences/preferences.store.js';
import { ManualClock, startPlane, type TestPlane } from '../harness.js';
import { cameraWorld, createUser, randomId, tenants, unique, type Tenants } from '../inventory.helpers.js';

// The service and its store on a real database (PostgreSQL with TEST_DATABASE_URL, else PGlite).
let t: TestPlane;
let x: Tenants;
let service: PreferencesService;
const clock = new ManualClock();
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  service = new PreferencesService(t.db.database.db, clock, t.plane.services.cameras);
});
afterAll(async () => {
  await t?.close();
});

const principal = (userId: string, orgId: string, role: Role): Principal => ({
  userId,
  orgId,
  role,
  login: 'l',
  name: 'n',
  sessionId: randomId(),
  expiresAt: Date.now() + 60_000,
  ip: '127.0.0.1',
  userAgent: 'test',
});
const view = (name: string, camera_ids: string[], layout: '1' | '2x2' | '3x3' | '4x4' | 'auto' = '2x2') => ({
  name,
  layout,
  camera_ids,
});
const codeOf = async (p: Promise<unknown>) => {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ApiError);
  return { status: (e as ApiError).status, code: (e as ApiError).code };
};

describe('preferences: the service and its store', () => {
  it('a user who never saved reads the defaults, and reading writes nothing', async () => {
    const me = principal(x.a.operatorId, x.a.orgId, 'user');
    expect(await service.get(me)).toEqual({ timezone: null, clock: '24h', views: [] });
    expect(DEFAULT_PREFERENCES).toEqual({ timezone: null, clock: '24h', views: [] });
    expect(await preferencesStore.get(t.db.database.db, x.a.operatorId)).toBeUndefined();
  });

  it('a PUT replaces the record whole, stamped with the clock; uuids are stored lower-cased', async () => {
    const u = await createUser(t, x.a.admin, { login: unique('whole'), role: 'admin' });
    const me = principal(u.id, x.a.orgId, 'admin');
    const world = await cameraWorld(t, x);
    const cam = await world.camera(x.a.admin);
    clock.set(Date.UTC(2026, 5, 1, 8, 0, 0));
    const first = await service.put(me, {
      timezone: 'Europe/Paris',
      clock: '12h',
      views: [view('Gate', [cam.toUpperCase()], '1'), view('All', [], 'auto')],
    });
    expect(first).toEqual({
      timezone: 'Europe/Paris',
      clock: '12h',
      views: [view('Gate', [cam], '1'), view('All', [], 'auto')],
    });
    expect(await service.get(me)).toEqual(first);
    const row = await t.db.database.db
      .selectFrom('user_preferences')
      .select('updated_at')
      .where('user_id', '=', u.id)
      .executeTakeFirstOrThrow();
    expect(new Date(row.updated_at).toISOString()).toBe('2026-06-01T08:00:00.000Z');

    // Whole replacement: what the second PUT leaves out is gone, not kept from the first.
    clock.advance(60_000);
    const second = await service.put(me, { timezone: null, clock: '24h', views: [] });
    expect(second).toEqual({ timezone: null, clock: '24h', views: [] });
    expect(await service.get(me)).toEqual(second);
    expect(await preferencesStore.get(t.db.database.db, u.id)).toEqual(second);
  });

  it('a camera the user may no longer see is left out on read, and comes back with the right', async () => {
    const world = await cameraWorld(t, x);
    const granted = await world.camera(x.a.admin);
    const later = await world.camera(x.a.admin);
    const doomed = await world.camera(x.a.admin);
    const foreign = await world.camera(x.b.admin);
    const op = await createUser(t, x.a.admin, { login: unique('viewer'), role: 'user' });
    const me = principal(op.id, x.a.orgId, 'user');
    const grant = async (ids: string[]) =>
      expect((await x.a.admin.put(`/api/v1/users/${op.id}/grants`, { camera_ids: ids, tag_ids: [] })).status).toBe(200);
    await grant([granted, doomed]);

    const sent = [later, granted, foreign, randomId(), doomed];
    const reply = await service.put(me, { timezone: null, clock: '24h', views: [view('Mine', sent)] });
    // Left out: not granted, another organisation's, none such; the order of the rest is kept.
    expect(reply.views[0]!.camera_ids).toEqual([granted, doomed]);
    // Stored as sent: the record is only narrowed when read.
    expect((await preferencesStore.get(t.db.database.db, op.id))!.views[0]!.camera_ids).toEqual(sent);

    await grant([granted, later, doomed]);
    expect((await service.get(me)).views[0]!.camera_ids).toEqual([later, granted, doomed]);

    expect((await x.a.admin.del(`/api/v1/cameras/${doomed}`)).status).toBe(200);
    expect((await service.get(me)).views[0]!.camera_ids).toEqual([later, granted]);

    await grant([]);
    expect((await service.get(me)).views).toEqual([view('Mine', [])]);

    // The same stored ids as an administrator of A sees them (every camera of A), and as root (all).
    const adminA = principal(x.a.adminId, x.a.orgId, 'admin');
    await service.put(adminA, { timezone: null, clock: '24h', views: [view('Mine', sent)] });
    expect((await service.get(adminA)).views[0]!.camera_ids).toEqual([later, granted]);
    const root = await t.db.database.db
      .selectFrom('users')
      .select(['id', 'org_id'])
      .where('login', '=', 'root')
      .executeTakeFirstOrThrow();
    const superadmin = principal(root.id, root.org_id, 'superadmin');
    await service.put(superadmin, { timezone: null, clock: '24h', views: [view('Mine', sent)] });
    expect((await service.get(superadmin)).views[0]!.camera_ids).toEqual([later, granted, foreign]);
  });

  it("each user's record is its own", async () => {
    const one = await createUser(t, x.b.admin, { login: unique('one'), role: 'user' });
    const two = await createUser(t, x.b.admin, { login: unique('two'), role: 'user' });
    const p1 = principal(one.id, x.b.orgId, 'user');
    const p2 = principal(two.id, x.b.orgId, 'user');
    await service.put(p1, { timezone: 'Asia/Tokyo', clock: '12h', views: [view('Night', [], '3x3')] });
    expect(await service.get(p2)).toEqual(DEFAULT_PREFERENCES);
    await service.put(p2, { timezone: 'UTC', clock: '24h', views: [] });
    expect((await service.get(p1)).timezone).toBe('Asia/Tokyo');
    expect((await service.get(p2)).timezone).toBe('UTC');
  });

  it('timezone: an IANA name Intl knows, or null; anything else is 400 bad_timezone', async () => {
    const me = principal(x.b.operatorId, x.b.orgId, 'user');
    for (const tz of ['America/Argentina/Buenos_Aires', 'Etc/GMT+5', 'UTC', 'Pacific/Chatham', null]) {
      expect((await service.put(me, { timezone: tz, clock: '24h', views: [] })).timezone).toBe(tz);
    }
    for (const tz of ['Mars/Olympus_Mons', '+01:00', 'UTC+1', 'Europe/', '../etc/passwd', 'Europe/Paris ', ' ']) {
      expect(await codeOf(service.put(me, { timezone: tz, clock: '24h', views: [] }))).toEqual({
        status: 400,
        code: 'bad_timezone',
      });
    }
    // A refused PUT changes nothing.
    expect((await service.get(me)).timezone).toBeNull();
  });

  it('two views of one name (in any case) are 400 duplicate_view_name', async () => {
    const me = principal(x.b.operatorId, x.b.orgId, 'user');
    const r = service.put(me, { timezone: null, clock: '24h', views: [view('Lobby', []), view('lobby', [], '1')] });
    expect(await codeOf(r)).toEqual({ status: 400, code: 'duplicate_view_name' });
  });

  it('the record goes with its user', async () => {
    const gone = await createUser(t, x.a.admin, { login: unique('gone'), role: 'user' });
    await service.put(principal(gone.id, x.a.orgId, 'user'), { timezone: null, clock: '12h', views: [] });
    expect(await preferencesStore.get(t.db.database.db, gone.id)).toBeDefined();
    expect((await x.a.admin.del(`/api/v1/users/${gone.id}`)).status).toBe(200);
    expect(await preferencesStore.get(t.db.database.db, gone.id)).toBeUndefined();
  });
});
