/**
 * A failed-login flood from one address against the node (issue 10): CONNS connections from
 * 127.0.0.2 send wrong passwords to POST /api/v1/auth/login as fast as they are answered, while a
 * second address (127.0.0.3) keeps working: an authenticated read (GET /api/v1/config/history)
 * every 50 ms and a correct login every second. The victim's latency is measured in a quiet phase
 * and then under the flood, each --secs long (default 20). Prints the flood's answers by status and
 * rate, and the victim's p50/p99 and statuses in both phases.
 *
 * Run: npm run build && node dist/bench/node/login-flood.js [--secs 20] [--conns 64]
 * Loopback only (127.0.0.0/8 is local on Linux); stops by itself.
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { startBenchNode, stats } from './harness.js';

const { values: flags } = parseArgs({
  options: { secs: { type: 'string', default: '20' }, conns: { type: 'string', default: '64' } },
});
const SECS = Number(flags.secs);
const CONNS = Number(flags.conns);
const PASSWORD = 'bench-flood-password';
const WRITE = 'bench-flood-write-token-0123456789';
const FLOODER = '127.0.0.2';
const VICTIM = '127.0.0.3';

const node = await startBenchNode(`auth {\n    admin_password ${PASSWORD};\n    api_write_token ${WRITE};\n}\n`);
const port = Number(new URL(node.url).port);
const agents: Record<string, Agent> = {
  [FLOODER]: new Agent({ keepAlive: true, maxSockets: CONNS, localAddress: FLOODER }),
  [VICTIM]: new Agent({ keepAlive: true, maxSockets: 8, localAddress: VICTIM }),
};

function call(
  from: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<{ status: number; ms: number; text: string }> {
  const started = performance.now();
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent: agents[from],
        timeout: 10_000,
        headers: {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(body !== undefined
            ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }
            : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          text += c;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, text }));
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: -1, ms: performance.now() - started, text: '' }));
    req.end(body);
  });
}

const count = (m: Map<number, number>, k: number) => m.set(k, (m.get(k) ?? 0) + 1);

/** The victim's traffic for `secs`: reads every 50 ms, a correct login every second. */
async function victim(secs: number, token: string) {
  const reads: number[] = [];
  const logins: number[] = [];
  const statuses = new Map<number, number>();
  const until = performance.now() + secs * 1000;
  let n = 0;
  while (performance.now() < until) {
    const tick = performance.now();
    const r = await call(VICTIM, 'GET', '/api/v1/config/history', { token });
    reads.push(r.ms);
    count(statuses, r.status);
    if (++n % 20 === 0) {
      const l = await call(VICTIM, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } });
      logins.push(l.ms);
      count(statuses, l.status);
    }
    const wait = 50 - (performance.now() - tick);
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return { reads, logins, statuses };
}

try {
  const session = JSON.parse((await call(VICTIM, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } })).text)
    .token as string;
  const quiet = await victim(SECS, session);

  let flooding = true;
  const flood = new Map<number, number>();
  const floodMs: number[] = [];
  const floodStart = performance.now();
  const flooders = Array.from({ length: CONNS }, async () => {
    while (flooding) {
      const r = await call(FLOODER, 'POST', '/api/v1/auth/login', { body: { password: 'wrong-password' } });
      count(flood, r.status);
      floodMs.push(r.ms);
    }
  });
  await new Promise((r) => setTimeout(r, 500));
  const loaded = await victim(SECS, session);
  flooding = false;
  await Promise.all(flooders);
  const floodSecs = (performance.now() - floodStart) / 1000;
  const sent = [...flood.values()].reduce((a, b) => a + b, 0);

  console.log(
    `login flood: ${CONNS} connections from ${FLOODER} for ${floodSecs.toFixed(1)} s: ${sent} attempts = ${(sent / floodSecs).toFixed(0)}/s; answers ${JSON.stringify(Object.fromEntries(flood))}; flood latency ${stats(floodMs)}`,
  );
  for (const [name, v] of [
    ['quiet', quiet],
    ['under flood', loaded],
  ] as const) {
    console.log(`victim ${VICTIM} ${name}: statuses ${JSON.stringify(Object.fromEntries(v.statuses))}`);
    console.log(
      `  reads  ${stats(v.reads)} p99=${[...v.reads].sort((a, b) => a - b)[Math.floor(v.reads.length * 0.99)]!.toFixed(1)}`,
    );
    if (v.logins.length) console.log(`  logins ${stats(v.logins)}`);
  }
} finally {
  await node.stop();
  for (const a of Object.values(agents)) a.destroy();
}
