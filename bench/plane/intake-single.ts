/**
 * Single-event intake against a minimal handler (issue 26): POST /api/v1/events in batches of 1
 * on SINGLE_CONCURRENCY connections with a module token, against the real plane executable,
 * and the same bodies on the same connections against minimal-intake-server.ts (Fastify 5,
 * node-postgres Pool, one `insert ... returning` committed per request into `minimal_events`, a
 * copy of the events table's columns and indexes) on the same database in the same run. Phases
 * alternate (plane, minimal, plane, minimal...) so both see the same neighbours' load. Prints the
 * rates, the ratio, and the CPU per event of the server process and of the PostgreSQL backends.
 * PARTS=1 adds what the PostgreSQL side of each part costs: a plane phase with the rollup and
 * usage triggers disabled, and the token lookup and a notice measured alone on one connection.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/intake-single.js
 *   (SINGLE_MS default 5000 per phase, SINGLE_CONCURRENCY default 32, ROUNDS default 2, PARTS=1,
 *    FIRST_WARMUP_MS default 5000 before each server's first phase (1500 before the others),
 *    PLANE_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>" profiles the plane)
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import { benchDatabase, BOOT, loginToken, processCpuMs, startPlaneProcess } from './harness.js';
import { keepAliveClient } from './keep-alive-client.js';
import { freePort } from '../net.js';

const SINGLE_MS = Number(process.env.SINGLE_MS ?? 5000);
const CONNS = Number(process.env.SINGLE_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PARTS = process.env.PARTS === '1';
const FIRST_WARMUP_MS = Number(process.env.FIRST_WARMUP_MS ?? 5000);

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url);
const sql = postgres(db.url, { max: 1, onnotice: () => {} });
const { http, must, agent } = keepAliveClient(CONNS + 4);
let minimal: ReturnType<typeof spawn> | null = null;
try {
  const session = await loginToken(plane.base, BOOT);
  const node = await must(
    http(
      plane.base,
      'POST',
      '/api/v1/nodes',
      { name: 'n', url: 'http://127.0.0.1:9', api_token: 'bench-node-token-123456' },
      session,
    ),
    'node',
  );
  const cams: string[] = [];
  for (let i = 0; i < 8; i++)
    cams.push(
      (
        await must(
          http(
            plane.base,
            'POST',
            '/api/v1/cameras',
            { name: `cam-${i}`, node_id: node.id, main_source: 'rtsp://10.0.0.1/a' },
            session,
          ),
          'camera',
        )
      ).id,
    );
  const tok = await must(
    http(plane.base, 'POST', '/api/v1/module-tokens', { name: 'bench', rate_limit: 1_000_000 }, session),
    'token',
  );
  const secret = tok.secret as string;
  // The bodies of bench/plane/intake.ts, one item each.
  const bodies = Array.from({ length: 32 }, (_, i) => ({
    events: [
      {
        detector: `lpr.plate.${i % 4}`,
        occurred_at: new Date().toISOString(),
        camera_id: cams[i % cams.length],
        severity: 'info',
        confidence: 0.9,
        subject_type: 'plate',
        subject_ref: `AB${i}`,
        detector_title: { en: 'Plate read' },
        payload: { plate: `AB${i}`, box: [10, 20, 110, 60], lane: i % 3 },
      },
    ],
  }));

  // The baseline's table: the events table's columns and indexes, not partitioned, no trigger.
  await sql`create table minimal_events (like events including defaults including constraints including indexes)`;
  await sql`create sequence minimal_seq`;
  const port = await freePort();
  const root = join(dirname(fileURLToPath(import.meta.url)));
  minimal = spawn(process.execPath, [join(root, 'minimal-intake-server.js')], {
    env: { ...process.env, DATABASE_URL: db.url, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  await new Promise<void>((res, rej) => {
    minimal!.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && res());
    minimal!.once('exit', (c) => rej(new Error(`minimal server exited ${c}`)));
  });
  const minimalBase = `http://127.0.0.1:${port}`;

  const backends = async () => {
    const out = new Map<number, number>();
    const pids =
      await sql`select pid from pg_stat_activity where datname = ${db.name} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
    for (const r of pids) out.set(Number(r.pid), await processCpuMs(Number(r.pid)));
    return out;
  };
  const since = (a: Map<number, number>, b: Map<number, number>) => {
    let ms = 0;
    for (const [pid, v] of b) ms += v - (a.get(pid) ?? v);
    return ms;
  };

  /** Batches of 1 on CONNS connections for SINGLE_MS after a warm-up of `warmMs`; CPU of `pid` and of the backends. */
  async function phase(base: string, pid: number, token?: string, warmMs = 1500) {
    let events = 0;
    let failed = 0;
    async function worker(until: number, measure: boolean) {
      let k = 0;
      while (performance.now() < until) {
        const r = await http(base, 'POST', '/api/v1/events', bodies[k++ % bodies.length], token);
        if (!measure) continue;
        if (r.status === 200) events++;
        else failed++;
      }
    }
    await Promise.all(Array.from({ length: CONNS }, () => worker(performance.now() + warmMs, false)));
    const [cpu0, pg0] = [await processCpuMs(pid), await backends()];
    const t0 = performance.now();
    await Promise.all(Array.from({ length: CONNS }, () => worker(t0 + SINGLE_MS, true)));
    const secs = (performance.now() - t0) / 1000;
    const [cpu1, pg1] = [await processCpuMs(pid), await backends()];
    return {
      events,
      failed,
      rate: events / secs,
      serverUs: (1000 * (cpu1 - cpu0)) / events,
      pgUs: (1000 * since(pg0, pg1)) / events,
    };
  }

  type Phase = Awaited<ReturnType<typeof phase>>;
  const planes: Phase[] = [];
  const minimals: Phase[] = [];
  // Each server's first phase warms up for FIRST_WARMUP_MS: the plane's code paths are many more
  // than the handler's, and compiled later (its first round, warmed up as the others, ran 5-15
  // points below its next).
  for (let i = 0; i < ROUNDS; i++) {
    const warm = i === 0 ? FIRST_WARMUP_MS : undefined;
    planes.push(await phase(plane.base, plane.child.pid!, secret, warm));
    minimals.push(await phase(minimalBase, minimal.pid!, undefined, warm));
  }

  const line = (name: string, p: Phase, ratio: string) =>
    console.log(
      `| ${name} | ${p.events} | ${p.rate.toFixed(0)} | ${ratio} | ${p.serverUs.toFixed(0)} | ${p.pgUs.toFixed(0)} | ${p.failed} |`,
    );
  console.log(
    `\nSingle-event intake, batches of 1 on ${CONNS} connections, ${ROUNDS} alternating rounds of ${SINGLE_MS} ms`,
  );
  console.log(
    '| server | events | events/s | share of minimal | server CPU µs/event | PostgreSQL CPU µs/event | failed |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (let i = 0; i < ROUNDS; i++) {
    line(
      `plane, POST /api/v1/events, batches of 1 (round ${i + 1})`,
      planes[i]!,
      `${((100 * planes[i]!.rate) / minimals[i]!.rate).toFixed(0)}%`,
    );
    line(`minimal Fastify + pg handler (round ${i + 1})`, minimals[i]!, '100%');
  }
  const sum = (ps: Phase[]) => ps.reduce((s, p) => s + p.rate, 0);
  console.log(
    `| plane / minimal, all rounds | - | - | ${((100 * sum(planes)) / sum(minimals)).toFixed(0)}% | - | - | - |`,
  );

  const mean = (ps: Phase[], k: 'rate' | 'serverUs' | 'pgUs') => ps.reduce((a, p) => a + p[k], 0) / ps.length;
  console.log(
    JSON.stringify({
      rounds: ROUNDS,
      connections: CONNS,
      plane: { events_per_s: mean(planes, 'rate'), cpu_us: mean(planes, 'serverUs'), pg_cpu_us: mean(planes, 'pgUs') },
      minimal: {
        events_per_s: mean(minimals, 'rate'),
        cpu_us: mean(minimals, 'serverUs'),
        pg_cpu_us: mean(minimals, 'pgUs'),
      },
      share: sum(planes) / sum(minimals),
    }),
  );

  if (PARTS) {
    // The triggers: the same plane phase with them off (this database only).
    await sql`alter table events disable trigger events_rollup_insert`;
    await sql`alter table events disable trigger usage_events_insert`;
    const bare = await phase(plane.base, plane.child.pid!, secret);
    await sql`alter table events enable trigger events_rollup_insert`;
    await sql`alter table events enable trigger usage_events_insert`;
    line('plane, rollup and usage triggers disabled', bare, '-');
    // Statements measured alone, one after another on one connection (this one's backend).
    const [{ pid }] = await sql`select pg_backend_pid() as pid`;
    const hash = (await sql`select secret_sha256 from module_tokens where id = ${tok.id}`)[0]!.secret_sha256;
    const alone = async (name: string, run: () => Promise<unknown>) => {
      for (let i = 0; i < 200; i++) await run();
      const c0 = await processCpuMs(Number(pid));
      const n = 3000;
      for (let i = 0; i < n; i++) await run();
      console.log(
        `| ${name}, alone | ${n} | - | - | - | ${((1000 * ((await processCpuMs(Number(pid))) - c0)) / n).toFixed(0)} | 0 |`,
      );
    };
    await alone(
      'token lookup (select by secret hash)',
      () =>
        sql`select id, org_id, name, rate_limit, last_used_at from module_tokens where secret_sha256 = ${hash} and enabled = true`,
    );
    const notice = JSON.stringify({ from: 1, to: 1, frames: [{ ...bodies[0]!.events[0], seq: 1, id: tok.id }] });
    await alone('notice (pg_notify of one frame)', () => sql`select pg_notify('argus_bench_single', ${notice})`);
    await alone('empty statement (select 1)', () => sql`select 1`);
  }
} finally {
  if (minimal && minimal.exitCode === null) {
    const exited = new Promise((r) => minimal!.once('exit', r));
    minimal.kill('SIGTERM');
    await exited;
  }
  agent.destroy();
  await sql.end();
  await plane.stop();
  await db.drop();
}
