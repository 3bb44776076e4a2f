/**
 * Shared by the plane benches: a fresh database (bench/harness.ts: on the server of
 * BENCH_DATABASE_URL, else TEST_DATABASE_URL), and the real plane executable started on it, with its RSS read from /proc.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import postgres from 'postgres';
import { freePort } from '../net.js';

export const BOOT = { login: 'bench-root', password: 'bench-root-password' };

export { benchDatabase } from '../harness.js';

export interface BenchPlane {
  base: string;
  child: ChildProcess;
  rssMb(): Promise<number>;
  cpuMs(): Promise<number>;
  /**
   * Stops the process (SIGTERM) and starts it again on the same folder, port and secret key;
   * `whileDown` runs in between. Resolves once the new process's database is ready.
   */
  restart(whileDown?: () => void | Promise<void>): Promise<void>;
  stop(): Promise<void>;
}

/** CPU time (user + system) of a process so far, in ms; 0 when it is gone. */
export async function processCpuMs(pid: number): Promise<number> {
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // utime, stime in 1/100 s
  } catch {
    return 0;
  }
}

/**
 * CPU time so far (ms) of each PostgreSQL client backend serving the database of `databaseUrl`
 * (by pid): take one reading before and one after a run and pass both to backendsCpuSince.
 */
export async function backendsCpuMs(databaseUrl: string): Promise<Map<number, number>> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const admin = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const pids =
      await admin`select pid from pg_stat_activity where datname = ${name} and backend_type = 'client backend' and pid <> pg_backend_pid()`;
    const out = new Map<number, number>();
    for (const r of pids) out.set(Number(r.pid), await processCpuMs(Number(r.pid)));
    return out;
  } finally {
    await admin.end();
  }
}

/** CPU (ms) the backends spent between two readings; one born in between counts from its first. */
export function backendsCpuSince(before: Map<number, number>, after: Map<number, number>): number {
  let ms = 0;
  for (const [pid, v] of after) ms += v - (before.get(pid) ?? v);
  return ms;
}

/** `node dist/src/plane/main.js serve` on the given database; resolves once the database is ready. */
export async function startPlaneProcess(databaseUrl: string, extraToml = ''): Promise<BenchPlane> {
  const main = resolve('dist/src/plane/main.js');
  if (!existsSync(main)) throw new Error('run "npm run build" first');
  const dir = await mkdtemp(join(tmpdir(), 'argus-bench-'));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  await writeFile(
    join(dir, 'plane.toml'),
    `[network]\npublic_url = "${base}"\nlisten = "127.0.0.1:${port}"\n[logging]\nminimum_level = "warn"\n${extraToml}`,
  );
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    ARGUS_BOOTSTRAP_LOGIN: BOOT.login,
    ARGUS_BOOTSTRAP_PASSWORD: BOOT.password,
  };
  delete env.RUST_LOG;
  delete env.ARGUS_LOG;
  const launch = async (): Promise<ChildProcess> => {
    const child = spawn(
      process.execPath,
      [
        ...(process.env.PLANE_NODE_ARGS ?? '').split(' ').filter(Boolean),
        main,
        'serve',
        '--config',
        join(dir, 'plane.toml'),
      ],
      { env, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout!.on('data', (b) => {
      out += b.toString();
    });
    const until = Date.now() + 60_000;
    while (!out.includes('database ready')) {
      if (child.exitCode !== null) throw new Error(`plane exited:\n${out}`);
      if (Date.now() > until) throw new Error(`plane not ready:\n${out}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return child;
  };
  const terminate = async (child: ChildProcess) => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  };
  let child = await launch();
  return {
    base,
    get child() {
      return child;
    },
    async rssMb() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
    },
    cpuMs: () => processCpuMs(child.pid!),
    async restart(whileDown) {
      await terminate(child);
      await whileDown?.();
      child = await launch();
    },
    async stop() {
      await terminate(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function loginToken(base: string, creds: { login: string; password: string }): Promise<string> {
  const r = await fetch(`${base}/api/v1/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(creds),
  });
  if (r.status !== 200) throw new Error(`login ${creds.login}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { token: string }).token;
}
