import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';

// The `npm start` launcher (dist/src/start/main.js) as tests drive it: on free ports, in a data
// folder of the test's own. Used by the start test and by the console's browser tests.

const MAIN = resolve('dist/src/start/main.js');

/** A port whose next one is free too (the node takes the plane's port + 1). */
export async function portPair(): Promise<number> {
  const free = (port: number) =>
    new Promise<boolean>((res) => {
      const s = createServer()
        .once('error', () => res(false))
        .listen(port, '127.0.0.1', () => s.close(() => res(true)));
    });
  for (let i = 0; i < 50; i++) {
    const p = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await free(p)) && (await free(p + 1))) return p;
  }
  throw new Error('no free port pair');
}

export interface Launcher {
  proc: ChildProcess;
  out: string[];
  exited: Promise<number | null>;
}

export function launch(dataDir: string, port: number): Launcher {
  const env: NodeJS.ProcessEnv = { ...process.env, ARGUS_DATA_DIR: dataDir, ARGUS_START_PORT: String(port) };
  delete env.DATABASE_URL;
  delete env.ARGUS_BOOTSTRAP_LOGIN;
  delete env.ARGUS_BOOTSTRAP_PASSWORD;
  delete env.RUST_LOG;
  delete env.ARGUS_LOG;
  const proc = spawn(process.execPath, [MAIN], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  proc.stdout!.setEncoding('utf8').on('data', (c: string) => out.push(...c.split('\n')));
  proc.stderr!.setEncoding('utf8').on('data', (c: string) => out.push(...c.split('\n')));
  return { proc, out, exited: new Promise((r) => proc.once('exit', (code) => r(code))) };
}

export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  l: Launcher,
  timeoutMs = 180_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (l.proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`${what}: not reached\n${l.out.slice(-40).join('\n')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
