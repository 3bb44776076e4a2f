import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../net.js';

const MAIN = resolve(import.meta.dirname, '../../src/node/main.js');

/** Starts the built node (`npm run build` first) with `body` as its configuration, on `port` (else a free one). */
export async function startBenchNode(
  body: string,
  env: Record<string, string> = {},
  port?: number,
): Promise<{ url: string; proc: ChildProcess; dir: string; stop(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'argus-bench-'));
  port ??= await freePort();
  const config = join(dir, 'argus-node.conf');
  await writeFile(config, `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\nlog_level info;\n${body}`);
  const proc = spawn(process.execPath, [MAIN, 'run', config], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  await new Promise<void>((res, rej) => {
    let buf = '';
    proc.stdout!.setEncoding('utf8').on('data', (c: string) => {
      buf += c;
      if (buf.includes('listening on')) res();
    });
    proc.once('exit', (code) => rej(new Error(`node exited with ${code}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    proc,
    dir,
    stop: () =>
      new Promise((res) => {
        proc.once('exit', () => res());
        proc.kill('SIGTERM');
      }),
  };
}

export function stats(samples: number[]): string {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number): number => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return `n=${s.length} min=${s[0].toFixed(1)} median=${q(0.5).toFixed(1)} p90=${q(0.9).toFixed(1)} max=${s[s.length - 1].toFixed(1)} (ms)`;
}
