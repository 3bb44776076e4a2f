/**
 * Requests per second of GET /metrics with the read token on a real node, from one client
 * process with keep-alive connections on the same host. Prints figures only.
 * Run: npm run build && node dist/bench/node/metrics-rps.js   (DURATION_MS, CONCURRENCY)
 */
import { Agent, request } from 'node:http';
import { startBenchNode } from './harness.js';

const READ = 'bench-read-token-0123456789';
const DURATION_MS = Number(process.env.DURATION_MS ?? 10_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 32);
const node = await startBenchNode(
  `auth {\n    admin_password bench-password;\n    api_read_token ${READ};\n}\nstream cam1 { input testsrc://a; }\n`,
);
const { hostname, port } = new URL(node.url);
const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function once(): Promise<number> {
  return new Promise((res, rej) => {
    const req = request(
      { host: hostname, port, path: '/metrics', agent, headers: { authorization: `Bearer ${READ}` } },
      (r) => {
        r.resume();
        r.on('end', () => res(r.statusCode ?? 0));
      },
    );
    req.on('error', rej);
    req.end();
  });
}

async function worker(until: number, counts: { ok: number; other: number }): Promise<void> {
  while (performance.now() < until) {
    if ((await once()) === 200) counts.ok++;
    else counts.other++;
  }
}

// Warm-up, then the measured run.
await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(performance.now() + 1000, { ok: 0, other: 0 })));
const counts = { ok: 0, other: 0 };
const t0 = performance.now();
await Promise.all(Array.from({ length: CONCURRENCY }, () => worker(t0 + DURATION_MS, counts)));
const secs = (performance.now() - t0) / 1000;
console.log(
  `GET /metrics with the read token: ${(counts.ok / secs).toFixed(0)} requests/s (${counts.ok} x 200, ${counts.other} other, ${CONCURRENCY} connections, ${secs.toFixed(1)} s)`,
);
agent.destroy();
await node.stop();
