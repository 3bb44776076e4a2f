/**
 * Settings edits under contention (issue 12): ROUNDS rounds of EDITORS concurrent PATCHes of
 * /api/v1/settings/plane against the real plane executable, all carrying the ETag of one GET; in
 * every round exactly one must win (200) and the others answer 409 settings_changed. Prints the
 * winners per round and the latency of the PATCHes (p50/p99), beside a GET of the settings in the
 * same run as the baseline.
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/settings-patch.js
 *   (EDITORS default 50, ROUNDS default 20)
 */
import { benchDatabase, startPlaneProcess, loginToken, BOOT } from './harness.js';

const EDITORS = Number(process.env.EDITORS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 20);

const db = await benchDatabase();
const plane = await startPlaneProcess(db.url, '[sweeper]\nenabled = false\n');
const token = await loginToken(plane.base, BOOT);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
const pct = (xs: number[], q: number) => xs.sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

const getMs: number[] = [];
for (let i = 0; i < 50; i++) {
  const t0 = performance.now();
  await (await fetch(`${plane.base}/api/v1/settings/plane`, { headers })).text();
  getMs.push(performance.now() - t0);
}

const patchMs: number[] = [];
const winners: number[] = [];
let others = 0;
for (let r = 0; r < ROUNDS; r++) {
  const etag = (await fetch(`${plane.base}/api/v1/settings/plane`, { headers })).headers.get('etag')!;
  const replies = await Promise.all(
    Array.from({ length: EDITORS }, async (_, i) => {
      const t0 = performance.now();
      const res = await fetch(`${plane.base}/api/v1/settings/plane`, {
        method: 'PATCH',
        headers: { ...headers, 'if-match': etag },
        body: JSON.stringify({ dvr_export_max_secs: 60 + r * EDITORS + i }),
      });
      const body = (await res.json()) as { error?: string };
      patchMs.push(performance.now() - t0);
      return { status: res.status, error: body.error };
    }),
  );
  winners.push(replies.filter((x) => x.status === 200).length);
  others += replies.filter((x) => x.status !== 200 && x.error !== 'settings_changed').length;
}
await plane.stop();
await db.drop();

console.log(
  `| ${EDITORS} editors x ${ROUNDS} rounds | winners per round: ${[...new Set(winners)].join(',')} | other answers: ${others} | PATCH p50 ${pct(patchMs, 0.5).toFixed(1)} ms, p99 ${pct(patchMs, 0.99).toFixed(1)} ms | GET p50 ${pct(getMs, 0.5).toFixed(1)} ms |`,
);
console.log(
  JSON.stringify({
    editors: EDITORS,
    rounds: ROUNDS,
    exactly_one_winner_every_round: winners.every((w) => w === 1),
    winners,
    other_answers: others,
    patch_ms: { p50: +pct(patchMs, 0.5).toFixed(1), p99: +pct(patchMs, 0.99).toFixed(1) },
    get_ms_p50: +pct(getMs, 0.5).toFixed(1),
  }),
);
