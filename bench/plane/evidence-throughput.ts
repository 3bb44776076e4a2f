/**
 * Evidence throughput (issue 12): attachments of SIZE_MB uploaded and downloaded through the
 * real plane executable, one at a time, to its local folder and to an S3-protocol server
 * (s3rver on loopback), beside a direct transfer of the same bytes in the same run: `cp` for the
 * folder, the AWS SDK (the same multipart upload and streamed GetObject) for the bucket. Target:
 * the plane at >= 70% of the direct rate. A bare node:http server that discards the same bodies
 * (a child process, same client) shows what HTTP on loopback alone allows. Then PARALLEL uploads at once to the folder, sampling
 * the plane's RSS: its growth must stay under 64 MiB (bodies are streamed, never held whole).
 * Run: npm run build && BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres node dist/bench/plane/evidence-throughput.js
 *   (SIZE_MB default 16, ROUNDS default 8, PARALLEL default 32)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { pipeline } from 'node:stream/promises';
import { Writable } from 'node:stream';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { benchDatabase, startPlaneProcess, loginToken, BOOT, type BenchPlane } from './harness.js';
import { freePort } from '../net.js';

const SIZE_MB = Number(process.env.SIZE_MB ?? 16);
const ROUNDS = Number(process.env.ROUNDS ?? 8);
const PARALLEL = Number(process.env.PARALLEL ?? 32);
const BYTES = SIZE_MB * 1024 * 1024;

const work = await mkdtemp(join(tmpdir(), 'argus-evidence-bench-'));
const file = join(work, 'object.bin');
await writeFile(file, randomBytes(BYTES));

/** MB/s of `rounds` runs of `once`, one after another. */
async function rate(once: (i: number) => Promise<void>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) await once(i);
  return (ROUNDS * SIZE_MB) / ((performance.now() - t0) / 1000);
}

function run(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, args, { stdio: 'ignore' });
    c.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} exited ${code}`))));
  });
}

const discard = () =>
  new Writable({
    write(_c, _e, cb) {
      cb();
    },
  });

/** POST /api/v1/attachments with the file streamed as the body; resolves with the ref. */
function upload(base: string, secret: string): Promise<string> {
  const u = new URL('/api/v1/attachments', base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: 'POST',
        timeout: 120_000,
        headers: {
          authorization: `Bearer ${secret}`,
          'content-type': 'application/octet-stream',
          'content-length': BYTES,
        },
      },
      (res) => {
        let body = '';
        res.on('data', (c) => {
          body += c;
        });
        res.on('end', () =>
          res.statusCode === 201
            ? resolve(JSON.parse(body).ref)
            : reject(new Error(`upload ${res.statusCode} ${body}`)),
        );
      },
    );
    req.on('timeout', () => req.destroy(new Error('upload timed out')));
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
}

/** GET /api/v1/attachments/{ref}, the body read to the end. */
function download(base: string, token: string, ref: string): Promise<void> {
  const u = new URL(`/api/v1/attachments/${ref}`, base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        timeout: 120_000,
        headers: { authorization: `Bearer ${token}` },
      },
      (res) => {
        if (res.statusCode !== 200) {
          reject(new Error(`download ${res.statusCode}`));
          res.resume();
          return;
        }
        pipeline(res, discard()).then(resolve, reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error('download timed out')));
    req.on('error', reject);
    req.end();
  });
}

async function moduleSecret(base: string, session: string): Promise<string> {
  const r = await fetch(`${base}/api/v1/module-tokens`, {
    method: 'POST',
    headers: { authorization: `Bearer ${session}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', rate_limit: 1_000_000 }),
  });
  if (r.status !== 201) throw new Error(`module token: ${r.status} ${await r.text()}`);
  return ((await r.json()) as { secret: string }).secret;
}

/** A bare node:http server in a child process that reads and drops request bodies: the HTTP floor. */
async function startSink(port: number): Promise<ChildProcess> {
  const code = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(201, { 'content-type': 'application/json' }); s.end('{"ref":"-"}'); }); }).listen(${port}, '127.0.0.1', () => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve();
    });
    child.once('exit', (c) => reject(new Error(`sink exited ${c}`)));
  });
  return child;
}

