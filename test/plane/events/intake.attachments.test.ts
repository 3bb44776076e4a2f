import { describe, expect, it } from 'vitest';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { camA, camA2, db, dir, ev, intakeWorld, modA, modB, rowOf, t, tokA, x } from './intake.helpers.js';

// POST /api/v1/attachments (and the events that reference them).
intakeWorld();

describe('POST /api/v1/attachments', () => {
  it('keeps the bytes and Content-Type, accounts them, and links them to the first event that references them', async () => {
    const bytes = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5]);
    const up = await modA.req('POST', '/api/v1/attachments', bytes, { 'content-type': 'image/jpeg' });
    expect(up.status, up.text).toBe(201);
    expect(up.body).toEqual({ ref: expect.stringMatching(/^[0-9a-f-]{36}$/), size: 9, content_type: 'image/jpeg' });
    const meta = await db()
      .selectFrom('attachments')
      .selectAll()
      .where('ref', '=', up.body.ref)
      .executeTakeFirstOrThrow();
    expect(meta).toMatchObject({
      org_id: x.a.orgId,
      token_id: tokA,
      backend: 'local',
      size: 9,
      camera_id: null,
      event_id: null,
    });
    expect(meta.storage_key).toMatch(new RegExp(`^${x.a.orgId}/\\d{4}-\\d{2}-\\d{2}/${up.body.ref}$`));
    expect(await readFile(join(dir, meta.storage_key))).toEqual(bytes);
    expect((await readdir(join(dir, meta.storage_key, '..'))).filter((f) => f.includes('tmp'))).toEqual([]);

    const e = await modA.post('/api/v1/events', { events: [ev({ camera_id: camA, attachments: [up.body.ref] })] });
    const row = await rowOf(e.body.results[0].id);
    expect(row.attachments).toEqual([{ ref: up.body.ref, content_type: 'image/jpeg', size: 9 }]);
    const linked = await db()
      .selectFrom('attachments')
      .selectAll()
      .where('ref', '=', up.body.ref)
      .executeTakeFirstOrThrow();
    expect([linked.camera_id, linked.event_id]).toEqual([camA, row.id]);
    // another camera cannot borrow it; another organisation does not see it
    const m = await modA.post('/api/v1/events', {
      events: [
        ev({ camera_id: camA2, attachments: [up.body.ref] }),
        ev({ camera_id: camA, attachments: [up.body.ref] }),
      ],
    });
    expect(m.body.results[0]).toEqual({ index: 0, error: 'attachment_camera_mismatch' });
    expect(m.body.results[1].id).toBeDefined();
    expect(
      (await modB.post('/api/v1/events', { events: [ev({ attachments: [up.body.ref] })] })).body.results[0],
    ).toEqual({ index: 0, error: 'unknown_attachment' });
  });

  it('any type is kept raw; no type is application/octet-stream', async () => {
    const j = await modA.req('POST', '/api/v1/attachments', '{"not":"parsed"}', { 'content-type': 'application/json' });
    expect(j.body).toMatchObject({ size: 16, content_type: 'application/json' });
    const none = await modA.req('POST', '/api/v1/attachments', Buffer.from('abc'));
    expect(none.status, none.text).toBe(201);
    expect(none.body.content_type).toBe('application/octet-stream');
    const empty = await modA.req('POST', '/api/v1/attachments', Buffer.alloc(0), { 'content-type': 'video/mp4' });
    expect(empty.body).toMatchObject({ size: 0, content_type: 'video/mp4' });
  });

  it('413 attachment_too_large over 16 MiB; 16 MiB exactly passes', async () => {
    const over = await modA.req('POST', '/api/v1/attachments', Buffer.alloc(16 * 1024 * 1024 + 1), {
      'content-type': 'video/mp4',
    });
    expect([over.status, over.body]).toEqual([413, { error: 'attachment_too_large' }]);
    const exact = await modA.req('POST', '/api/v1/attachments', Buffer.alloc(16 * 1024 * 1024), {
      'content-type': 'video/mp4',
    });
    expect(exact.status).toBe(201);
  });

  it('507 attachment_quota_exceeded over the organisation quota; nothing is left behind', async () => {
    const org = (await x.root.post('/api/v1/orgs', { name: unique('quota'), attachment_quota_bytes: 10 })).body;
    const r = await x.root.post('/api/v1/module-tokens', { name: unique('q'), org_id: org.id });
    const mod = new Client(t.plane.app, r.body.secret);
    expect(
      (await mod.req('POST', '/api/v1/attachments', Buffer.alloc(8), { 'content-type': 'image/png' })).status,
    ).toBe(201);
    const no = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(3), { 'content-type': 'image/png' });
    expect([no.status, no.body]).toEqual([507, { error: 'attachment_quota_exceeded' }]);
    expect(
      (await mod.req('POST', '/api/v1/attachments', Buffer.alloc(2), { 'content-type': 'image/png' })).status,
    ).toBe(201);
    expect(await t.plane.services.evidence.usage(org.id)).toEqual({ bytes: 10, attachments: 2 });
    const files = await readdir(join(dir, org.id), { recursive: true, withFileTypes: true });
    expect(files.filter((f) => f.isFile())).toHaveLength(2);
  });

  it('needs a module token', async () => {
    expect(
      (await x.a.admin.req('POST', '/api/v1/attachments', Buffer.from('x'), { 'content-type': 'image/png' })).body,
    ).toEqual({ error: 'unauthorized' });
    expect(
      (await x.anon.req('POST', '/api/v1/attachments', Buffer.from('x'), { 'content-type': 'image/png' })).status,
    ).toBe(401);
  });
});
