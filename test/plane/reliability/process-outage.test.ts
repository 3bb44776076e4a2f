import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { freshDatabase, ROOT, type TestDb } from '../harness.js';
import { TcpProxy, sidOf } from './proxy.js';
import { freePort } from '../../node/helpers/node-process.js';

const BASE = process.env.TEST_DATABASE_URL;
const MAIN = resolve('dist/src/plane/main.js');

/** The real executable with its real process handlers, on a database behind the proxy. */
class PlaneProcess {
  out = '';
  child!: ChildProcess;
  base = '';
  private dir = '';

  async start(databaseUrl: string): Promise<void> {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" (npm test does it in pretest)`);
    this.dir = await mkdtemp(join(tmpdir(), 'argus-proc-'));
    const port = await freePort();
    this.base = `http://127.0.0.1:${port}`;
    await writeFile(
      join(this.dir, 'plane.toml'),
      `[network]\npublic_url = "${this.base}"\nlisten = "127.0.0.1:${port}"\n`,
    );
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DATABASE_URL: databaseUrl,
      ARGUS_BOOTSTRAP_LOGIN: ROOT.login,
      ARGUS_BOOTSTRAP_PASSWORD: ROOT.password,
    };
    delete env.RUST_LOG;
    delete env.ARGUS_LOG;
    this.child = spawn(process.execPath, [MAIN, 'serve', '--config', join(this.dir, 'plane.toml')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (b) => {
      this.out += b.toString();
    });
    this.child.stderr!.on('data', (b) => {
      this.out += b.toString();
    });
    // A bound for a hung start only: under a loaded CI the plane's start passed 15 s (issue 25).
    await this.waitFor('argus-plane: listening', 120_000);
  }

  async waitFor(text: string, ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!this.out.includes(text)) {
      if (this.child.exitCode !== null) throw new Error(`plane exited (${this.child.exitCode}):\n${this.out}`);
      if (Date.now() > until) throw new Error(`no "${text}" within ${ms} ms:\n${this.out}`);
      await sleep(25);
    }
  }

  async req(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; body: any }> {
    const r = await fetch(this.base + path, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body !== undefined ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  async stop(): Promise<number | null> {
    if (this.alive) {
      const exited = new Promise<number | null>((r) => this.child.once('exit', (code) => r(code)));
      this.child.kill('SIGTERM');
      await exited;
    }
    await rm(this.dir, { recursive: true, force: true });
    return this.child.exitCode;
  }
}

describe.skipIf(!BASE)('the real plane executable across database outages (TCP proxy, PostgreSQL server)', () => {
  let db: TestDb;
  let proxy: TcpProxy;
  const proc = new PlaneProcess();

  beforeAll(async () => {
    db = await freshDatabase();
    proxy = TcpProxy.forUrl(db.url!);
    await proxy.start();
    await proxy.cut();
    await proc.start(proxy.urlThrough(db.url!));
  });
  afterAll(async () => {
    await proc.stop();
    await proxy?.close();
    await db?.drop();
  });

  it('starts while the database is unreachable, answers health and 503, and becomes ready by itself', async () => {
    for (let i = 0; i < 3; i++) {
      expect(await proc.req('GET', '/health')).toEqual({ status: 200, body: { status: 'ok', database: 'down' } });
      expect(await proc.req('POST', '/api/v1/auth/login', ROOT)).toEqual({
        status: 503,
        body: { error: 'db_unavailable' },
      });
      await sleep(300);
    }
    expect(proc.alive).toBe(true);
    await proxy.restore();
    await proc.waitFor('argus-plane: database ready', 120_000);
    expect(await proc.req('GET', '/health')).toEqual({ status: 200, body: { status: 'ok', database: 'up' } });
    expect((await proc.req('POST', '/api/v1/auth/login', ROOT)).status).toBe(200);
  });

  it('never exits under a write load while the database is cut twice, loses no acknowledged write', async () => {
    const outcomes: Array<{ status: number; body: any; sid?: string }> = [];
    let stop = false;
    const worker = async () => {
      while (!stop) {
        const r = await proc.req('POST', '/api/v1/auth/login', ROOT);
        outcomes.push(r.status === 200 ? { ...r, sid: sidOf(r.body.token) } : r);
        if (r.status !== 200) await sleep(25);
      }
    };
    const workers = Array.from({ length: 4 }, worker);
    const healthDuring: Array<{ status: number; body: any }> = [];
    const recoveries: number[] = [];
    for (let round = 0; round < 2; round++) {
      await sleep(600);
      await proxy.cut();
      const cutAt = Date.now();
      while (Date.now() - cutAt < 1200) {
        healthDuring.push(await proc.req('GET', '/health'));
        await sleep(100);
      }
      expect(proc.alive).toBe(true);
      await proxy.restore();
      const restoredAt = Date.now();
      for (;;) {
        const r = await proc.req('GET', '/health');
        if (r.body.database === 'up') {
          recoveries.push(Date.now() - restoredAt);
          break;
        }
        if (Date.now() - restoredAt > 15_000) {
          recoveries.push(Infinity);
          break;
        }
        await sleep(50);
      }
    }
    // Logins cost a scrypt each, so a loaded machine acknowledges few in a fixed time: the load
    // runs on after the last restore until it has acknowledged enough writes to count (or 30 s).
    const enoughBy = Date.now() + 30_000;
    await sleep(600);
    while (outcomes.filter((o) => o.sid).length <= 5 && Date.now() < enoughBy) await sleep(100);
    stop = true;
    await Promise.all(workers);

    expect(proc.alive).toBe(true);
    expect(proc.out).not.toMatch(/uncaught exception|unhandled rejection/);
    expect([...new Set(outcomes.map((o) => o.status))].sort()).toEqual([200, 503]);
    for (const o of outcomes.filter((x) => x.status === 503)) expect(o.body).toEqual({ error: 'db_unavailable' });
    for (const h of healthDuring) expect(h.status).toBe(200);
    expect(healthDuring.some((h) => h.body.database === 'down')).toBe(true);
    // Ready again within 2 s of the server's return on a quiet machine (issue 10); printed, and
    // bounded generously so that a loaded machine does not fail it (issue 25).
    console.info(`process-outage: recoveries ${JSON.stringify(recoveries)} ms`);
    for (const ms of recoveries) expect(ms).toBeLessThan(6_000);

    const acked = outcomes.filter((o) => o.sid).map((o) => o.sid!);
    expect(acked.length).toBeGreaterThan(5);
    const direct = postgres(db.url!, { max: 1, onnotice: () => {} });
    try {
      const rows = await direct`select count(*)::int as n from sessions where id = any(${acked}::uuid[])`;
      expect(rows[0]!.n).toBe(acked.length);
      const audited =
        await direct`select count(distinct object_id)::int as n from audit where action = 'auth.login' and object_id = any(${acked}::uuid[])`;
      expect(audited[0]!.n).toBe(acked.length);
    } finally {
      await direct.end();
    }
  });

  it('still stops cleanly on SIGTERM afterwards', async () => {
    expect(proc.alive).toBe(true);
    expect(await proc.stop()).toBe(0);
  });
});
