import { afterAll, beforeAll, expect } from 'vitest';
import { ManualClock, startPlane, testConfig, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import type { PlaneConfig } from '../../../src/plane/config/config.js';
import { openDatabase } from '../../../src/plane/db/database.js';
import { FakeNode } from './fake-node.js';

/**
 * The sweeper suites' world: a plane on a ManualClock with the sweeper driven by hand, two
 * organisations, fake nodes. Each test file calls sweeperWorld() once, at its top: the hooks are
 * registered for that file, which then has a plane of its own (so the files run in parallel).
 */
export const SWEEP_MS = 5000;
export const config: Partial<PlaneConfig> = {
  // A node's answer within 2 s: the fake nodes live in the test's process, whose event loop an
  // embedded database's queries hold on a loaded machine (300 ms made answering nodes look down).
  sweeper: { enabled: false, intervalMs: SWEEP_MS, timeoutMs: 2000, concurrency: 4 },
  evidencePressure: { ...testConfig().evidencePressure, maxBytes: 1_000_000 },
};

export function sweeperWorld() {
  let t!: TestPlane;
  let x!: Tenants;
  let clock!: ManualClock;
  const fakes: FakeNode[] = [];

  beforeAll(async () => {
    clock = new ManualClock(Math.floor(Date.now() / 1000) * 1000);
    t = await startPlane({ clock, config });
    x = await tenants(t);
  });
  afterAll(async () => {
    await t?.close();
    await Promise.all(fakes.map((f) => f.close()));
  });

  const db = () => t.db.database.db;

  /** A fake node registered in the plane (superadmin), with `cams` cameras per organisation client. */
  async function node(
    cams: Array<[Client, number]> = [],
    token?: string,
  ): Promise<{ fake: FakeNode; id: string; cameras: string[] }> {
    const fake = await FakeNode.start();
    fakes.push(fake);
    const r = await x.root.post('/api/v1/nodes', {
      name: unique('node'),
      url: fake.url,
      api_token: token ?? fake.token,
    });
    expect(r.status, r.text).toBe(201);
    const cameras: string[] = [];
    for (const [admin, n] of cams) {
      for (let i = 0; i < n; i++) {
        const c = await admin.post('/api/v1/cameras', {
          name: unique('cam'),
          node_id: r.body.id,
          main_source: 'rtsp://10.0.0.1/a',
        });
        expect(c.status, c.text).toBe(201);
        cameras.push(c.body.id);
      }
    }
    return { fake, id: r.body.id, cameras };
  }

  /** Another plane process on the same database: its own pool on a server (one handle for the embedded database). */
  async function secondPlane(
    over: Partial<PlaneConfig> = config,
  ): Promise<{ plane: TestPlane; close(): Promise<void> }> {
    const database = t.db.url ? await openDatabase({ kind: 'postgres', url: t.db.url }) : t.db.database;
    const plane = await startPlane({ clock, config: over, db: { database, url: t.db.url, drop: async () => {} } });
    return {
      plane,
      async close() {
        await plane.close();
        if (database !== t.db.database) await database.close();
      },
    };
  }

  /** The next sweep: the clock moves one interval on, so every enabled node is due again. */
  async function sweep(plane = t) {
    clock.advance(SWEEP_MS);
    return plane.plane.services.sweeper.sweep();
  }

  async function eventsOf(detector: string, where: { node_id?: string; camera_id?: string } = {}) {
    let q = db().selectFrom('events').selectAll().where('detector', '=', detector);
    if (where.node_id) q = q.where('node_id', '=', where.node_id);
    if (where.camera_id) q = q.where('camera_id', '=', where.camera_id);
    return q.orderBy('occurred_at').orderBy('org_id').execute();
  }

  const rootOrg = async () =>
    (await db().selectFrom('users').select('org_id').where('login', '=', 'root').executeTakeFirstOrThrow()).org_id;
  const nodeRow = (id: string) =>
    db()
      .selectFrom('nodes')
      .select(['state', 'last_seen_at', 'version', 'unreachable_since'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
  const status = async (admin: Client, camera: string) => (await admin.get(`/api/v1/cameras/${camera}`)).body.status;

  return {
    get t() {
      return t;
    },
    get x() {
      return x;
    },
    get clock() {
      return clock;
    },
    db,
    node,
    secondPlane,
    sweep,
    eventsOf,
    rootOrg,
    nodeRow,
    status,
  };
}
