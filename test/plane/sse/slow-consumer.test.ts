import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import net from 'node:net';
import { availableParallelism, loadavg } from 'node:os';
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { createParser } from 'eventsource-parser';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { tenants, cameraWorld, type Tenants } from '../inventory.helpers.js';

// Issue 10: a consumer that stops reading is cut while the other streams get every frame. Frames
// are made large (about 4 KB, sixteen title languages) so the slow socket's buffers fill within the
// run: the plane ends a stream holding more than lagBytes (1 MiB, the default) unsent with
// `: resync-required`. How soon that happens, and the others' delivery p99, depend on how fast this
// machine posts and sends (issue 25: a bound on time inside a test fails on a loaded machine): the
// figures are printed here and measured by the benches; the test waits on the conditions.
const RATE = 500; // events/s
const BATCH = 50;
const SECONDS = 7;
/** How long the run may take to see the cut and every frame delivered, on a loaded machine. */
const DEADLINE_MS = 120_000;

async function until(what: string, ok: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = performance.now() + DEADLINE_MS;
  while (!(await ok())) {
    if (performance.now() > deadline) throw new Error(`not within ${DEADLINE_MS} ms: ${what}`);
    await sleep(50);
  }
}

let t: TestPlane;
let x: Tenants;
let base: string;
let port: number;
let cam: string;
let mod: Client;

beforeAll(async () => {
  // Two streams per user, so a probe as the slow user sees its slot come back (429 until then).
  t = await startPlane({
    config: { live: { globalCapacity: 1024, perPrincipal: 2, heartbeatMs: 15_000, ringSize: 8192, lagBytes: 1 << 20 } },
  });
  base = await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
  port = Number(new URL(base).port);
  x = await tenants(t);
  const world = await cameraWorld(t, x);
  cam = await world.camera(x.a.admin);
  expect(
    (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam], tag_ids: [] })).status,
  ).toBe(200);
  mod = await world.moduleToken(x.a.admin, 1_000_000);
}); // the run's hook time-out (vitest.config.ts): a plane's start on a loaded machine outlasts 60 s
afterAll(async () => {
  await t?.close();
});

/** A stream read at full speed that stamps each frame's arrival. */
async function reader(token: string) {
  const arrivals = new Map<string, number>();
  const abort = new AbortController();
  const res = await fetch(`${base}/api/v1/events/stream`, {
    headers: { authorization: `Bearer ${token}` },
    signal: abort.signal,
  });
  expect(res.status).toBe(200);
  let resync = false;
  const parser = createParser({
    onEvent: (e) => {
      arrivals.set(JSON.parse(e.data).id, performance.now());
    },
    onComment: (c) => {
      if (c.trim() === 'resync-required') resync = true;
    },
  });
  const done = (async () => {
    const dec = new TextDecoder();
    try {
      for await (const chunk of res.body as any as AsyncIterable<Uint8Array>)
        parser.feed(dec.decode(chunk, { stream: true }));
    } catch {
      /* closed */
    }
  })();
  return {
    arrivals,
    get resync() {
      return resync;
    },
    close: async () => {
      abort.abort();
      await done;
    },
  };
}

/** A stream whose client never reads: the request goes out, the socket is paused at once. */
async function stalled(token: string): Promise<net.Socket> {
  const s = net.connect(port, '127.0.0.1');
  await new Promise<void>((r) => s.once('connect', () => r()));
  s.pause();
  s.write(`GET /api/v1/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`);
  return s;
}

let hasSs = true;
try {
  execFileSync('ss', ['-V'], { stdio: 'ignore' });
} catch {
  hasSs = false;
  console.warn('sse slow consumer: no `ss` (iproute2): the closed-connection check is left out');
}

/** Whether the plane still holds an established connection to the client's local port (null: cannot tell). */
function serverHolds(clientPort: number): boolean | null {
  if (!hasSs) return null;
  const out = execFileSync('ss', [
    '-Htn',
    'state',
    'established',
    `( sport = :${port} and dport = :${clientPort} )`,
  ]).toString();
  return out.trim().length > 0;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * p))] ?? NaN;
};
const title = Object.fromEntries(
  ['en', 'de', 'fr', 'it', 'es', 'nl', 'pl', 'cs', 'sk', 'sv', 'da', 'fi', 'pt', 'ro', 'hu', 'el'].map((l) => [
    l,
    `${l}:`.padEnd(220, 'x'),
  ]),
);

