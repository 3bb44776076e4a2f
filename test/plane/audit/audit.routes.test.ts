import { beforeAll, describe, expect, it } from 'vitest';
import { parse as parseCsv } from 'csv-parse/sync';
import { v7 as uuidv7 } from 'uuid';
import { AUDIT_ACTIONS } from '../../../src/plane/audit/actions.js';
import { auditStore } from '../../../src/plane/audit/audit.store.js';
import { adminA, adminB, auditWorld, orgA, orgB, root, t } from './audit.helpers.js';

// GET /api/v1/audit/{id}, /actions and /export.csv, and page sizes with many records; the list
// (GET /api/v1/audit): audit.list.test.ts.
auditWorld();

describe('GET /api/v1/audit/{id}', () => {
  it('returns one record with params, scoped to the caller', async () => {
    const row = (await adminA.get('/api/v1/audit?limit=1')).body.rows[0];
    const r = await adminA.get(`/api/v1/audit/${row.id}?occurred_at=${encodeURIComponent(row.occurred_at)}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual(row);
    const foreign = await adminB.get(`/api/v1/audit/${row.id}?occurred_at=${encodeURIComponent(row.occurred_at)}`);
    const missing = await adminB.get(
      `/api/v1/audit/01900000-0000-7000-8000-000000000000?occurred_at=${encodeURIComponent(row.occurred_at)}`,
    );
    expect(foreign.status).toBe(404);
    expect(foreign.text).toBe(missing.text);
    expect(foreign.body).toEqual({ error: 'not_found' });
    // A malformed id is a record that does not exist, the same answer.
    const malformed = await adminB.get(`/api/v1/audit/not-a-uuid?occurred_at=${encodeURIComponent(row.occurred_at)}`);
    expect(malformed.status).toBe(404);
    expect(malformed.text).toBe(missing.text);
    const upper = await adminA.get(
      `/api/v1/audit/${row.id.toUpperCase()}?occurred_at=${encodeURIComponent(row.occurred_at)}`,
    );
    expect(upper.body).toEqual(row);
    expect(
      (await adminB.get(`/api/v1/audit/${row.id}?occurred_at=${encodeURIComponent(row.occurred_at)}&org=${orgA}`)).body,
    ).toEqual({ error: 'cross_org' });
  });

  it('lets a superadmin narrow with org: a record of another organisation is then 404', async () => {
    const row = (await adminA.get('/api/v1/audit?limit=1')).body.rows[0];
    const at = encodeURIComponent(row.occurred_at);
    expect((await root.get(`/api/v1/audit/${row.id}?occurred_at=${at}`)).body).toEqual(row);
    expect((await root.get(`/api/v1/audit/${row.id}?occurred_at=${at}&org=${orgA}`)).body).toEqual(row);
    const narrowed = await root.get(`/api/v1/audit/${row.id}?occurred_at=${at}&org=${orgB}`);
    expect(narrowed.status).toBe(404);
    expect(narrowed.body).toEqual({ error: 'not_found' });
    // occurred_at is part of the key (the table is partitioned by time): another instant finds nothing.
    const other = encodeURIComponent(new Date(Date.parse(row.occurred_at) + 1).toISOString());
    expect((await root.get(`/api/v1/audit/${row.id}?occurred_at=${other}`)).status).toBe(404);
  });

  it('answers 400 with the framework text when occurred_at is missing or unparseable', async () => {
    const a = await root.get('/api/v1/audit/01900000-0000-7000-8000-000000000000');
    expect(a.status).toBe(400);
    expect(a.body.error).toMatch(/occurred_at/);
    const b = await root.get('/api/v1/audit/01900000-0000-7000-8000-000000000000?occurred_at=yesterday');
    expect(b.status).toBe(400);
    expect(b.body.error).toMatch(/occurred_at/);
  });
});

describe('GET /api/v1/audit/actions', () => {
  it('returns the closed vocabulary covering the groups of document 1', async () => {
    const r = await adminA.get('/api/v1/audit/actions');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ rows: [...AUDIT_ACTIONS] });
    for (const named of [
      'auth.login',
      'auth.login_failed',
      'auth.keys_rotated',
      'node.create',
      'storage.update',
      'grant.update',
      'export.dvr',
      'data.blob_download',
      'data.csv_export',
      'settings.update',
      'camera.update',
      'event.delete',
    ]) {
      expect(r.body.rows).toContain(named);
    }
    for (const group of [
      'auth.',
      'node.',
      'storage.',
      'agent',
      'grant.',
      'view.',
      'data.',
      'org.',
      'user.',
      'tag.',
      'camera.',
      'mosaic.',
      'report.',
      'dashboard.',
      'widget.',
      'template.',
      'token.',
      'share.',
      'ptz.',
      'onvif.',
    ]) {
      expect(
        r.body.rows.some((a: string) => a.startsWith(group)),
        group,
      ).toBe(true);
    }
    for (const a of r.body.rows) expect((await root.get(`/api/v1/audit?action=${a}&limit=1`)).status, a).toBe(200);
  });
});

describe('GET /api/v1/audit/export.csv', () => {
  it('exports 500 rows with the exact header, no user_agent, and audits itself', async () => {
    const r = await root.get('/api/v1/audit/export.csv?limit=3');
    expect(r.status).toBe(200);
    expect(r.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(r.headers['content-disposition']).toBe('attachment; filename=audit.csv');
    const lines = r.text.split('\r\n');
    expect(lines[0]).toBe(
      'occurred_at,org_id,actor_id,actor_name,actor_role,ip,action,object_type,object_id,object_name,node_id,params',
    );
    const records = parseCsv(r.text, { columns: true }) as Record<string, string>[];
    expect(records.length).toBeGreaterThan(3); // limit ignored
    expect(records.length).toBeLessThanOrEqual(500);
    const after = await root.get('/api/v1/audit?action=data.csv_export&limit=1');
    expect(after.body.rows[0].action).toBe('data.csv_export');
  });

  it('prefixes formula-like cells with an apostrophe, also after spaces', async () => {
    // Recorded directly: a failed login that names no user is audited under a placeholder (issue 10, finding 8).
    for (const name of ['=cmd|calc', '+1+1', '-2-2', '@SUM(A1)', '   =HYPERLINK("x")']) {
      await t.db.database.db.transaction().execute((trx) =>
        t.plane.services.audit.record(trx, {
          actor: { id: null, name, role: '', orgId: null, ip: '127.0.0.1', userAgent: '' },
          action: 'auth.login_failed',
          objectType: 'user',
          objectId: null,
          objectName: name,
          params: { reason: 'unknown_login' },
        }),
      );
    }
    const r = await root.get('/api/v1/audit/export.csv?action=auth.login_failed');
    const records = parseCsv(r.text, { columns: true }) as Record<string, string>[];
    const names = records.map((x) => x.object_name);
    for (const n of ["'=cmd|calc", "'+1+1", "'-2-2", "'@SUM(A1)", '\'   =HYPERLINK("x")']) expect(names).toContain(n);
    expect(records.every((x) => !/^\s*[=+\-@]/.test(x.actor_name))).toBe(true);
  });

  it('applies the list checks and scope', async () => {
    expect((await root.get('/api/v1/audit/export.csv?before_id=01900000-0000-7000-8000-000000000000')).body).toEqual({
      error: 'bad_audit_cursor',
    });
    expect((await adminA.get(`/api/v1/audit/export.csv?org=${orgB}`)).body).toEqual({ error: 'cross_org' });
    const mine = parseCsv((await adminA.get('/api/v1/audit/export.csv')).text, { columns: true }) as Record<
      string,
      string
    >[];
    expect(mine.every((x) => x.org_id === orgA)).toBe(true);
  });
});

// Last in the file: it adds 520 older records that the pages above do not expect.
describe('page sizes with many records', () => {
  const SEEDED = 520;
  let oldest: string, newest: string;
  beforeAll(async () => {
    // Seeded straight into the table, a few days old (inside the kept partitions), one ms apart.
    const base = Date.now() - 5 * 86_400_000;
    await t.db.database.db.transaction().execute(async (trx) => {
      for (let i = 0; i < SEEDED; i++) {
        const at = new Date(base + i);
        await auditStore.insert(trx, {
          id: uuidv7({ msecs: at.getTime() }),
          occurred_at: at,
          ended_at: null,
          org_id: orgA,
          actor_id: null,
          actor_name: 'seeder',
          actor_role: 'superadmin',
          ip: '127.0.0.1',
          user_agent: 'seed',
          action: 'tag.create',
          object_type: 'seeded',
          object_id: null,
          object_name: `seeded-${i}`,
          params: { i },
          node_id: null,
        });
      }
    });
    oldest = new Date(base).toISOString();
    newest = new Date(base + SEEDED - 1).toISOString();
  });

  it('answers 100 rows by default', async () => {
    const r = await root.get('/api/v1/audit');
    expect(r.status).toBe(200);
    expect(r.body.rows).toHaveLength(100);
    expect((await root.get('/api/v1/audit?object_type=seeded&limit=500')).body.rows).toHaveLength(500);
  });

  it('treats occurred_from and occurred_to as inclusive bounds', async () => {
    const r = await root.get(`/api/v1/audit?object_type=seeded&limit=500&occurred_from=${encodeURIComponent(newest)}`);
    expect(r.body.rows.map((x: any) => x.object_name)).toEqual([`seeded-${SEEDED - 1}`]);
    const to = await root.get(`/api/v1/audit?object_type=seeded&limit=500&occurred_to=${encodeURIComponent(oldest)}`);
    expect(to.body.rows.map((x: any) => x.object_name)).toEqual(['seeded-0']);
  });

  it('exports exactly 500 rows whatever limit says; before_ts/before_id give the next portion', async () => {
    const first = parseCsv((await root.get('/api/v1/audit/export.csv?object_type=seeded&limit=5')).text, {
      columns: true,
    }) as Record<string, string>[];
    expect(first).toHaveLength(500);
    expect(first[0]!.object_name).toBe(`seeded-${SEEDED - 1}`);
    expect(first[499]!.object_name).toBe(`seeded-${SEEDED - 500}`);
    const last = (await root.get('/api/v1/audit?object_type=seeded&limit=500')).body.rows[499];
    expect(last.object_name).toBe(first[499]!.object_name);
    const rest = parseCsv(
      (
        await root.get(
          `/api/v1/audit/export.csv?object_type=seeded&before_ts=${encodeURIComponent(last.occurred_at)}&before_id=${last.id}`,
        )
      ).text,
      { columns: true },
    ) as Record<string, string>[];
    expect(rest.map((x) => x.object_name)).toEqual(
      Array.from({ length: SEEDED - 500 }, (_, i) => `seeded-${SEEDED - 501 - i}`),
    );
  });
});
