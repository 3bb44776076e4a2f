import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, ROOT, type TestDb } from '../harness.js';
import { PLANE_MAIN } from '../reliability/plane-process.js';
import { freePort } from '../../node/helpers/node-process.js';

// The real argus-plane executable: its stdout and its ring get the same scrubbed lines, and
// RUST_LOG in its environment owns the capture level over plane.toml (document 1, document 4 §1).
const CANARY = 'ProcCanary8b2';
const BASE = process.env.TEST_DATABASE_URL;

describe.skipIf(!BASE)('argus-plane serve: stdout and the log ring', () => {
  let db: TestDb;
  let dir: string;
  let child: ChildProcess;
  let out = '';
  let base = '';

  beforeAll(async () => {
    db = await freshDatabase();
    dir = await mkdtemp(join(tmpdir(), 'argus-plane-log-'));
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await writeFile(
      join(dir, 'plane.toml'),
      `[network]\nlisten = "127.0.0.1:${port}"\npublic_url = "${base}"\n[logging]\nminimum_level = "error"\n[sweeper]\nenabled = false\n`,
    );
    child = spawn(process.execPath, [PLANE_MAIN, 'serve', '--config', join(dir, 'plane.toml')], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        PATH: process.env.PATH ?? '',
        DATABASE_URL: db.url!,
        ARGUS_BOOTSTRAP_LOGIN: ROOT.login,
        ARGUS_BOOTSTRAP_PASSWORD: ROOT.password,
        RUST_LOG: 'debug',
      },
    });
    child.stdout!.on('data', (b: Buffer) => {
      out += b.toString();
    });
    child.stderr!.on('data', (b: Buffer) => {
      out += b.toString();
    });
    const until = Date.now() + 60_000;
    while (!out.includes('argus-plane: database ready')) {
      if (child.exitCode !== null) throw new Error(`plane exited:\n${out}`);
      if (Date.now() > until) throw new Error(`plane not ready:\n${out}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  }, 90_000);
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    }
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('RUST_LOG owns the level; request lines with query tokens and failed logins are scrubbed in stdout and ring', async () => {
    const loginReply = await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ROOT),
    });
    const token = ((await loginReply.json()) as { token: string }).token;
    await fetch(`${base}/api/v1/events/stream?token=${CANARY}`, { headers: { authorization: `Bearer ${CANARY}` } });
    await fetch(`${base}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ login: 'root', password: CANARY }),
    });
    const r = await fetch(`${base}/api/v1/logs/plane?limit=1000`, { headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    const page = (await r.json()) as {
      capture_level: string;
      capture_source: string;
      capture_environment_override: boolean;
      entries: Array<{ message: string }>;
    };
    // plane.toml says error; the environment's debug wins, so the request lines (debug) are captured
    expect(page).toMatchObject({
      capture_level: 'debug',
      capture_source: 'environment RUST_LOG',
      capture_environment_override: true,
    });
    const text = JSON.stringify(page);
    expect(text).toContain('/api/v1/events/stream?token=[redacted]');
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain(token);
    expect(out).toContain('/api/v1/events/stream?token=[redacted]');
    expect(out).not.toContain(CANARY);
    expect(out).not.toContain(ROOT.password);
  });
});
