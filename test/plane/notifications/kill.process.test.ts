import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { PlaneProcess, PLANE_MAIN } from '../reliability/plane-process.js';
import { freshDatabase, ROOT, type TestDb } from '../harness.js';
import { freePort } from '../../node/helpers/node-process.js';
import { dedupeKey } from '../../../src/plane/notifications/match.js';
import { Receiver, until } from './receiver.js';

// Issue 24: the plane killed with SIGKILL in the middle of sending, started again: nothing lost.
// The deliveries it had claimed are claimed again once their lease has passed (60 s); a repeat
// carries the same dedupe_key. Real executable on a PostgreSQL server; needs `npm run build`.
const BASE = process.env.TEST_DATABASE_URL;
const EVENTS = 300;

describe.skipIf(!BASE || !existsSync(PLANE_MAIN))('kill -9 of the plane while it sends notifications', () => {
  let db: TestDb;
  let dir: string;
  let plane: PlaneProcess;
  let direct: postgres.Sql;
  const receiver = new Receiver();

  beforeAll(async () => {
    await receiver.up();
    db = await freshDatabase();
    await db.database.close();
    dir = await mkdtemp(join(tmpdir(), 'argus-notify-kill-'));
    const port = await freePort();
    await writeFile(
      join(dir, 'plane.toml'),
      `[network]\npublic_url = "http://127.0.0.1:${port}"\nlisten = "127.0.0.1:${port}"\n[sweeper]\nenabled = false\n[notifications]\nchannel_rate = 50\n`,
    );
    plane = new PlaneProcess(dir, db.url!, port);
    await plane.start();
    direct = postgres(db.url!, { max: 1, onnotice: () => {} });
  }, 120_000);
  afterAll(async () => {
    await plane?.kill9();
    await direct?.end();
    await db?.drop();
    await receiver.down();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('delivers every event after the restart, repeats only with the same dedupe_key', async () => {
    const root = (await plane.req('POST', '/api/v1/auth/login', ROOT)).body.token as string;
    const ch = await plane.req(
      'POST',
      '/api/v1/notification-channels',
      { name: 'hook', kind: 'webhook', url: receiver.url, secret: 's' },
      root,
    );
    expect(ch.status, JSON.stringify(ch.body)).toBe(201);
    const rule = await plane.req(
      'POST',
      '/api/v1/notification-rules',
      { name: 'all', match: { detectors: ['kill.*'] }, channel_ids: [ch.body.id] },
      root,
    );
    expect(rule.status, JSON.stringify(rule.body)).toBe(201);
    const mod = await plane.req('POST', '/api/v1/module-tokens', { name: 'm', rate_limit: 1_000_000 }, root);
    // A receiver that answers slowly: the plane is in the middle of sending when it is killed.
    receiver.delayMs = 300;
    const r = await plane.req(
      'POST',
      '/api/v1/events',
      {
        events: Array.from({ length: EVENTS }, () => ({
          detector: 'kill.test',
          occurred_at: new Date().toISOString(),
        })),
      },
      mod.body.secret,
    );
    expect(r.status).toBe(200);
    const ids: string[] = r.body.results.map((x: { id: string }) => x.id);
    await until(() => receiver.got.length > 20 && receiver.pending > 0, 'sending is under way');
    await plane.kill9();
    const atKill = receiver.counts().size;
    const [claimed] = await direct`select count(*)::int as n from notification_deliveries
      where state in ('pending', 'failed') and attempts > 0`;
    console.info(
      `notifications kill -9: ${atKill} of ${EVENTS} received, ${claimed!.n} claimed and unfinished at the kill`,
    );
    expect(atKill).toBeLessThan(EVENTS);
    receiver.delayMs = 0;
    await plane.start();
    await until(() => receiver.counts().size === EVENTS, 'every event received after the restart', 180_000);
    const want = new Set(ids.map((id) => dedupeKey(id, rule.body.id, ch.body.id)));
    expect(new Set(receiver.counts().keys())).toEqual(want);
    await until(async () => {
      const [s] = await direct`select count(*)::int as n from notification_deliveries where state = 'sent'`;
      return s!.n === EVENTS;
    }, 'every delivery marked sent');
  }, 300_000);
});
