import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import { eventId } from '../../../src/plane/events/log/events.ids.js';
import type { EventInsert } from '../../../src/plane/events/log/events.store.js';
import { IntakeWriter } from '../../../src/plane/events/log/intake.writer.js';

// The one-statement intake path (no ext_id, attachment or coalescing) and the writer that merges
// concurrent batches of a token into one statement.
let t: TestPlane;
let x: Tenants;
let camA: string, camB: string, nodeId: string;
let mod: Client;
let tokenId: string;

const iso = () => new Date().toISOString();
const ev = (over: Record<string, unknown> = {}) => ({ detector: 'lpr.plate', occurred_at: iso(), ...over });
const db = () => t.db.database.db;
const row = (over: Partial<EventInsert> = {}): EventInsert => ({
  id: eventId(Date.now()),
  occurred_at: new Date(),
  camera_id: null,
  node_id: null,
  category: 'camera',
  detector: 'd',
  detector_title: null,
  severity: null,
  confidence: null,
  interval: false,
  ended_at: null,
  template_id: null,
  subject_type: null,
  subject_ref: null,
  ext_id: null,
  list_values: '[]',
  fields: '{}',
  payload: '{}',
  attachments: '[]',
  search_text: 'd',
  search_tokens: [],
  ...over,
});
const rowsOf = async (ids: string[]) =>
  (
    await sql<{ id: string; seq: string; node_id: string | null; tx: string }>`
  select id, seq::text as seq, node_id, xmin::text as tx from events where id = any(${ids}::uuid[])`.execute(db())
  ).rows;

beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
  const cam = async (admin: Client) =>
    (await admin.post('/api/v1/cameras', { name: unique('cam'), node_id: nodeId, main_source: 'rtsp://10.0.0.1/a' }))
      .body.id;
  camA = await cam(x.a.admin);
  camB = await cam(x.b.admin);
  const r = await x.a.admin.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 });
  mod = new Client(t.plane.app, r.body.secret);
  tokenId = r.body.id;
  // The token's first use is recorded (the full write); the batches below take the one-statement path.
  expect((await mod.post('/api/v1/events', { events: [ev()] })).status).toBe(200);
});
afterAll(async () => {
  await t?.close();
});

