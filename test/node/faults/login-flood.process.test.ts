import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { MAIN, startNode, type RunningNode } from '../helpers/node-process.js';

// Issue 10: the node under a failed-login flood from one address (document 3: 600 ms per wrong
// password, then 429 while the address's window is open) while another address keeps working.
// Loopback addresses 127.0.0.2 and 127.0.0.3 are two clients. Needs `npm run build`.
// The long run with figures is bench/node/login-flood.ts.
const PASSWORD = 'flood-admin-password';
const WRITE = 'flood-write-token-0123456789';
const FLOODER = '127.0.0.2';
const VICTIM = '127.0.0.3';

let node: RunningNode;
const agents = {
  [FLOODER]: new Agent({ keepAlive: true, maxSockets: 32, localAddress: FLOODER }),
  [VICTIM]: new Agent({ keepAlive: true, maxSockets: 4, localAddress: VICTIM }),
} as Record<string, Agent>;

function call(
  from: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown } = {},
): Promise<{ status: number; ms: number; json: any }> {
  const started = performance.now();
  const body = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: node.port,
        method,
        path,
        agent: agents[from],
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
        res.on('end', () => {
          let json: any = null;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, json });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe.skipIf(!existsSync(MAIN))('the node under a failed-login flood from one address (real executable)', () => {
  beforeAll(async () => {
    node = await startNode(`auth {\n    admin_password ${PASSWORD};\n    api_write_token ${WRITE};\n}\n`);
  });
  afterAll(async () => {
    await node?.stop();
    for (const a of Object.values(agents)) a.destroy();
  });

  it('gives one address 5 wrong guesses however many it sends at once, then 429', async () => {
    const first = await Promise.all(
      Array.from({ length: 32 }, () => call(FLOODER, 'POST', '/api/v1/auth/login', { body: { password: 'wrong' } })),
    );
    const by = (s: number) => first.filter((r) => r.status === s).length;
    expect({ 401: by(401), 429: by(429) }).toEqual({ 401: 5, 429: 27 });
    for (const r of first.filter((x) => x.status === 429)) expect(r.json).toMatchObject({ error: 'too_many_requests' });
    // The right password from the flooding address is throttled too while its window is open.
    expect((await call(FLOODER, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } })).status).toBe(429);
  });

  it('keeps serving another address while the flood goes on: its logins succeed and its reads stay fast', async () => {
    let flooding = true;
    let floodAnswers = 0;
    const flood = Array.from({ length: 32 }, async () => {
      while (flooding) {
        await call(FLOODER, 'POST', '/api/v1/auth/login', { body: { password: 'wrong' } });
        floodAnswers++;
      }
    });
    const logins: number[] = [];
    const reads: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const l = await call(VICTIM, 'POST', '/api/v1/auth/login', { body: { password: PASSWORD } });
        expect(l.status).toBe(200);
        logins.push(l.ms);
        for (let k = 0; k < 20; k++) {
          const r = await call(VICTIM, 'GET', '/api/v1/config/history', { token: l.json.token });
          expect(r.status).toBe(200);
          reads.push(r.ms);
        }
      }
    } finally {
      flooding = false;
      await Promise.all(flood);
    }
    const sorted = [...reads].sort((a, b) => a - b);
    const figures = {
      floodAnswers,
      readP50: Math.round(sorted[Math.floor(sorted.length / 2)]!),
      readMax: Math.round(sorted.at(-1)!),
      loginMax: Math.round(Math.max(...logins)),
    };
    console.info(`node login flood: ${JSON.stringify(figures)}`);
    expect(floodAnswers).toBeGreaterThan(100);
    // A read that queued behind the flood would wait out a failed login's unconditional 600 ms
    // delay; the figures are printed, and speed itself is the bench's (issue 25: no timing bound
    // that a loaded machine fails - CI saw a median of 108 ms against an earlier bound of 100).
    expect(figures.readP50).toBeLessThan(600);
  });
});