async function startS3rver(port: number, dir: string): Promise<ChildProcess> {
  const code = `const S3rver = require('s3rver'); new S3rver({ port: ${port}, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'evidence' }] }).run().then(() => console.log('ready'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (b: Buffer) => {
      if (b.toString().includes('ready')) resolve();
    });
    child.once('exit', (c) => reject(new Error(`s3rver exited ${c}`)));
  });
  return child;
}

interface Pair {
  plane: number;
  direct: number;
}
const rows: Array<[string, Pair]> = [];
const cleanups: Array<() => Promise<unknown>> = [];
try {
  // The folder: the plane's own evidence dir against cp of the same file.
  const dbLocal = await benchDatabase();
  cleanups.push(() => dbLocal.drop());
  const local: BenchPlane = await startPlaneProcess(dbLocal.url, '[sweeper]\nenabled = false\n');
  cleanups.push(() => local.stop());
  const session = await loginToken(local.base, BOOT);
  const secret = await moduleSecret(local.base, session);
  const refs: string[] = [];
  await upload(local.base, secret); // warm-up
  const up = await rate(async () => {
    refs.push(await upload(local.base, secret));
  });
  const cpUp = await rate((i) => run('cp', [file, join(work, `copy-${i}.bin`)]));
  const down = await rate((i) => download(local.base, session, refs[i]!));
  const cpDown = await rate((i) => pipeline(createReadStream(join(work, `copy-${i}.bin`)), discard()));
  rows.push(['folder upload', { plane: up, direct: cpUp }], ['folder download', { plane: down, direct: cpDown }]);
  const sinkPort = await freePort();
  const sink = await startSink(sinkPort);
  cleanups.push(async () => {
    sink.kill('SIGKILL');
  });
  const httpFloor = await rate(async () => {
    await upload(`http://127.0.0.1:${sinkPort}`, 'x');
  });

  // RSS with PARALLEL uploads at once (the plane streams 4 and keeps the rest waiting, unread).
  const rssBefore = await local.rssMb();
  let rssMax = rssBefore;
  const sampler = setInterval(() => {
    local.rssMb().then(
      (m) => {
        rssMax = Math.max(rssMax, m);
      },
      () => {},
    );
  }, 25);
  const t0 = performance.now();
  const outcomes = await Promise.allSettled(Array.from({ length: PARALLEL }, () => upload(local.base, secret)));
  const parallelS = (performance.now() - t0) / 1000;
  clearInterval(sampler);
  const refused = outcomes.filter((o) => o.status === 'rejected');

  // The bucket: the plane with backend s3 against the SDK directly.
  const s3Port = await freePort();
  const s3 = await startS3rver(s3Port, join(work, 's3'));
  cleanups.push(async () => {
    s3.kill('SIGKILL');
  });
  const dbS3 = await benchDatabase();
  cleanups.push(() => dbS3.drop());
  const viaS3 = await startPlaneProcess(
    dbS3.url,
    `[sweeper]\nenabled = false\n[evidence_storage]\nbackend = "s3"\nendpoint = "127.0.0.1:${s3Port}"\nbucket = "evidence"\nhttps = false\naddressing = "path"\naccess_key = "S3RVER"\nsecret_key = "S3RVER"\nmax_bytes = 1000000000000\n`,
  );
  cleanups.push(() => viaS3.stop());
  const s3Session = await loginToken(viaS3.base, BOOT);
  const s3Secret = await moduleSecret(viaS3.base, s3Session);
  const s3Refs: string[] = [];
  await upload(viaS3.base, s3Secret);
  const s3Up = await rate(async () => {
    s3Refs.push(await upload(viaS3.base, s3Secret));
  });
  const client = new S3Client({
    endpoint: `http://127.0.0.1:${s3Port}`,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
  });
  const sdkUp = await rate((i) =>
    new Upload({
      client,
      params: { Bucket: 'evidence', Key: `direct/${i}`, Body: createReadStream(file) },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
    })
      .done()
      .then(() => {}),
  );
  const s3Down = await rate((i) => download(viaS3.base, s3Session, s3Refs[i]!));
  const sdkDown = await rate(async (i) => {
    const r = await client.send(new GetObjectCommand({ Bucket: 'evidence', Key: `direct/${i}` }));
    await pipeline(r.Body as NodeJS.ReadableStream, createWriteStream('/dev/null'));
  });
  rows.push(['s3 upload', { plane: s3Up, direct: sdkUp }], ['s3 download', { plane: s3Down, direct: sdkDown }]);

  console.log(`| transfer (${ROUNDS} x ${SIZE_MB} MiB, one at a time) | plane MB/s | direct MB/s | plane / direct |`);
  console.log('|---|---|---|---|');
  for (const [name, p] of rows)
    console.log(
      `| ${name} | ${p.plane.toFixed(0)} | ${p.direct.toFixed(0)} | ${((p.plane / p.direct) * 100).toFixed(0)}% |`,
    );
  console.log(
    `| upload to a bare HTTP server that drops the bytes | ${httpFloor.toFixed(0)} | | plane folder upload: ${((up / httpFloor) * 100).toFixed(0)}% of it |`,
  );
  console.log(
    `| ${PARALLEL} parallel ${SIZE_MB} MiB uploads | RSS ${rssBefore.toFixed(0)} -> max ${rssMax.toFixed(0)} MiB (growth ${(rssMax - rssBefore).toFixed(0)} MiB) | ${parallelS.toFixed(1)} s | refused: ${refused.length} |`,
  );
  console.log(
    JSON.stringify({
      size_mb: SIZE_MB,
      rounds: ROUNDS,
      bare_http_upload_mb_s: +httpFloor.toFixed(1),
      transfers: Object.fromEntries(
        rows.map(([n, p]) => [
          n,
          {
            plane_mb_s: +p.plane.toFixed(1),
            direct_mb_s: +p.direct.toFixed(1),
            ratio: +(p.plane / p.direct).toFixed(2),
          },
        ]),
      ),
      parallel: {
        uploads: PARALLEL,
        rss_before_mb: +rssBefore.toFixed(1),
        rss_max_mb: +rssMax.toFixed(1),
        rss_growth_mb: +(rssMax - rssBefore).toFixed(1),
        seconds: +parallelS.toFixed(1),
        refused: refused.length,
        errors: [...new Set(refused.map((r) => String((r as PromiseRejectedResult).reason?.message ?? r)))].slice(0, 3),
      },
    }),
  );
} finally {
  for (const c of cleanups.reverse()) await c().catch(() => {});
  await rm(work, { recursive: true, force: true });
}
