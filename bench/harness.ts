/**
 * What every bench shares: the PostgreSQL server (one variable for all of them), a fresh database
 * on it, the in-run baselines the figures are compared with, and the one table `npm run bench`
 * prints. Absolute rates move 2-3x between machines and with the neighbours' load; a figure beside
 * a baseline measured in the same run, on the same cores, moves far less.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import autocannon from 'autocannon';
import Fastify from 'fastify';
import postgres from 'postgres';
import { ffmpegPath, mediaToolEnv } from '../src/common/media-tools.js';

/** The server the benches create their databases on: BENCH_DATABASE_URL, else TEST_DATABASE_URL. */
export function benchServerUrl(): string {
  const url = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL;
  if (!url)
    throw new Error(
      'set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to a PostgreSQL server, e.g. postgres://postgres@127.0.0.1:5432/postgres',
    );
  return url;
}

/** A fresh database on the bench server; `drop()` removes it. */
export async function benchDatabase(): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `argus_bench_${randomBytes(4).toString('hex')}`;
  const admin = postgres(benchServerUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const u = new URL(benchServerUrl());
  u.pathname = `/${name}`;
  return {
    name,
    url: u.toString(),
    async drop() {
      await admin.unsafe(`drop database if exists ${name} with (force)`).catch(() => {});
      await admin.end();
    },
  };
}

export interface Rate {
  perSecond: number;
  p99Ms: number | null;
}

/**
 * Baseline for write paths: rows of an event's size (a uuid, a timestamp, text and a JSON
 * payload) COPYed into a plain table of a fresh database. What the server takes at best.
 */
export async function copyBaseline(rows = 20_000): Promise<Rate> {
  const db = await benchDatabase();
  const sql = postgres(db.url, { max: 1, onnotice: () => {} });
  try {
    await sql`create table copied (id uuid primary key, at timestamptz not null, detector text not null, subject text, payload jsonb not null)`;
    function* lines(): Generator<string> {
      for (let i = 0; i < rows; i += 1000) {
        let chunk = '';
        for (let j = i; j < Math.min(rows, i + 1000); j++) {
          chunk += `${crypto.randomUUID()}\t${new Date().toISOString()}\tlpr.plate.${j % 4}\tAB${j % 1000}\t{"plate": "AB${j % 1000}", "box": [10, 20, 110, 60], "lane": ${j % 3}}\n`;
        }
        yield chunk;
      }
    }
    const t0 = performance.now();
    await pipeline(
      Readable.from(lines()),
      await sql`copy copied (id, at, detector, subject, payload) from stdin`.writable(),
    );
    return { perSecond: rows / ((performance.now() - t0) / 1000), p99Ms: null };
  } finally {
    await sql.end();
    await db.drop();
  }
}

/** Baseline for read paths: a bare Fastify server answering a small JSON body, over `connections` connections. */
export async function fastifyBaseline(connections = 8, seconds = 3): Promise<Rate> {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ rows: [], next: null }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as { port: number };
    const r = await autocannon({ url: `http://127.0.0.1:${port}/`, connections, duration: seconds });
    return { perSecond: r.requests.average, p99Ms: r.latency.p99 };
  } finally {
    await app.close();
  }
}

/**
 * Baseline for the node's media: ffmpeg run directly, encoding the same small test source to HLS
 * with 1 s segments; the figure is the time until its first segment is on disk (ms).
 */
export async function ffmpegBaseline(): Promise<number> {
  const dir = await mkdtemp(join(tmpdir(), 'argus-bench-ffmpeg-'));
  const bin = ffmpegPath();
  const t0 = performance.now();
  const child = spawn(
    bin,
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x180:rate=10',
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-tune',
      'zerolatency',
      '-g',
      '10',
      '-pix_fmt',
      'yuv420p',
      '-f',
      'hls',
      '-hls_time',
      '1',
      '-hls_list_size',
      '3',
      join(dir, 'index.m3u8'),
    ],
    { stdio: 'ignore', env: mediaToolEnv(bin) },
  );
  try {
    for (;;) {
      if ((await readdir(dir)).some((f) => f.endsWith('.m3u8'))) return performance.now() - t0;
      if (child.exitCode !== null) throw new Error(`ffmpeg exited ${child.exitCode}`);
      if (performance.now() - t0 > 30_000) throw new Error('ffmpeg wrote no playlist in 30 s');
      await new Promise((r) => setTimeout(r, 20));
    }
  } finally {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}

/** One line of the bench table: a figure, and the in-run baseline it is read against. */
export interface Figure {
  bench: string;
  figure: string;
  value: number | null;
  unit: string;
  baseline?: { name: string; value: number; unit: string };
  /** How the ratio reads: 'share' = value / baseline (higher is better), 'times' = value / baseline (lower is better). */
  ratio?: 'share' | 'times';
}

const fmt = (v: number | null): string =>
  v === null || !Number.isFinite(v) ? '-' : v >= 100 ? Math.round(v).toLocaleString('en') : v.toFixed(1);

export function printTable(figures: Figure[]): string {
  const lines = ['| bench | figure | value | baseline (same run) | ratio |', '|---|---|---|---|---|'];
  for (const f of figures) {
    const base = f.baseline ? `${f.baseline.name}: ${fmt(f.baseline.value)} ${f.baseline.unit}` : '-';
    let ratio = '-';
    if (f.baseline && f.value !== null && f.baseline.value > 0) {
      const r = f.value / f.baseline.value;
      ratio = f.ratio === 'times' ? `${r.toFixed(1)}x the baseline` : `${(100 * r).toFixed(0)}% of the baseline`;
    }
    lines.push(`| ${f.bench} | ${f.figure} | ${fmt(f.value)} ${f.unit} | ${base} | ${ratio} |`);
  }
  return lines.join('\n');
}
