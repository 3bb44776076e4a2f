import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../harness.js';
import { login, type Client } from '../client.js';
import { planeWithFile } from './plane-with-file.js';

// The pre-check of a candidate evidence storage (PATCH and POST .../evidence-storage/test),
// hardened in issue 25.

const MARKS = { volume_retention: 'disabled', low_watermark_percent: 70, high_watermark_percent: 85, critical_watermark_percent: 95 };

describe('a local evidence folder must be the plane\'s own (issue 25, finding 2)', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => { p = await planeWithFile(); root = await login(p.t.plane.app, ROOT); });
  afterAll(async () => { await p?.close(); });
  const local = (dir: string) => ({ evidence_storage: { backend: 'local', dir, ...MARKS } });
  const check = (dir: string) => root.post('/api/v1/settings/plane/evidence-storage/test', local(dir));
  const save = (dir: string) => root.req('PATCH', '/api/v1/settings/plane', local(dir));

  it.each(['/', '/etc', '/usr', '/var', '/proc', '/sys', '/dev', '/boot', '/dev/shm'])('%s: 400 evidence_dir_refused, by the test and by a PATCH; nothing written', async (dir) => {
    const before = await readFile(p.file, 'utf8');
    for (const r of [await check(dir), await save(dir)]) {
      expect(r.status, r.text).toBe(400);
      expect(r.body).toEqual({ error: 'evidence_dir_refused', reason: expect.stringMatching(/system folder$/) });
    }
    expect(await readFile(p.file, 'utf8')).toBe(before);
  });

  it('the data dir, and a folder holding other files: 400 with the reason; the files stay', async () => {
    const data = await check(p.dir);
    expect([data.status, data.body]).toEqual([400, { error: 'evidence_dir_refused', reason: `evidence_storage.dir: ${p.dir} is the plane's data dir` }]);
    const busy = join(p.dir, 'photos');
    await mkdir(join(busy, 'holiday'), { recursive: true });
    await writeFile(join(busy, 'holiday', 'beach.jpg'), 'x');
    for (const r of [await check(busy), await save(busy)]) {
      expect(r.status, r.text).toBe(400);
      expect(r.body).toEqual({ error: 'evidence_dir_refused', reason: `evidence_storage.dir: ${busy} holds files the plane did not write (holiday); give the evidence an empty folder of its own` });
    }
    expect(await readdir(busy)).toEqual(['holiday']);
  });

  it('the test makes only the folder it names, never its parents', async () => {
    const deep = join(p.dir, 'not', 'there', 'evidence');
    const r = await check(deep);
    expect([r.status, r.body]).toEqual([502, { error: 'create the folder failed: ENOENT' }]);
    expect(existsSync(join(p.dir, 'not'))).toBe(false);
    const named = join(p.dir, 'fresh');
    expect((await check(named)).body).toEqual({ ok: true, rotation_blocked: false });
    expect(await readdir(named)).toEqual([]);
  });

  it('an empty folder, or one an earlier version filled (only the layout), is accepted and saved', async () => {
    const old = join(p.dir, 'earlier');
    await mkdir(join(old, '0190c1a2-0000-7000-8000-00000000000a', '2026-11-20'), { recursive: true });
    await writeFile(join(old, '0190c1a2-0000-7000-8000-00000000000a', '2026-11-20', '0190c1a2-0000-7000-8000-000000000001'), 'evidence');
    expect((await check(old)).body).toEqual({ ok: true, rotation_blocked: false });
    const r = await save(old);
    expect(r.status, r.text).toBe(200);
    expect(r.body.evidence_storage.saved).toMatchObject({ backend: 'local', dir: old });
  });
});
