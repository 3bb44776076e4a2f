import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import {
  entryKey,
  keyOf,
  lateLibrary,
  LATE_LIBRARIES,
  MEASURED_PAGES,
  pageChunks,
  readManifest,
  scriptsOf,
  staticClosure,
} from '../../../bench/console/bundle-manifest.js';

// The console as `npm run build` writes it, read through the build's manifest (.vite/manifest.json).
// Sizes, not times: these cannot flake. The figures against the targets are `npm run bench`'s.
const ROOT = resolve('dist/console');
const manifest = readManifest(ROOT);
const html = readFileSync(join(ROOT, 'index.html'), 'utf8');

describe('the console bundle', () => {
  it('the manifest describes the index.html that is served: its script and modulepreloads are the entry', () => {
    const scripts = [...html.matchAll(/<script[^>]+src="\/([^"]+\.js)"/g)].map((m) => m[1]!);
    const preloads = [...html.matchAll(/<link rel="modulepreload"[^>]+href="\/([^"]+\.js)"/g)].map((m) => m[1]!);
    const entry = scriptsOf(manifest, staticClosure(manifest, entryKey(manifest)));
    expect(scripts).toEqual([manifest[entryKey(manifest)]!.file]);
    expect([...scripts, ...preloads].sort()).toEqual(entry.sort());
  });

  // Issue 22: hls.js and the chart library load only where a player or a chart is drawn.
  it('the login page loads neither hls.js nor the chart library; both are chunks of the build', () => {
    const login = pageChunks(manifest, MEASURED_PAGES.login.page);
    expect([...login].filter((k) => lateLibrary(manifest, k))).toEqual([]);
    for (const lib of Object.values(LATE_LIBRARIES)) {
      const key = keyOf(manifest, lib);
      expect(key, String(lib)).toBeDefined();
      expect(manifest[key!]!.isDynamicEntry, String(lib)).toBe(true);
    }
  });

  it('the live grid loads hls.js for its first frame, and not the chart library', () => {
    const live = pageChunks(manifest, MEASURED_PAGES.live.page, MEASURED_PAGES.live.alsoLoads);
    const libs = [...live].map((k) => lateLibrary(manifest, k)).filter(Boolean);
    expect(libs).toEqual(['hls']);
  });

  // Issue 14: the initial JavaScript at most 300 KB gzipped (what index.html loads).
  it('index.html loads at most 300 KB of gzipped JavaScript', () => {
    const initial = scriptsOf(manifest, staticClosure(manifest, entryKey(manifest)));
    const gz = initial.reduce((n, f) => n + gzipSync(readFileSync(join(ROOT, f))).length, 0);
    expect(gz).toBeLessThanOrEqual(300 * 1024);
  });

  it('every script, stylesheet and page has its brotli and gzip copies beside it', () => {
    const files = ['index.html', ...Object.values(manifest).flatMap((c) => [c.file, ...(c.css ?? [])])];
    for (const f of new Set(files)) {
      const plain = readFileSync(join(ROOT, f));
      if (plain.length < 1024) continue; // a copy no smaller than its file is not written
      expect(readFileSync(join(ROOT, `${f}.br`)).length, f).toBeLessThan(plain.length);
      expect(readFileSync(join(ROOT, `${f}.gz`)).length, f).toBeLessThan(plain.length);
    }
  });
});
