import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { freshDatabase, startPlane, type TestDb } from '../harness.js';
import { login } from '../client.js';
import { LocalEvidenceStorage } from '../../../src/plane/evidence/evidence.storage.js';
import { archiveOrg, at, files, finished, live, poll, rowsOf, send, upload } from './org-archive.helpers.js';

// Archive cleanup of an organisation (org-archive.test.ts) when a batch fails, and across plane processes.

/** Local storage whose deletes fail while `failing` is set after `allowed` more deletes. */
class FlakyStorage extends LocalEvidenceStorage {
  allowed = Infinity;
  override async delete(key: string): Promise<void> {
    if (this.allowed <= 0) throw new Error('evidence storage unavailable');
    this.allowed--;
    return super.delete(key);
  }
}

describe('archive cleanup: failure and restart', () => {
  let db: TestDb;
  let dir: string;
  beforeAll(async () => {
    db = await freshDatabase();
    dir = await mkdtemp(join(tmpdir(), 'argus-archive-r-'));
  });
  afterAll(async () => {
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a failed batch leaves last_error and its progress; another process started later resumes and finishes', async () => {
    const storage = new FlakyStorage(dir);
    const one = await startPlane({
      db,
      evidenceStorage: storage,
      config: { evidence: { backend: 'local', dir }, live },
    });
    let orgId: string, jobId: string, refs: string[];
    try {
      const root = await login(one.plane.app);
      const { org, mod } = await archiveOrg(root, one.plane.app);
      orgId = org.id;
      refs = [await upload(mod, 100), await upload(mod, 200), await upload(mod, 400)];
      await send(mod, [
        { detector: 'r', occurred_at: at(1), attachments: [refs[0]] },
        { detector: 'r', occurred_at: at(2), attachments: [refs[1]] },
        { detector: 'r', occurred_at: at(3) },
      ]);
      one.plane.services.events.archive.batch = 1;
      storage.allowed = 2; // one attachment: its bytes and its preview
      const r = await root.del(`/api/v1/orgs/${org.id}`);
      expect(r.status, r.text).toBe(200);
      jobId = r.body.cleanup_job_id;
      const failed = await poll(root, jobId, (j) => j.last_error !== null);
      expect(failed).toMatchObject({
        kind: 'archive',
        state: 'queued',
        progress: {},
        finished_at: null,
        last_error: 'evidence storage unavailable',
      });
      const done = await sql<{
        a: number;
        e: number;
      }>`select deleted_attachments::int as a, deleted_events::int as e from cleanup_jobs where id = ${jobId}`.execute(
        db.database.db,
      );
      expect(done.rows[0]).toEqual({ a: 1, e: 0 });
      expect(await files(dir, org.id)).toHaveLength(2);
      // the organisation stays deleted for every read while its cleanup waits
      expect((await root.get('/api/v1/orgs')).body.rows.map((o: any) => o.id)).not.toContain(org.id);
    } finally {
      await one.close();
    }
    const two = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    try {
      const root = await login(two.plane.app);
      const job = await finished(root, jobId!);
      expect(job).toMatchObject({ state: 'finished', progress: { events: 3, attachments: 3 }, last_error: null });
      expect(await rowsOf(db, orgId!)).toEqual({
        orgs: 0,
        events: 0,
        attachments: 0,
        module_tokens: 0,
        templates: 0,
        usage: 0,
      });
      expect(await files(dir, orgId!)).toEqual([]);
      await expect(stat(join(dir, orgId!))).resolves.toBeDefined(); // directories stay; files are gone
    } finally {
      await two.close();
    }
  });

  it('two processes running the same job at once remove everything exactly once', async () => {
    const one = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    const two = await startPlane({ db, config: { evidence: { backend: 'local', dir }, live } });
    try {
      const root = await login(one.plane.app);
      const { org, mod } = await archiveOrg(root, one.plane.app);
      const refs = await Promise.all([1, 2, 3, 4, 5].map((i) => upload(mod, 100 * i)));
      await send(
        mod,
        Array.from({ length: 40 }, (_, i) => ({
          detector: 'pair',
          occurred_at: at(i),
          attachments: i < 5 ? [refs[i]] : [],
        })),
      );
      for (const p of [one, two]) p.plane.services.events.archive.batch = 3;
      const r = await root.del(`/api/v1/orgs/${org.id}`);
      await two.plane.services.events.archive.runQueued(Date.now() + 20_000);
      const job = await finished(root, r.body.cleanup_job_id);
      expect(job).toMatchObject({
        preview: { events: 40, attachments: 5, attachment_bytes: 1500 },
        progress: { events: 40, attachments: 5 },
        last_error: null,
      });
      const tombs = await sql<{
        n: number;
      }>`select count(*)::int as n from event_tombstones where org_id = ${org.id}`.execute(db.database.db);
      expect(tombs.rows[0]!.n).toBe(40);
      expect(await rowsOf(db, org.id)).toEqual({
        orgs: 0,
        events: 0,
        attachments: 0,
        module_tokens: 0,
        templates: 0,
        usage: 0,
      });
    } finally {
      await two.close();
      await one.close();
    }
  });
});
