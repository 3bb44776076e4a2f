import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { freePort } from '../../../bench/net.js';

export const REPO = resolve(import.meta.dirname, '../../..');
export const MAIN = join(REPO, 'dist/src/node/main.js');

// One pick for tests and benches: below the ephemeral range (bench/net.ts says why).
export { freePort };

export async function tempDir(prefix = 'argus-node-'): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export interface LogLine {
  level: number;
  msg: string;
  [k: string]: unknown;
}

export interface RunningNode {
  url: string;
  port: number;
  dir: string;
  configPath: string;
  proc: ChildProcess;
  logs: LogLine[];
  stderr: string[];
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
  waitForLog(pred: (l: LogLine) => boolean, timeoutMs?: number): Promise<LogLine>;
}

/**
 * Starts `node dist/src/node/main.js run` on a free loopback port. `body` is the configuration
 * without the `http` and `data_dir` lines, which the helper adds at the top; null reuses the file in `dir`.
 */
export async function startNode(
  body: string | null,
  opts: { dir?: string; files?: Record<string, string>; port?: number; env?: Record<string, string> } = {},
): Promise<RunningNode> {
  const dir = opts.dir ?? (await tempDir());
  const port = opts.port ?? (await freePort());
  const configPath = join(dir, 'argus-node.conf');
  if (body !== null) {
    await writeFile(configPath, `http 127.0.0.1:${port};\ndata_dir ${JSON.stringify(join(dir, 'data'))};\n${body}`, {
      mode: 0o600,
    });
  }
  for (const [name, content] of Object.entries(opts.files ?? {})) await writeFile(join(dir, name), content);
  const proc = spawn(process.execPath, [MAIN, 'run', configPath], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ...opts.env },
  });
  const logs: LogLine[] = [];
  const stderr: string[] = [];
  const waiters = new Set<() => void>();
  let buf = '';
  proc.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    buf += chunk;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        stderr.push(line);
      }
      for (const w of waiters) w();
    }
  });
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => {
    stderr.push(c);
  });
  const exited = new Promise<number | null>((res) => proc.once('exit', (code) => res(code)));

  // A deadline for a line that must come (no test waits on a line's absence), generous: on a
  // loaded machine the node's start and its jobs run many times slower than on a quiet one.
  const waitForLog = (pred: (l: LogLine) => boolean, timeoutMs = 90_000): Promise<LogLine> =>
    new Promise((res, rej) => {
      const check = (): void => {
        const hit = logs.find(pred);
        if (hit) {
          waiters.delete(check);
          clearTimeout(t);
          res(hit);
        }
      };
      const t = setTimeout(() => {
        waiters.delete(check);
        rej(new Error(`log line not seen; stderr: ${stderr.join('')}`));
      }, timeoutMs);
      waiters.add(check);
      void exited.then(() => {
        if (waiters.has(check)) {
          waiters.delete(check);
          clearTimeout(t);
          rej(new Error(`node exited; stderr: ${stderr.join('')}`));
        }
      });
      check();
    });

  await waitForLog((l) => l.msg.startsWith('listening on'));
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dir,
    configPath,
    proc,
    logs,
    stderr,
    waitForLog,
    async stop(signal = 'SIGTERM') {
      if (proc.exitCode !== null) return proc.exitCode;
      proc.kill(signal);
      return exited;
    },
  };
}

/** Runs the CLI to completion. */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((res) => {
    const p = spawn(process.execPath, [MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    p.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    p.on('exit', (code) => res({ code, stdout, stderr }));
  });
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

/** fetch with the bearer and body conveniences every test needs; never throws on a status. */
export async function call(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Reply> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) body = opts.raw;
  else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const r = await fetch(base + path, { method, headers, body });
  const text = await r.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: r.status, headers: r.headers, text, json };
}

const TEST_KEY = createPrivateKey(readFileSync(join(REPO, 'test/node/fixtures/license-test-key.pem')));

/** A licence signed with the key that only test builds trust. */
export function signedLicense(fields: {
  licensee: string;
  expires: string;
  updates_until: string;
  nodes: number;
}): string {
  const payload = Buffer.from(
    JSON.stringify({
      licensee: fields.licensee,
      expires: fields.expires,
      updates_until: fields.updates_until,
      nodes: fields.nodes,
    }),
  );
  return JSON.stringify({ ...fields, signature: sign(null, payload, TEST_KEY).toString('base64') }, null, 2);
}

export function isoDay(offsetDays: number, from = Date.now()): string {
  return new Date(from + offsetDays * 86_400_000).toISOString().slice(0, 10);
}
