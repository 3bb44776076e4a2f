import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { ROOT } from '../harness.js';

export const PLANE_MAIN = resolve('dist/src/plane/main.js');
/** How long start() waits for the ready line: a bound for a hung start, which a test's own bound must exceed. */
export const START_WITHIN_MS = 180_000;

/**
 * The real plane executable in `dir` (its plane.toml there), killable with SIGKILL and started
 * again on the same data: on `databaseUrl`, or on the embedded database under `dir` when null.
 */
export class PlaneProcess {
  out = '';
  child!: ChildProcess;
  base = '';
  constructor(
    private readonly dir: string,
    private readonly databaseUrl: string | null,
    private readonly port: number,
  ) {
    this.base = `http://127.0.0.1:${port}`;
  }

  async start(): Promise<void> {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      ARGUS_BOOTSTRAP_LOGIN: ROOT.login,
      ARGUS_BOOTSTRAP_PASSWORD: ROOT.password,
    };
    delete env.RUST_LOG;
    delete env.ARGUS_LOG;
    delete env.DATABASE_URL;
    if (this.databaseUrl) env.DATABASE_URL = this.databaseUrl;
    this.out = '';
    this.child = spawn(process.execPath, [PLANE_MAIN, 'serve', '--config', join(this.dir, 'plane.toml')], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout!.on('data', (b) => {
      this.out += b.toString();
    });
    this.child.stderr!.on('data', (b) => {
      this.out += b.toString();
    });
    const until = Date.now() + START_WITHIN_MS;
    while (!this.out.includes('argus-plane: database ready')) {
      if (this.child.exitCode !== null) throw new Error(`plane exited (${this.child.exitCode}):\n${this.out}`);
      if (Date.now() > until) throw new Error(`plane not ready:\n${this.out}`);
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
      signal: AbortSignal.timeout(20_000),
    });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  /** SIGTERM, and waits for the exit. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await gone;
  }

  async kill9(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const gone = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGKILL');
    await gone;
  }
}