describe('intake in one statement', () => {
  it('concurrent batches of a token share statements; each keeps its positions in item order, its cursor, and its own item errors', async () => {
    const replies = await Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        mod.post('/api/v1/events', {
          events: [
            ev({ camera_id: camA, subject_ref: `r${i}` }),
            ev({ camera_id: camB }),
            ev({ subject_ref: `s${i}` }),
          ],
        }),
      ),
    );
    const ids: string[] = [];
    for (const r of replies) {
      expect(r.status, r.text).toBe(200);
      expect(r.body.results[1]).toEqual({ index: 1, error: 'unknown_camera' });
      ids.push(r.body.results[0].id, r.body.results[2].id);
    }
    const rows = new Map((await rowsOf(ids)).map((r) => [r.id, r]));
    expect(rows.size).toBe(48);
    for (const r of replies) {
      const a = rows.get(r.body.results[0].id)!,
        c = rows.get(r.body.results[2].id)!;
      // statements running at once draw from the sequence at once: positions rise, not always by one
      expect(Number(c.seq)).toBeGreaterThan(Number(a.seq));
      expect(r.body.stream_cursor).toBe(`g:${Number(a.seq) - 1}`);
      expect([a.node_id, c.node_id]).toEqual([nodeId, null]);
      expect(a.tx).toBe(c.tx);
    }
    const stored = await db()
      .selectFrom('events')
      .select(['token_id', 'org_id', 'camera_id'])
      .where('id', '=', replies[0]!.body.results[0].id)
      .executeTakeFirstOrThrow();
    expect(stored).toEqual({ token_id: tokenId, org_id: x.a.orgId, camera_id: camA });
  });

  it('batches that arrive while two statements run are written by one statement, in arrival order, each with its positions in its own order', async () => {
    const writer = new IntakeWriter(db());
    const fill = [
      writer.write(x.a.orgId, { id: tokenId }, [row()], []),
      writer.write(x.a.orgId, { id: tokenId }, [row()], []),
    ];
    const parts = [
      [row(), row({ camera_id: camA })],
      [row({ camera_id: camB }), row()],
      [row(), row(), row()],
    ];
    const pending = parts.map((p) =>
      writer.write(
        x.a.orgId,
        { id: tokenId },
        p,
        p.flatMap((r) => r.camera_id ?? []),
      ),
    );
    // another token's batch is its own statement
    const other = row();
    const otherToken = randomUUID();
    await writer.write(x.a.orgId, { id: otherToken }, [other], []);
    const written = await Promise.all(pending);
    await Promise.all(fill);
    // the camera of another organisation is left out of its batch alone
    expect(written.map((w) => w.inserted.map((i) => i.id))).toEqual([
      [parts[0]![0]!.id, parts[0]![1]!.id],
      [parts[1]![1]!.id],
      parts[2]!.map((r) => r.id),
    ]);
    expect(written[0]!.inserted[1]!.camera).toEqual({
      id: camA,
      node_id: nodeId,
      name: expect.any(String),
      node_name: expect.any(String),
    });
    const seqs = written.flatMap((w) => w.inserted.map((i) => i.seq));
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    const stored = await rowsOf(parts.flat().map((r) => r.id));
    expect(stored).toHaveLength(6);
    expect(new Set(stored.map((r) => r.tx)).size).toBe(1);
    const [o] = await rowsOf([other.id]);
    expect(o!.tx).not.toBe(stored[0]!.tx);
    expect(
      (await db().selectFrom('events').select('token_id').where('id', '=', other.id).executeTakeFirstOrThrow())
        .token_id,
    ).toBe(otherToken);
    expect(stored.find((r) => r.id === parts[0]![1]!.id)!.node_id).toBe(nodeId);
  });

  it('free texts and JSON reach the table as sent: quotes, backslashes, braces, commas, NULL and unicode', async () => {
    const tricky = 'a"b\\c{d},e NULL \u00e9\u{1F600}';
    const r = await mod.post('/api/v1/events', {
      events: [
        ev({
          detector: 'x.y',
          subject_type: 'NULL',
          subject_ref: tricky,
          detector_title: { en: tricky },
          payload: { s: tricky, n: [1, { q: '"' }] },
          confidence: 1e-7,
          severity: 0,
        }),
      ],
    });
    expect(r.status, r.text).toBe(200);
    const e = await db()
      .selectFrom('events')
      .selectAll()
      .where('id', '=', r.body.results[0].id)
      .executeTakeFirstOrThrow();
    expect(e).toMatchObject({
      subject_type: 'NULL',
      subject_ref: tricky,
      detector_title: { en: tricky },
      payload: { s: tricky, n: [1, { q: '"' }] },
      confidence: 1e-7,
      severity: 0,
      list_values: [],
      fields: {},
      attachments: [],
    });
  });

  it('a merged statement that fails is retried batch by batch: only the failing batch fails', async () => {
    const writer = new IntakeWriter(db());
    const existing = row();
    await writer.write(x.a.orgId, { id: tokenId }, [existing], []);
    // Two statements in flight; the next two batches wait and go together.
    const fill = [
      writer.write(x.a.orgId, { id: tokenId }, [row()], []),
      writer.write(x.a.orgId, { id: tokenId }, [row()], []),
    ];
    const good = row({ camera_id: camA });
    const ok = writer.write(x.a.orgId, { id: tokenId }, [good], [camA]);
    const clash = writer.write(
      x.a.orgId,
      { id: tokenId },
      [row({ id: existing.id, occurred_at: existing.occurred_at })],
      [],
    );
    await Promise.all(fill);
    const w = await ok;
    expect(w.inserted).toEqual([
      {
        id: good.id,
        seq: expect.any(Number),
        camera: { id: camA, node_id: nodeId, name: expect.any(String), node_name: expect.any(String) },
      },
    ]);
    await expect(clash).rejects.toThrow(/duplicate key/);
    expect((await rowsOf([good.id, existing.id])).length).toBe(2);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'joins the writers before drawing a position: a safe-head reader holding the lock holds both write paths back',
    async () => {
      await t.db.database.withSession(async (s) => {
        await s.exec('begin');
        await s.query('select pg_advisory_xact_lock(724201003)');
        const [{ head }] = await s.query<{ head: string }>('select last_value::text as head from event_seq');
        let done = 0;
        // the one-statement path, and the full transaction (an ext_id) that joins the writers at its insert
        const pending = [
          mod.post('/api/v1/events', { events: [ev()] }),
          mod.post('/api/v1/events', { events: [ev({ ext_id: unique('x') })] }),
        ].map((p) =>
          p.then((r) => {
            done++;
            return r;
          }),
        );
        await new Promise((r) => setTimeout(r, 300));
        expect(done).toBe(0);
        await s.exec('commit');
        for (const r of await Promise.all(pending)) {
          expect(r.status).toBe(200);
          expect(Number(r.body.stream_cursor.slice(2))).toBeGreaterThanOrEqual(Number(head));
        }
      });
    },
  );
});
