import { afterAll, beforeAll, expect } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants, cameraWorld } from '../inventory.helpers.js';

/**
 * The intake suites' world (intake.test.ts, intake.attachments.test.ts): a plane with local
 * evidence storage in a temporary folder and module_rate_limit_default 3, two organisations, three
 * cameras and a module token for each (two in A). Each test file calls intakeWorld() once, at its
 * top: the hooks are registered for that file, which then has a plane of its own (so the files run
 * in parallel). The bindings below are set by it; the tests read them through the import, which
 * stays live.
 */
export let t: TestPlane;
export let x: Tenants;
export let dir: string;
export let camA: string, camA2: string, camB: string, nodeId: string;
export let modA: Client, modA2: Client, modB: Client;
export let tokA: string;

export const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString();
export const ev = (over: Record<string, unknown> = {}) => ({ detector: 'lpr.plate', occurred_at: iso(), ...over });

export async function token(admin: Client, rate: number | null = 100_000): Promise<{ id: string; client: Client }> {
  const r = await admin.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: rate });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, client: new Client(t.plane.app, r.body.secret) };
}
export const db = () => t.db.database.db;
export const rowOf = (id: string) =>
  db().selectFrom('events').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

export function intakeWorld(): void {
  let plane: TestPlane | undefined;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-evidence-'));
    t = plane = await startPlane({ config: { evidence: { backend: 'local', dir }, moduleRateLimitDefault: 3 } });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    nodeId = world.node;
    const cam = (admin: Client) => world.camera(admin);
    camA = await cam(x.a.admin);
    camA2 = await cam(x.a.admin);
    camB = await cam(x.b.admin);
    const a = await token(x.a.admin);
    tokA = a.id;
    modA = a.client;
    modA2 = (await token(x.a.admin)).client;
    modB = (await token(x.b.admin)).client;
  });
  afterAll(async () => {
    await plane?.close();
    await rm(dir, { recursive: true, force: true });
  });
}
