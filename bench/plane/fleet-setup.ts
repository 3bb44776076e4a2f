import type postgres from 'postgres';
import type { keepAliveClient } from './keep-alive-client.js';
import type { FakeFleet } from './fleet-nodes.js';

/**
 * What the two fleet benches (fleet-10k.ts, sweep-pass.ts) share around a real plane sweeping a
 * FakeFleet: waiting on a condition, the sweeps the plane publishes, and the registration of the
 * nodes and their cameras.
 */

type Sql = postgres.Sql;
type Client = ReturnType<typeof keepAliveClient>;

/** Polls `ok` every 200 ms; fails naming `what` after `limitS` (a bound for a hang, not a figure). */
export async function until(what: string, ok: () => Promise<boolean>, limitS: number): Promise<void> {
  const end = Date.now() + limitS * 1000;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`${what}: not within ${limitS} s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** One sweep as the fleet monitor published it: when its NOTIFY came, its number, its wall time. */
export interface PublishedSweep {
  at: number;
  seq: number;
  wallMs: number;
  reachable: number;
}

/**
 * The sweeps the plane publishes from now on (the fleet monitor's NOTIFY, once a sweep is stored),
 * and a wait for the next `n` of them.
 */
export async function watchSweeps(sql: Sql, limitS: number) {
  const sweeps: PublishedSweep[] = [];
  await sql.listen('argus_monitor', (payload) => {
    const at = Date.now();
    void sql`select summary from monitor_fleet`.then(([r]) => {
      // The json column arrives parsed.
      const s = r!.summary as { sampled_at: string; nodes_reachable: number };
      sweeps.push({ at, seq: Number(payload), wallMs: at - Date.parse(s.sampled_at), reachable: s.nodes_reachable });
    });
  });
  return {
    sweeps,
    async next(n: number): Promise<PublishedSweep[]> {
      const from = sweeps.length;
      await until(`${n} sweeps`, async () => sweeps.length >= from + n, limitS);
      return sweeps.slice(from, from + n);
    },
  };
}

/** How many cameras the plane holds live. */
export async function liveCameras(sql: Sql): Promise<number> {
  return Number((await sql`select count(*) filter (where status = 'live') as n from cameras`)[0]!.n);
}

/** The fleet's nodes through the API, eight at a time, named `<prefix>-node-<i>`; their ids in fleet order. */
export async function registerNodes(
  o: { base: string; root: string; client: Client; fleet: FakeFleet },
  count: number,
  prefix: string,
): Promise<string[]> {
  const { http, must } = o.client;
  const nodeIds: string[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let i = next++; i < count; i = next++) {
        const body = { name: `${prefix}-node-${i}`, url: o.fleet.url(i), api_token: o.fleet.token };
        nodeIds[i] = (await must(http(o.base, 'POST', '/api/v1/nodes', body, o.root), 'node')).id;
      }
    }),
  );
  return nodeIds;
}

/**
 * `perNode` cameras on each node in one INSERT, named `<prefix>-cam-<node>-<n>` (an import: a
 * camera created through the API takes the organisation's row lock and counts its cameras, so
 * thousands of them in turn would take most of the run); the sweeps' reconcile then puts their
 * streams on the nodes. Returns the camera ids.
 */
export async function insertCameras(
  sql: Sql,
  orgId: string,
  nodeIds: string[],
  perNode: number,
  prefix: string,
): Promise<string[]> {
  const rows = await sql`insert into cameras (id, org_id, node_id, name, main_source)
    select gen_random_uuid(), ${orgId}, n, ${`${prefix}-cam-`} || n || '-' || c, 'testsrc://'
    from unnest(${nodeIds}::uuid[]) n, generate_series(1, ${perNode}) c returning id`;
  return rows.map((r) => r.id as string);
}
