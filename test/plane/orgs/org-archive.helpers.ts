import { expect } from 'vitest';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { TestDb, TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { unique } from '../inventory.helpers.js';
import { sendEvents, uploadAttachment } from '../fixtures.js';

// What the archive cleanup suites share (org-archive.test.ts, org-archive.restart.test.ts): the live
// stream limits of their planes, event times, writing events and attachments, waiting for a cleanup
// job, and the rows and files an organisation leaves.

export const live = { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 60_000, ringSize: 50, lagBytes: 1 << 20 };
export const at = (i: number) => new Date(Date.now() - 3600_000 + i * 1000).toISOString();

export const send = sendEvents;
export const upload = (mod: Client, size: number) => uploadAttachment(mod, size, 3);
export async function poll(root: Client, id: string, done: (job: any) => boolean, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const r = await root.get(`/api/v1/cleanup-jobs/${id}`);
    expect(r.status, r.text).toBe(200);
    if (done(r.body)) return r.body;
    if (Date.now() > deadline) throw new Error(`cleanup job ${JSON.stringify(r.body)}`);
    await new Promise((res) => setTimeout(res, 25));
  }
}
export const finished = (root: Client, id: string) => poll(root, id, (j) => j.finished_at !== null);
export async function files(dir: string, orgId: string): Promise<string[]> {
  try {
    return (await readdir(join(dir, orgId), { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) => d.name);
  } catch {
    return [];
  }
}
export async function rowsOf(db: TestDb, orgId: string) {
  const count = async (q: ReturnType<typeof sql<{ n: number }>>) =>
    Number((await q.execute(db.database.db)).rows[0]!.n);
  return {
    orgs: await count(sql`select count(*)::int as n from orgs where id = ${orgId}`),
    events: await count(sql`select count(*)::int as n from events where org_id = ${orgId}`),
    attachments: await count(sql`select count(*)::int as n from attachments where org_id = ${orgId}`),
    module_tokens: await count(sql`select count(*)::int as n from module_tokens where org_id = ${orgId}`),
    templates: await count(sql`select count(*)::int as n from event_templates where org_id = ${orgId}`),
    usage: await count(sql`select count(*)::int as n from org_evidence_usage where org_id = ${orgId}`),
  };
}

/** An organisation with a module token, and a node for cameras. */
export async function archiveOrg(root: Client, app: TestPlane['plane']['app']) {
  const org = (await root.post('/api/v1/orgs', { name: unique('archived') })).body;
  const tok = await root.post('/api/v1/module-tokens', { name: unique('m'), org_id: org.id, rate_limit: 1_000_000 });
  expect(tok.status, tok.text).toBe(201);
  return { org, mod: new Client(app, tok.body.secret) };
}
