import { expect } from 'vitest';
import type { TestPlane } from './harness.js';
import { CANARY } from './harness.js';
import { Client, login } from './client.js';

export const PASSWORD = `pw-${CANARY}-user`;

export interface Tenant {
  orgId: string;
  admin: Client;
  adminId: string;
  operator: Client;
  operatorId: string;
}
export interface Tenants {
  root: Client;
  a: Tenant;
  b: Tenant;
  anon: Client;
}

let seq = 0;
export const unique = (prefix: string) => `${prefix}-${process.pid}-${++seq}`;

/** Creates a user through the API (as `by`) and signs it in. */
export async function createUser(
  t: TestPlane,
  by: Client,
  body: Record<string, unknown>,
): Promise<{ id: string; client: Client }> {
  const r = await by.post('/api/v1/users', { password: PASSWORD, ...body });
  expect(r.status, r.text).toBe(201);
  return { id: r.body.id, client: await login(t.plane.app, { login: body.login as string, password: PASSWORD }) };
}

async function tenant(t: TestPlane, root: Client, name: string): Promise<Tenant> {
  const org = await root.post('/api/v1/orgs', { name: unique(name) });
  expect(org.status, org.text).toBe(201);
  const admin = await createUser(t, root, { login: unique(`${name}-admin`), role: 'admin', org_id: org.body.id });
  const operator = await createUser(t, admin.client, { login: unique(`${name}-op`), role: 'user' });
  return {
    orgId: org.body.id,
    admin: admin.client,
    adminId: admin.id,
    operator: operator.client,
    operatorId: operator.id,
  };
}

/** Two organisations A and B, each with an administrator and an operator, plus root and anonymous. */
export async function tenants(t: TestPlane): Promise<Tenants> {
  const root = await login(t.plane.app);
  return { root, a: await tenant(t, root, 'orga'), b: await tenant(t, root, 'orgb'), anon: new Client(t.plane.app) };
}

/** The latest audit record of an action on an object, read as root. */
export async function lastAudit(root: Client, action: string, objectId: string) {
  const r = await root.get(`/api/v1/audit?action=${action}&object_id=${objectId}&limit=1`);
  expect(r.status, r.text).toBe(200);
  return r.body.rows[0];
}

export const NOT_FOUND = '{"error":"not_found"}';
export const randomId = () => '00000000-0000-4000-8000-000000000000';

/**
 * Cameras and module tokens for event tests: one node at an address nothing answers; `camera`
 * adds a camera of the admin's organisation on it, `moduleToken` a module-token client.
 */
export async function cameraWorld(t: TestPlane, x: Tenants) {
  const node = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id as string;
  return {
    node,
    camera: async (admin: Client, tagIds: string[] = []): Promise<string> =>
      (
        await admin.post('/api/v1/cameras', {
          name: unique('cam'),
          node_id: node,
          main_source: 'rtsp://10.0.0.1/a',
          tag_ids: tagIds,
        })
      ).body.id,
    moduleToken: async (admin: Client, rateLimit = 100_000): Promise<Client> =>
      new Client(
        t.plane.app,
        (await admin.post('/api/v1/module-tokens', { name: unique('m'), rate_limit: rateLimit })).body.secret,
      ),
  };
}
