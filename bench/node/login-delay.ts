/**
 * Measures the wrong-password delay of POST /api/v1/auth/login on a real node, and a correct
 * login for comparison. Prints figures only. Run: npm run build && node dist/bench/node/login-delay.js
 */
import { startBenchNode, stats } from './harness.js';

const ROUNDS = Number(process.env.ROUNDS ?? 20);
const node = await startBenchNode('trusted_proxies 127.0.0.1;\nauth { admin_password bench-password; }\n');

async function timed(password: string, from: string): Promise<[number, number]> {
  const t0 = performance.now();
  const r = await fetch(`${node.url}/api/v1/auth/login`, {
    method: 'POST',
    body: JSON.stringify({ password }),
    headers: { 'content-type': 'application/json', 'x-forwarded-for': from },
  });
  await r.arrayBuffer();
  return [r.status, performance.now() - t0];
}

const wrong: number[] = [];
const right: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  // A fresh documentation address per attempt keeps the throttling window out of the figure.
  const [s1, w] = await timed('wrong', `198.51.100.${i + 1}`);
  const [s2, c] = await timed('bench-password', `203.0.113.${i + 1}`);
  if (s1 !== 401 || s2 !== 200) throw new Error(`unexpected statuses ${s1} ${s2}`);
  wrong.push(w);
  right.push(c);
}
console.log(`wrong password (401): ${stats(wrong)}`);
console.log(`right password (200): ${stats(right)}`);
await node.stop();
