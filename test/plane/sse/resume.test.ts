import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, cameraWorld, type Tenants } from '../inventory.helpers.js';

// Issue 10: a client that keeps losing its connection and resumes with Last-Event-ID sees every
// one of 10,000 records exactly once. The ring replays 512 frames (document 2), so the producer
// keeps its pace below what a reconnect can miss; a `: resync-required` would be a gap and fails.
const RECORDS = 10_000;
const BATCH = 100;

let t: TestPlane;
let x: Tenants;
let base: string;
let cam: string;
let mod: Client;

beforeAll(async () => {
  t = await startPlane();
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  cam = await world.camera(x.a.admin);
  mod = await world.moduleToken(x.a.admin, 1_000_000);
});
afterAll(async () => {
  await t?.close();
});

describe('SSE resume across 10,000 records (GET /api/v1/events/stream, Last-Event-ID)', () => {
  it('reconnecting every 150-550 frames while 100-record batches arrive gives 0 gaps and 0 duplicates', async () => {
    const auth = { authorization: `Bearer ${x.a.admin.token}` };
    const sent: string[] = [];
    let producing = true;
    let go!: () => void;
    const opened = new Promise<void>((r) => {
      go = r;
    });
    const producer = (async () => {
      await opened;
      for (let i = 0; i < RECORDS / BATCH; i++) {
        const r = await mod.post('/api/v1/events', {
          events: Array.from({ length: BATCH }, (_, k) => ({
            occurred_at: new Date().toISOString(),
            detector: 'fault.resume',
            camera_id: cam,
            subject_ref: `r${i * BATCH + k}`,
          })),
        });
        expect(r.status, r.text).toBe(200);
        for (const res of r.body.results) sent.push(res.id);
        await sleep(15);
      }
      producing = false;
    })();

    const seen: string[] = [];
    const seqs: number[] = [];
    let lastId: string | undefined;
    let connections = 0;
    let resyncs = 0;
    let round = 0;
    while (producing || seen.length < RECORDS) {
      const s = await SseReader.open(
        `${base}/api/v1/events/stream`,
        lastId ? { ...auth, 'last-event-id': lastId } : auth,
      );
      expect(s.status).toBe(200);
      connections++;
      // The first stream is open before any record is written (live only); later ones resume.
      if (connections === 1) go();
      const take = 150 + ((round++ * 97) % 400);
      const from = s.events.length;
      await s
        .until(
          (r) =>
            r.events.length - from >= take ||
            r.ended ||
            r.comments.includes('resync-required') ||
            (!producing && seen.length + r.events.length >= RECORDS),
          20_000,
        )
        .catch(() => {});
      s.close();
      if (s.comments.includes('resync-required')) resyncs++;
      for (const e of s.events) {
        seen.push(e.data.id);
        seqs.push(e.data.seq);
        lastId = e.id;
      }
      if (!producing && seen.length >= RECORDS) break;
      if (!producing && s.events.length === 0) break;
    }
    await producer;

    const unique = new Set(seen);
    const duplicates = seen.length - unique.size;
    const missing = sent.filter((id) => !unique.has(id)).length;
    const ordered = seqs.every((v, i) => i === 0 || v > seqs[i - 1]!);
    const summary = { records: sent.length, received: seen.length, connections, missing, duplicates, resyncs, ordered };
    console.info(`sse resume: ${JSON.stringify(summary)}`);
    expect(sent.length).toBe(RECORDS);
    expect(connections).toBeGreaterThan(10);
    expect(summary).toMatchObject({ missing: 0, duplicates: 0, resyncs: 0, ordered: true });
  }, 120_000);
});
