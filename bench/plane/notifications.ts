/**
 * Notifications (issue 24, document 4 §13) against the real plane executable on a fresh
 * PostgreSQL database and a webhook receiver in this process (node:http on 127.0.0.1):
 * 1. 200 matching events/s (batches of 10, three rules each on its own webhook channel) for
 *    DURATION_S: the delivery latency from the event's commit (the intake reply) to its arrival at
 *    the receiver, p50/p95/p99, beside the target p95 < 1 s;
 * 2. intake throughput (batches of 100 on CONCURRENCY connections for THROUGHPUT_MS) with the
 *    three rules enabled against the same with them disabled: (a) on the delivering process, which
 *    sends every delivery meanwhile on the same two cores; (b) on a second process with
 *    `[notifications] deliver = false` while the first is stopped: what the rules cost the event
 *    write itself, beside the target >= 90%;
 * 3. backlog drain: the receiver down while BACKLOG events arrive (3 deliveries each), every one
 *    tried and failed, then up: the time to empty and the rate.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/notifications.js
 *   (DURATION_S default 60, RATE default 200, THROUGHPUT_MS default 5000, CONCURRENCY default 8,
 *    BACKLOG default 5000, CHANNEL_RATE default 2000, WRITE_ROUNDS default 1, PHASES default latency,throughput,write,backlog:
 *    the phases to run, e.g. PHASES=write with PLANE_NODE_ARGS="--cpu-prof ..." to profile the write)
 */
import http from 'node:http';
import postgres from 'postgres';
import type { AddressInfo } from 'node:net';
import { benchDatabase, loginToken, startPlaneProcess } from './harness.js';

const DURATION_S = Number(process.env.DURATION_S ?? 60);
const RATE = Number(process.env.RATE ?? 200);
const THROUGHPUT_MS = Number(process.env.THROUGHPUT_MS ?? 5000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);
const BACKLOG = Number(process.env.BACKLOG ?? 5000);
const CHANNEL_RATE = Number(process.env.CHANNEL_RATE ?? 2000);
const WRITE_ROUNDS = Number(process.env.WRITE_ROUNDS ?? 1);
const PHASES = new Set((process.env.PHASES ?? 'latency,throughput,write,backlog').split(','));

/** The receiver: when each event id arrived (first time), and how many deliveries in all. */
const arrived = new Map<string, number>();
let deliveries = 0;
let refusing = false;
const receiver = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const now = performance.now();
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: { id: string } };
    deliveries++;
    if (!arrived.has(body.event.id)) arrived.set(body.event.id, now);
    res.statusCode = 200;
    res.end();
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const receiverPort = (receiver.address() as AddressInfo).port;
// While "down", new connections are refused at once (the listening socket is closed).
async function receiverDown() {
  refusing = true;
  receiver.closeAllConnections();
  await new Promise<void>((r) => receiver.close(() => r()));
}
async function receiverUp() {
  refusing = false;
  await new Promise<void>((r) => receiver.listen(receiverPort, '127.0.0.1', r));
}

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url, `[notifications]\nchannel_rate = ${CHANNEL_RATE}\n`);
// The process the requests go to (phase 2b: a second process that records deliveries and sends none).
let target = plane.base;
const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY + 4 });
function call(method: string, path: string, body: unknown, token: string): Promise<{ status: number; json: any }> {
  const text = body === undefined ? null : JSON.stringify(body);
  return new Promise((res, rej) => {
    const u = new URL(target + path);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          ...(text ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) } : {}),
        },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const t = Buffer.concat(chunks).toString();
          res({ status: r.statusCode ?? 0, json: t ? JSON.parse(t) : null });
        });
      },
    );
    req.on('error', rej);
    req.end(text ?? undefined);
  });
}
const quantile = (xs: number[], q: number) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

