import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { FleetMonitor } from '../../../src/plane/monitor/fleet.service.js';
import { freshDatabase, ROOT, type TestDb } from '../harness.js';
import { PlaneProcess } from '../reliability/plane-process.js';
import { freePort } from '../../node/helpers/node-process.js';
import { SseReader } from '../sse-client.js';
import { eventually, nodeIds, poll, report, unreachable } from './monitor.helpers.js';

/**
 * Document 4 §9 with real executables: two plane processes on one database, a sweep stored by a
 * third party (as the process that swept would), and both serve the same summary and frames.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('two plane processes on one database', () => {
  let db: TestDb;
  const planes: PlaneProcess[] = [];
  const dirs: string[] = [];
  let publisher: FleetMonitor;

  beforeAll(async () => {
    db = await freshDatabase();
    for (let i = 0; i < 2; i++) {
      const dir = await mkdtemp(join(tmpdir(), 'argus-mon-'));
      dirs.push(dir);
      const port = await freePort();
      await writeFile(
        join(dir, 'plane.toml'),
        `[network]\npublic_url = "http://127.0.0.1:${port}"\nlisten = "127.0.0.1:${port}"\n[sweeper]\nenabled = false\n`,
      );
      const p = new PlaneProcess(dir, db.url, port);
      await p.start();
      planes.push(p);
    }
    publisher = new FleetMonitor(
      db.database.db,
      async () => ({ total: 2, live: 1, unavailable: 1, degraded: 0, failing: 0 }),
      pino({ level: 'silent' }),
    );
  }, 120_000);
  afterAll(async () => {
    for (const p of planes) await p.stop();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
    await db?.drop();
  });

  it('serve the same summary text and the same numbered node frames', async () => {
    const tokens = await Promise.all(
      planes.map(async (p) => (await p.req('POST', '/api/v1/auth/login', ROOT)).body.token as string),
    );
    const readers = await Promise.all(
      planes.map((p, i) => SseReader.open(`${p.base}/api/v1/monitor/nodes`, { authorization: `Bearer ${tokens[i]}` })),
    );
    const ids = nodeIds(3);
    const summaries = async () =>
      Promise.all(
        planes.map(async (p, i) =>
          (
            await fetch(`${p.base}/api/v1/monitor/fleet/summary`, { headers: { authorization: `Bearer ${tokens[i]}` } })
          ).text(),
        ),
      );
    await publisher.publish(
      report(
        ids.map((id) => poll(id)),
        { nodes_total: 4 },
      ),
    );
    // Both processes hold sweep 1 before sweep 2 is stored: a process that loads two sweeps at once
    // serves only the newer frame of each node (the snapshot), so the frame lists would differ by timing.
    await eventually(async () => (await summaries()).every((s) => JSON.parse(s).seq === 1), 10_000);
    await publisher.publish(report([poll(ids[0]!, { license: 'grace' }), unreachable(ids[1]!)], { nodes_total: 4 }));

    await eventually(async () => (await summaries()).every((s) => JSON.parse(s).seq === 2), 10_000);
    const [a, b] = await summaries();
    expect(b).toBe(a);
    expect(JSON.parse(a!)).toMatchObject({
      seq: 2,
      nodes_total: 4,
      nodes_reachable: 1,
      nodes_grace: 1,
      cameras_total: 2,
      cameras_unavailable: 1,
    });

    for (const r of readers) await r.until((x) => x.events.length >= 5, 10_000);
    expect(readers[1]!.events.map((e) => e.id)).toEqual(['1', '2', '3', '4', '5']);
    expect(readers[1]!.events.map((e) => e.raw)).toEqual(readers[0]!.events.map((e) => e.raw));
    for (const r of readers) r.close();

    // A new subscriber of either process: the same snapshot (the node not polled any more is gone).
    const snaps = await Promise.all(
      planes.map((p, i) => SseReader.open(`${p.base}/api/v1/monitor/nodes`, { authorization: `Bearer ${tokens[i]}` })),
    );
    for (const r of snaps) await r.until((x) => x.events.length >= 2);
    expect(snaps.map((r) => r.events.map((e) => [e.id, e.data.node_id]))).toEqual([
      [
        ['4', ids[0]],
        ['5', ids[1]],
      ],
      [
        ['4', ids[0]],
        ['5', ids[1]],
      ],
    ]);
    for (const r of snaps) r.close();
  }, 60_000);
});
