import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PLANE_MAIN } from '../reliability/plane-process.js';

// A configuration problem is printed before any logger exists; a value it quotes (here a public
// URL with credentials) is scrubbed like every log line (docs/logs.md).
const CANARY = 'CfgCanary31d';

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [PLANE_MAIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH ?? '', ...env },
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    p.stderr.on('data', (d: Buffer) => {
      out += d.toString();
    });
    p.on('close', (code) => resolve({ code, out }));
  });
}

describe('argus-plane serve with a broken plane.toml', () => {
  it('exits 2 naming the problems, without the credentials they quote', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'argus-cfg-'));
    try {
      const file = join(dir, 'plane.toml');
      await writeFile(
        file,
        `[network]\npublic_url = "http://ops:${CANARY}@bad host"\n[logging]\nminimum_level = "loud"\n`,
      );
      const r = await run(['serve', '--config', file], { RUST_LOG: '' });
      expect(r.code).toBe(2);
      expect(r.out).toContain('public_url is not a URL');
      expect(r.out).toContain('http://ops:[redacted]@bad host');
      expect(r.out).toContain('[logging] minimum_level must be one of');
      expect(r.out).not.toContain(CANARY);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
