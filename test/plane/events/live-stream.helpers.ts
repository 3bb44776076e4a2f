import { afterAll, beforeAll, expect } from 'vitest';
import { startPlane, ManualClock, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { SseReader } from '../sse-client.js';
import { tenants, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { parseEventCursor } from '../../../src/plane/events/stream/stream.service.js';

/**
 * The live stream suites' world (live-stream.test.ts, live-stream.replay.test.ts,
 * live-stream.limits.test.ts): a listening plane on a ManualClock with small live limits, two
 * organisations, three cameras (the operator of A granted cam1) and a module token in each
 * organisation. Each test file calls liveStreamWorld() once, at its top: the hooks are registered
 * for that file, which then has a plane of its own (so the files run in parallel). The bindings
 * below are set by its beforeAll; the tests read them through the import, which stays live.
 */
export let t: TestPlane;
export let x: Tenants;
let base: string;
export let cam1: string, cam2: string, camB: string;
export let modA: Client, modB: Client;
export let clock: ManualClock;

export function liveStreamWorld(): void {
  clock = new ManualClock(Date.now());
  let plane: TestPlane | undefined;
  beforeAll(async () => {
    t = plane = await startPlane({
      clock,
      config: { live: { globalCapacity: 64, perPrincipal: 32, heartbeatMs: 200, ringSize: 50, lagBytes: 1 << 20 } },
    });
    base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    const cam = (admin: Client) => world.camera(admin);
    cam1 = await cam(x.a.admin);
    cam2 = await cam(x.a.admin);
    camB = await cam(x.b.admin);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
    ).toBe(200);
    const tok = (admin: Client) => world.moduleToken(admin, 1_000_000);
    modA = await tok(x.a.admin);
    modB = await tok(x.b.admin);
  });
  afterAll(async () => {
    await plane?.close();
  });
}

export const auth = (c: Client) => ({ authorization: `Bearer ${c.token}` });
export const open = (c: Client, qs = '', headers: Record<string, string> = {}) =>
  SseReader.open(`${base}/api/v1/events/stream${qs}`, { ...auth(c), ...headers });
export const now = () => new Date(clock.now()).toISOString();

export async function send(
  mod: Client,
  items: Array<Record<string, unknown>>,
): Promise<{ ids: string[]; cursor: string }> {
  const r = await mod.post('/api/v1/events', { events: items.map((i) => ({ occurred_at: now(), ...i })) });
  expect(r.status, r.text).toBe(200);
  return {
    ids: r.body.results.map((i: any) => {
      expect(i.id, JSON.stringify(i)).toBeDefined();
      return i.id as string;
    }),
    cursor: r.body.stream_cursor,
  };
}
export const head = async () => (await x.root.get('/api/v1/events?limit=1')).body.stream_cursor as string;
export const seqOf = (cursor: string) => parseEventCursor(cursor)!.seq;
/** Waits until this process's ring holds everything committed (notices travel after commit). */
export async function caughtUp() {
  const written = seqOf(await head());
  while (t.plane.services.events.ring.head < written) await new Promise((r) => setTimeout(r, 10));
}