try {
  const root = await loginToken(plane.base, { login: 'bench-root', password: 'bench-root-password' });
  const node = await call(
    'POST',
    '/api/v1/nodes',
    { name: 'n', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
    root,
  );
  const cams: string[] = [];
  for (let i = 0; i < 4; i++)
    cams.push(
      (
        await call(
          'POST',
          '/api/v1/cameras',
          { name: `cam-${i}`, node_id: node.json.id, main_source: 'rtsp://10.0.0.1/a' },
          root,
        )
      ).json.id,
    );
  const mod = (await call('POST', '/api/v1/module-tokens', { name: 'bench', rate_limit: 1_000_000 }, root)).json
    .secret as string;
  const rules: Array<{ id: string; revision: number }> = [];
  for (let i = 0; i < 3; i++) {
    const ch = await call(
      'POST',
      '/api/v1/notification-channels',
      {
        name: `hook-${i}`,
        kind: 'webhook',
        url: `http://127.0.0.1:${receiverPort}/hook/${i}`,
        secret: `bench-secret-${i}`,
      },
      root,
    );
    const rule = await call(
      'POST',
      '/api/v1/notification-rules',
      {
        name: `rule-${i}`,
        match: [{ detectors: ['bench.*'] }, { severity_min: 1 }, { camera_ids: cams }][i],
        channel_ids: [ch.json.id],
      },
      root,
    );
    if (rule.status !== 201) throw new Error(`rule: ${JSON.stringify(rule.json)}`);
    rules.push(rule.json);
  }
  const item = (i: number) => ({
    detector: `bench.${i % 4}`,
    occurred_at: new Date().toISOString(),
    camera_id: cams[i % cams.length],
    severity: 'warning',
    payload: { n: i },
  });
  const post = (n: number) =>
    call('POST', '/api/v1/events', { events: Array.from({ length: n }, (_, i) => item(i)) }, mod);

  // 1. RATE events/s for DURATION_S, batches of 10; latency from each batch's reply (its commit).
  const committed = new Map<string, number>();
  const batchesPerS = Math.max(1, Math.round(RATE / 10));
  const seconds = PHASES.has('latency') ? DURATION_S : 0;
  const start = performance.now();
  const inFlight: Array<Promise<void>> = [];
  for (let k = 0; k < seconds * batchesPerS; k++) {
    const due = start + (k * 1000) / batchesPerS;
    const now = performance.now();
    if (due > now) await wait(due - now);
    inFlight.push(
      post(10).then((r) => {
        const t = performance.now();
        if (r.status !== 200) throw new Error(`intake answered ${r.status}: ${JSON.stringify(r.json)}`);
        for (const x of r.json.results as Array<{ id: string }>) committed.set(x.id, t);
      }),
    );
  }
  await Promise.all(inFlight);
  const until = performance.now() + 60_000;
  while ([...committed.keys()].some((id) => !arrived.has(id)) && performance.now() < until) await wait(50);
  const lat = [...committed].map(([id, t]) => Math.max(0, (arrived.get(id) ?? Infinity) - t));
  const lost = lat.filter((x) => x === Infinity).length;

  console.error(`latency phase done: ${lat.length} events`);
  // 2. Intake throughput with the three rules, then with them disabled.
  async function throughput(): Promise<number> {
    let events = 0;
    const end = performance.now() + THROUGHPUT_MS;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (performance.now() < end) {
          const r = await post(100);
          if (r.status === 200) events += 100;
        }
      }),
    );
    return events / (THROUGHPUT_MS / 1000);
  }
  const drained = async () => {
    const stop = performance.now() + 120_000;
    while (performance.now() < stop) {
      const r = await call('GET', '/api/v1/notification-deliveries?state=pending&limit=1', undefined, root);
      const f = await call('GET', '/api/v1/notification-deliveries?state=failed&limit=1', undefined, root);
      if (!r.json.rows.length && !f.json.rows.length) return;
      await wait(200);
    }
  };
  // Enables or disables the three rules (each PATCH with the revision it last read).
  async function setRules(enabled: boolean): Promise<void> {
    for (const r of rules) {
      const p = await call('PATCH', `/api/v1/notification-rules/${r.id}`, { revision: r.revision, enabled }, root);
      r.revision = p.json.revision;
    }
  }
  let withRules = NaN;
  let withoutRules = NaN;
  if (PHASES.has('throughput')) {
    await drained();
    withRules = await throughput();
    await drained();
    await setRules(false);
    withoutRules = await throughput();
    await setRules(true);
  }

  console.error(`throughput phase done: ${Math.round(withRules)} / ${Math.round(withoutRules)} events/s`);
  // 2b. What the rules cost the event write itself: the same two runs on a process with
  // `[notifications] deliver = false` while the delivering one is stopped, so no sending shares
  // the two cores; the deliveries they record are removed before the delivering process is back.
  let writeWith = NaN;
  let writeWithout = NaN;
  if (PHASES.has('write'))
    await plane.restart(async () => {
      const quiet = await startPlaneProcess(db.url, `[notifications]\ndeliver = false\n`);
      target = quiet.base;
      try {
        // In the order with, without, without, with, WRITE_ROUNDS times (each figure the mean of
        // its runs), so that neither side has all of a drift of the machine.
        const w: number[] = [];
        const wo: number[] = [];
        // A warm-up run, not counted: the first run of a fresh process came 15-25% below its later ones.
        await throughput();
        for (let r = 0; r < WRITE_ROUNDS; r++) {
          w.push(await throughput());
          await setRules(false);
          wo.push(await throughput(), await throughput());
          await setRules(true);
          w.push(await throughput());
        }
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
        writeWith = mean(w);
        writeWithout = mean(wo);
        console.error(
          `write-cost runs: with ${w.map(Math.round).join(', ')}; without ${wo.map(Math.round).join(', ')}`,
        );
      } finally {
        await quiet.stop();
        target = plane.base;
      }
      const sql = postgres(db.url, { max: 1, onnotice: () => {} });
      await sql`delete from notification_deliveries where attempts = 0`;
      await sql`delete from notification_outbox`;
      await sql.end();
    });
  console.error(`write-cost phase done: ${Math.round(writeWith)} / ${Math.round(writeWithout)} events/s`);
  // 3. Backlog: the receiver down while BACKLOG events arrive; every delivery tried once; then up.
  const backlog = PHASES.has('backlog') ? BACKLOG : 0;
  await receiverDown();
  const before = deliveries;
  for (let i = 0; i < backlog; i += 500) await post(Math.min(500, backlog - i));
  const failedAll = async () => {
    const r = await call('GET', '/api/v1/notification-deliveries?state=pending&limit=1', undefined, root);
    return !r.json.rows.length;
  };
  const triedBy = performance.now() + 300_000;
  while (!(await failedAll()) && performance.now() < triedBy) await wait(200);
  console.error('backlog: every delivery tried');
  await receiverUp();
  const upAt = performance.now();
  let firstAt = 0;
  while (deliveries - before < backlog * 3 && performance.now() - upAt < 600_000) {
    if (!firstAt && deliveries > before) firstAt = performance.now();
    await wait(20);
  }
  const emptyAt = performance.now();
  const drainS = (emptyAt - (firstAt || upAt)) / 1000;

  const rows = [
    ['delivery latency p50 from commit', `${round(quantile(lat, 0.5))} ms`, '-'],
    ['delivery latency p95 from commit', `${round(quantile(lat, 0.95))} ms`, '< 1000 ms'],
    ['delivery latency p99 from commit', `${round(quantile(lat, 0.99))} ms`, '-'],
    ['events not delivered within 60 s', String(lost), '0'],
    ['intake, three rules (batches of 100)', `${round(withRules, 0)} events/s`, '-'],
    ['intake, rules disabled (batches of 100)', `${round(withoutRules, 0)} events/s`, '-'],
    ['intake with rules / without, every delivery sent meanwhile', `${round((100 * withRules) / withoutRules)} %`, '-'],
    ['intake, three rules, on a process that does not deliver', `${round(writeWith, 0)} events/s`, '-'],
    ['intake, rules disabled, on that process', `${round(writeWithout, 0)} events/s`, '-'],
    ["intake with rules / without: the write's own cost", `${round((100 * writeWith) / writeWithout)} %`, '>= 90 %'],
    ['backlog: deliveries after the outage', String(backlog * 3), '-'],
    ['backlog: time to empty after the receiver is up', `${round((emptyAt - upAt) / 1000)} s`, '-'],
    ['backlog: drain rate (first to last arrival)', `${round((backlog * 3) / drainS, 0)} deliveries/s`, '-'],
  ];
  console.log(`\nnotifications: ${RATE} events/s for ${DURATION_S} s, 3 rules; channel_rate ${CHANNEL_RATE}\n`);
  console.log('| figure | value | target |\n|---|---|---|');
  for (const r of rows) console.log(`| ${r.join(' | ')} |`);
  console.log(
    JSON.stringify({
      latency_ms: { p50: quantile(lat, 0.5), p95: quantile(lat, 0.95), p99: quantile(lat, 0.99) },
      lost,
      intake_with_rules: withRules,
      intake_without_rules: withoutRules,
      intake_ratio: withRules / withoutRules,
      write_with_rules: writeWith,
      write_without_rules: writeWithout,
      write_ratio: writeWith / writeWithout,
      backlog: { deliveries: backlog * 3, empty_s: (emptyAt - upAt) / 1000, drain_per_s: (backlog * 3) / drainS },
      refusing,
    }),
  );
} finally {
  await plane.stop();
  agent.destroy();
  receiver.closeAllConnections();
  receiver.close();
  await db.drop();
}
