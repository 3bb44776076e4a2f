import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmdirSync, statSync, statfsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { tenants, cameraWorld, type Tenants } from '../inventory.helpers.js';

// Issue 10: a full disk during evidence writes: no partial file, no orphan row, a clear error.
// A small tmpfs is the full disk; mounting needs root (or CAP_SYS_ADMIN): elsewhere the suite skips.
const dir = mkdtempSync(join(tmpdir(), 'argus-full-'));
let mountError: string | null = null;
try {
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=2m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
} catch (err) {
  mountError = String((err as { stderr?: Buffer }).stderr ?? err).trim();
}
if (mountError) console.warn(`full-disk: skipped: mount of a tmpfs is not permitted here (${mountError})`);
// afterAll unmounts; this covers a run that never reaches it (a filter that skips every test, a crash).
else
  process.once('exit', () => {
    try {
      execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    } catch {
      /* already gone */
    }
  });

/** Every file under `root`, as relative path -> size. */
function files(root: string): Map<string, number> {
  const out = new Map<string, number>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out.set(relative(root, p), statSync(p).size);
    }
  };
  walk(root);
  return out;
}

let t: TestPlane;
let x: Tenants;
let mod: Client;

describe.skipIf(mountError !== null)('a full disk under the evidence storage (2 MiB tmpfs)', () => {
  beforeAll(async () => {
    t = await startPlane({ config: { evidence: { backend: 'local', dir } } });
    x = await tenants(t);
    mod = await (await cameraWorld(t, x)).moduleToken(x.a.admin, 1_000_000);
  });
  afterAll(async () => {
    await t?.close();
    if (!mountError) {
      try {
        execFileSync('umount', ['-l', dir]);
      } catch {
        /* already gone */
      }
    }
    try {
      rmdirSync(dir);
    } catch {
      /* left for the OS */
    }
  });

  it('refuses the upload that does not fit with a clear error and leaves no partial file and no orphan row', async () => {
    const outcomes: Array<{ status: number; body: any; size: number }> = [];
    const sizes = [300_000, 450_000, 512_000, 200_000, 700_000, 333_333, 150_000, 600_000];
    for (const size of sizes) {
      const r = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(size, 9), { 'content-type': 'image/jpeg' });
      outcomes.push({ status: r.status, body: r.body, size });
    }
    const stored = outcomes.filter((o) => o.status === 201);
    const refused = outcomes.filter((o) => o.status !== 201);
    console.info(
      `full-disk evidence: ${JSON.stringify(outcomes.map((o) => [o.size, o.status, o.body?.error ?? o.body?.ref?.slice(0, 8)]))}`,
    );
    expect(stored.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);

    // No partial object: exactly the stored attachments are on disk, each whole; no temp file.
    const onDisk = files(dir);
    onDisk.delete('.argus-evidence'); // the marker of the plane's evidence folder (issue 25), not an object
    expect([...onDisk.keys()].filter((k) => k.includes('.argus-tmp-'))).toEqual([]);
    expect([...onDisk.values()].sort()).toEqual(stored.map((o) => o.size).sort());
    for (const o of stored) expect([...onDisk.keys()].some((k) => k.endsWith(o.body.ref))).toBe(true);

    // No orphan row, and the organisation's usage counts only what is stored.
    const db = t.db.database.db;
    const rows = await db.selectFrom('attachments').select(['ref', 'size']).where('org_id', '=', x.a.orgId).execute();
    expect(rows.map((r) => r.ref).sort()).toEqual(stored.map((o) => o.body.ref).sort());
    const usage = await db
      .selectFrom('org_evidence_usage')
      .select(['bytes', 'attachments'])
      .where('org_id', '=', x.a.orgId)
      .executeTakeFirst();
    expect(usage).toEqual({ bytes: stored.reduce((s, o) => s + o.size, 0), attachments: stored.length });

    // A clear error: the storage is full (507), not an anonymous internal error.
    for (const o of refused) expect(o).toMatchObject({ status: 507, body: { error: 'storage_full' } });
  });

  it('is not wedged by a refusal: an upload that fits the room left is stored whole', async () => {
    const free = statfsSync(dir);
    const room = free.bavail * free.bsize;
    const size = Math.max(1, Math.min(room - 8192, 100_000));
    const r = await mod.req('POST', '/api/v1/attachments', Buffer.alloc(size, 3), { 'content-type': 'image/jpeg' });
    expect(r.status, r.text).toBe(201);
    expect([...files(dir).entries()].find(([k]) => k.endsWith(r.body.ref))?.[1]).toBe(size);
  });
});
