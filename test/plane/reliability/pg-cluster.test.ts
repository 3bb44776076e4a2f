import { afterAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:net';
import postgres from 'postgres';
import { freePort } from '../../../bench/net.js';
import { PgCluster, clusterUnavailable } from './pg-cluster.js';

// The test servers' start: a port taken between its pick and the server's bind (CI saw a standby
// fail so) makes the server start again on another port, not fail the suite.
const unavailable = await clusterUnavailable();
if (unavailable) console.warn(`pg-cluster: skipped: ${unavailable}`);

describe.skipIf(unavailable !== null)('a test cluster whose port is taken before it binds', () => {
  let cluster: PgCluster | undefined;
  let squatter: Server | undefined;
  afterAll(async () => {
    await cluster?.destroy();
    await new Promise((res) => (squatter ? squatter.close(res) : res(undefined)));
  });

  it('starts again on a new port', async () => {
    const taken = await freePort();
    squatter = createServer();
    await new Promise<void>((res) => squatter!.listen(taken, '127.0.0.1', res));
    const picks: number[] = [];
    cluster = await PgCluster.create(async () => {
      const port = picks.length === 0 ? taken : await freePort();
      picks.push(port);
      return port;
    });
    expect(picks.length).toBe(2);
    expect(cluster.port).toBe(picks[1]);
    const sql = postgres(cluster.url(), { max: 1, onnotice: () => {} });
    try {
      expect((await sql`select 1 as one`)[0]!.one).toBe(1);
    } finally {
      await sql.end();
    }
  }, 60_000);
});
