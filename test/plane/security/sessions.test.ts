import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SignJWT, generateKeyPair } from 'jose';
import { sql } from 'kysely';
import { startPlane, ManualClock, ROOT, type TestPlane } from '../harness.js';
import { Client, login } from '../client.js';
import { SseReader } from '../sse-client.js';
import { seedUser } from '../fixtures.js';

const TYP = 'argus-session+jwt';
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
const parts = (token: string) => {
  const [h, p, s] = token.split('.');
  return {
    header: JSON.parse(Buffer.from(h!, 'base64url').toString()),
    payload: JSON.parse(Buffer.from(p!, 'base64url').toString()),
    h: h!,
    p: p!,
    s: s!,
  };
};

async function expect401(c: Client, token: string) {
  const r = await c.as(token).get('/api/v1/auth/me');
  expect(r.status).toBe(401);
  expect(r.body).toEqual({ error: 'unauthorized' });
}

describe('forged and stale session tokens', () => {
  let t: TestPlane;
  let clock: ManualClock;
  let good: Client;
  let secret: Uint8Array;

  beforeAll(async () => {
    clock = new ManualClock(Date.now());
    t = await startPlane({ clock });
    good = await login(t.plane.app);
    const key = await t.db.database.db.selectFrom('signing_keys').select('secret').executeTakeFirstOrThrow();
    secret = new Uint8Array(key.secret);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** Same claims as the genuine token, signed as told. */
  async function resign(over: { alg?: string; kid?: string; typ?: string; key?: any }) {
    const { header, payload } = parts(good.token!);
    return new SignJWT(payload)
      .setProtectedHeader({ alg: over.alg ?? 'HS256', kid: over.kid ?? header.kid, typ: over.typ ?? TYP })
      .sign(over.key ?? secret);
  }

  it('accepts the genuine token and a faithful re-signature of it (the forgeries below differ in one point only)', async () => {
    expect((await good.get('/api/v1/auth/me')).status).toBe(200);
    expect((await good.as(await resign({})).get('/api/v1/auth/me')).status).toBe(200);
    expect(parts(good.token!).header).toEqual({ alg: 'HS256', kid: expect.any(String), typ: TYP });
  });

  it('refuses alg none', async () => {
    const { header, p } = parts(good.token!);
    await expect401(good, `${b64({ ...header, alg: 'none' })}.${p}.`);
    await expect401(good, `${b64({ alg: 'none', typ: 'JWT' })}.${p}.`);
  });

  it('refuses a flipped signature byte and a changed claim', async () => {
    const { h, p, s, payload } = parts(good.token!);
    const sig = Buffer.from(s, 'base64url');
    for (const i of [0, sig.length - 1]) {
      const flipped = Buffer.from(sig);
      flipped[i] = flipped[i]! ^ 0x01;
      await expect401(good, `${h}.${p}.${flipped.toString('base64url')}`);
    }
    await expect401(
      good,
      `${h}.${b64({ ...payload, role: 'superadmin', sub: '00000000-0000-4000-8000-000000000000' })}.${s}`,
    );
  });

  it('refuses an unknown key id, even when signed with the right secret', async () => {
    await expect401(good, await resign({ kid: 'ffffffffffff.1' }));
    await expect401(
      good,
      await resign({ kid: undefined as any, typ: TYP }).then((tk) => {
        const { p, s } = parts(tk);
        return `${b64({ alg: 'HS256', typ: TYP })}.${p}.${s}`;
      }),
    );
  });

  it('refuses another key type or token type with the same claims', async () => {
    const es = await generateKeyPair('ES256');
    const ed = await generateKeyPair('EdDSA');
    const rs = await generateKeyPair('RS256');
    await expect401(good, await resign({ alg: 'ES256', key: es.privateKey }));
    await expect401(good, await resign({ alg: 'EdDSA', key: ed.privateKey }));
    await expect401(good, await resign({ alg: 'RS256', key: rs.privateKey }));
    await expect401(good, await resign({ alg: 'HS512' }));
    await expect401(good, await resign({ typ: 'JWT' }));
    await expect401(good, await resign({ typ: 'argus-node+jwt' }));
  });

  it('refuses garbage and a token in the wrong header form', async () => {
    for (const tk of ['x', 'a.b.c', '..', `${good.token}.x`]) await expect401(good, tk);
    const r = await t.plane.app.inject({
      method: 'GET',
      url: '/api/v1/auth/me',
      headers: { authorization: `Basic ${good.token}` },
    });
    expect(r.statusCode).toBe(401);
    expect(r.json()).toEqual({ error: 'unauthorized' });
  });

  it('refuses an expired token (12 h) and keeps it valid until then', async () => {
    const c = await login(t.plane.app);
    clock.advance(12 * 3600_000 - 5_000);
    expect((await c.get('/api/v1/auth/me')).status).toBe(200);
    clock.advance(10_000);
    await expect401(c, c.token!);
    await expect401(c, good.token!);
  });

  it('a token verified before (kept verified per process) still fails verification once expired', async () => {
    const c = await login(t.plane.app);
    const auth = t.plane.services.auth;
    expect((await auth.verifyToken(c.token!)).sid).toEqual(expect.any(String));
    clock.advance(12 * 3600_000 - 5_000);
    expect((await auth.verifyToken(c.token!)).sid).toEqual(expect.any(String));
    clock.advance(10_000);
    await expect(auth.verifyToken(c.token!)).rejects.toMatchObject({ status: 401 });
  });
});

describe('POST /api/v1/admin/keys/rotate', () => {
  let t: TestPlane;
  let base: string;
  let root: Client, admin: Client, operator: Client;
  let adminCreds: { login: string; password: string }, operatorCreds: { login: string; password: string };

  beforeAll(async () => {
    t = await startPlane({ config: { loginThrottle: { attempts: 1000, windowSecs: 60 } } });
    base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    root = await login(t.plane.app);
    const orgId = (await root.get('/api/v1/auth/me')).body.user.org_id;
    adminCreds = await seedUser(t.db.database.db, orgId, 'admin', 'rot-admin');
    operatorCreds = await seedUser(t.db.database.db, orgId, 'user', 'rot-operator');
    admin = await login(t.plane.app, adminCreds);
    operator = await login(t.plane.app, operatorCreds);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is forbidden to an administrator and an operator, and to anonymous callers', async () => {
    for (const c of [admin, operator]) {
      const r = await c.post('/api/v1/admin/keys/rotate');
      expect(r.status).toBe(403);
      expect(r.body).toEqual({ error: 'forbidden' });
    }
    const anon = await new Client(t.plane.app).post('/api/v1/admin/keys/rotate');
    expect(anon.status).toBe(401);
    expect(anon.body).toEqual({ error: 'unauthorized' });
    // Nothing rotated: their sessions still work.
    expect((await admin.get('/api/v1/auth/me')).status).toBe(200);
  });

  async function rotate(qs: string, expectScope: string) {
    root = await login(t.plane.app);
    admin = await login(t.plane.app, adminCreds);
    operator = await login(t.plane.app, operatorCreds);
    const before = t.plane.services.auth.currentKid()!;
    const streams = await Promise.all(
      [root, admin, admin].map((c) =>
        SseReader.open(`${base}/api/v1/audit/stream`, { authorization: `Bearer ${c.token}` }),
      ),
    );
    for (const s of streams) expect(s.status).toBe(200);
    expect(t.plane.services.streams.count).toBe(3);

    const r = await root.post(`/api/v1/admin/keys/rotate${qs}`);
    expect(r.status).toBe(200);
    expect(Object.keys(r.body).sort()).toEqual(['kid', 'scope']);
    expect(r.body.scope).toBe(expectScope);
    expect(r.body.kid).not.toBe(before);
    expect(t.plane.services.auth.currentKid()).toBe(r.body.kid);

    // Every issued token stops verifying at once, the caller's included.
    for (const c of [root, admin, operator]) {
      const me = await c.get('/api/v1/auth/me');
      expect(me.status).toBe(401);
      expect(me.body).toEqual({ error: 'unauthorized' });
    }
    // Open streams end.
    for (const s of streams) await s.until((x) => x.ended);
    expect(t.plane.services.streams.count).toBe(0);

    // A new login signs with the new key; the rotation is audited.
    root = await login(t.plane.app);
    expect(parts(root.token!).header.kid).toBe(r.body.kid);
    const audit = await root.get('/api/v1/audit?action=auth.keys_rotated&limit=1');
    expect(audit.status).toBe(200);
    expect(audit.body.rows[0]).toMatchObject({
      action: 'auth.keys_rotated',
      actor_role: 'superadmin',
      actor_name: ROOT.login,
      params: { scope: expectScope },
    });
    return { before, after: r.body.kid as string };
  }

  it('by default changes the epoch of the key id: new kid over the same material, answered as scope kid', async () => {
    const { before, after } = await rotate('', 'kid');
    const [m0, e0] = before.split('.');
    expect(after).toBe(`${m0}.${Number(e0) + 1}`);
  });

  it("leaves node control tokens alone: the plane still opens a node's write token and viewer secret after either rotation", async () => {
    root = await login(t.plane.app);
    const node = (
      await root.post('/api/v1/nodes', {
        name: 'rot-node',
        url: 'http://127.0.0.1:9',
        api_token: 'node-write-token-1',
        auth_backend_secret: 'node-viewer-secret-1',
      })
    ).body;
    for (const qs of ['', '?scope=material']) {
      expect((await root.post(`/api/v1/admin/keys/rotate${qs}`)).status).toBe(200);
      root = await login(t.plane.app);
      expect(await t.plane.services.nodes.credentials(node.id)).toEqual({
        url: 'http://127.0.0.1:9',
        apiToken: 'node-write-token-1',
        authBackendSecret: 'node-viewer-secret-1',
      });
      const row = (await root.get('/api/v1/nodes')).body.rows.find((n: any) => n.id === node.id);
      expect(row).toMatchObject({ api_token_configured: true, auth_backend_secret_configured: true });
    }
  });

  it('with scope=material replaces the key material', async () => {
    const secretBefore = (await t.db.database.db.selectFrom('signing_keys').select('secret').executeTakeFirstOrThrow())
      .secret;
    const { before, after } = await rotate('?scope=material', 'material');
    expect(after.split('.')[0]).not.toBe(before.split('.')[0]);
    const secretAfter = (await t.db.database.db.selectFrom('signing_keys').select('secret').executeTakeFirstOrThrow())
      .secret;
    expect(Buffer.from(secretAfter).equals(Buffer.from(secretBefore))).toBe(false);
  });

  it('answers 500 rotate_failed when the rotation cannot be written, and rotates nothing', async () => {
    root = await login(t.plane.app);
    const before = t.plane.services.auth.currentKid();
    const db = t.db.database.db;
    await sql`alter table signing_keys rename to signing_keys_hidden`.execute(db);
    try {
      const r = await root.post('/api/v1/admin/keys/rotate');
      expect(r.status).toBe(500);
      expect(r.body).toEqual({ error: 'rotate_failed' });
    } finally {
      await sql`alter table signing_keys_hidden rename to signing_keys`.execute(db);
    }
    expect(t.plane.services.auth.currentKid()).toBe(before);
    expect((await root.get('/api/v1/auth/me')).status).toBe(200);
  });

  it('treats an unknown scope value as an epoch change', async () => {
    await rotate('?scope=everything', 'kid');
  });
});
