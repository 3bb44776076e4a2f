import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';

// Issue 14: the console's initial JavaScript at most 300 KB gzipped (a size, not a time: it
// cannot flake). Initial: what index.html loads; hls.js comes later with the first player.
const ROOT = resolve('dist/console');

describe('the console bundle', () => {
  it('index.html loads at most 300 KB of gzipped JavaScript; hls.js is not part of it', () => {
    const html = readFileSync(join(ROOT, 'index.html'), 'utf8');
    const scripts = [...html.matchAll(/<script[^>]+src="\/assets\/([^"]+\.js)"/g)].map((m) => m[1]!);
    const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]+href="\/assets\/([^"]+\.js)"/g)].map(
      (m) => m[1]!,
    );
    const initial = [...scripts, ...preloads];
    expect(initial.length).toBeGreaterThan(0);
    const gz = initial.reduce((n, f) => n + gzipSync(readFileSync(join(ROOT, 'assets', f))).length, 0);
    expect(gz).toBeLessThanOrEqual(300 * 1024);
    expect(initial.some((f) => f.startsWith('hls'))).toBe(false);
    expect(readdirSync(join(ROOT, 'assets')).some((f) => f.startsWith('hls'))).toBe(true);
  });
});