describe('SSE slow consumer (GET /api/v1/events/stream)', () => {
  it(
    'cuts a client that stops reading (slot freed, socket closed) while the others get every frame',
    async () => {
      const healthy = [
        await reader(x.root.token!),
        await reader(x.root.token!),
        await reader(x.a.admin.token!),
        await reader(x.a.admin.token!),
        await reader(x.a.operator.token!),
      ];
      const loadBefore = loadavg()[0]!;
      const slow = await stalled(x.a.operator.token!);
      const slowPort = slow.localPort!;
      // Its request is read by the plane when the plane gets to it: it holds the user's second slot then.
      await until('the stalled stream opened', () => t.plane.services.streams.count === healthy.length + 1);
      const probe = async () => {
        const r = await fetch(`${base}/api/v1/events/stream`, {
          headers: { authorization: `Bearer ${x.a.operator.token}` },
        });
        if (r.status === 200) await r.body?.cancel();
        else await r.text();
        return r.status;
      };
      expect(await probe()).toBe(429);

      const posted = new Map<string, number>();
      const loadStart = performance.now();
      let cutAfter = Infinity;
      const probing = (async () => {
        while (performance.now() - loadStart < DEADLINE_MS) {
          await sleep(100);
          if ((await probe()) === 200) {
            cutAfter = performance.now() - loadStart;
            return;
          }
        }
      })();
      let n = 0;
      const interval = (BATCH / RATE) * 1000;
      // At least SECONDS of load, and on until the slow stream is cut (its buffers fill more slowly
      // where the machine posts fewer events a second).
      while (performance.now() - loadStart < (cutAfter === Infinity ? DEADLINE_MS : SECONDS * 1000)) {
        const due = loadStart + (n / BATCH) * interval;
        if (due > performance.now()) await sleep(due - performance.now());
        const at = performance.now();
        const r = await mod.post('/api/v1/events', {
          events: Array.from({ length: BATCH }, () => ({
            occurred_at: new Date().toISOString(),
            detector: 'fault.slow',
            camera_id: cam,
            detector_title: title,
          })),
        });
        expect(r.status, r.text).toBe(200);
        for (const res of r.body.results) posted.set(res.id, at);
        n += BATCH;
      }
      await probing;
      await until('every posted frame reached every healthy stream', () =>
        healthy.every((h) => [...posted.keys()].every((id) => h.arrivals.has(id))),
      ).catch(() => {
        /* counted as missing below */
      });
      // The plane closes the cut socket once it has ended the response.
      await until('the slow socket closed', () => serverHolds(slowPort) !== true).catch(() => {});

      const lat: number[] = [];
      let missing = 0;
      for (const h of healthy) {
        for (const [id, at] of posted) {
          const got = h.arrivals.get(id);
          if (got === undefined) missing++;
          else lat.push(got - at);
        }
      }
      const heldAfter = serverHolds(slowPort);
      const figures = {
        events: posted.size,
        rateAchieved: Math.round(posted.size / SECONDS),
        cutAfterMs: Math.round(cutAfter),
        p50: Math.round(pct(lat, 0.5)),
        p99: Math.round(pct(lat, 0.99)),
        missing,
        healthyResyncs: healthy.filter((h) => h.resync).length,
        heldAfter,
      };
      console.info(`sse slow consumer: ${JSON.stringify(figures)}`);
      for (const h of healthy) await h.close();
      slow.destroy();

      expect(figures.cutAfterMs).toBeLessThan(Infinity);
      expect(figures.missing).toBe(0);
      expect(figures.healthyResyncs).toBe(0);
      if (figures.cutAfterMs > 5000 || figures.p99 > 250) {
        console.warn(
          `sse slow consumer: cut after ${figures.cutAfterMs} ms, p99 ${figures.p99} ms (targets 5000 and 250) at load average ${loadBefore.toFixed(1)} on ${availableParallelism()} cores`,
        );
      }
      // Cut means the connection too: the plane does not keep the socket (and what it queued) after the end.
      if (figures.heldAfter !== null) expect(figures.heldAfter).toBe(false);
    },
    4 * DEADLINE_MS,
  );
});
