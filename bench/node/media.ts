/**
 * Media figures of one node on this machine, printed only:
 *  1. time from ingest start to the first playable segment (testsrc encoded; file copied),
 *     as the node logs it and as a viewer sees it (first 200 on index.m3u8 after a PUT);
 *  2. how many streams one node holds with video copied from a file source (a 720p 25 fps
 *     H.264 clip, looped), and the CPU each costs;
 *  3. the same for an RTSP source: one camera stand-in (the clip pushed by ffmpeg into an RTSP relay
 *     in this process, npm rtsp-streaming-server, RTP over UDP) pulled by every stream;
 *  4. the same for testsrc streams that ffmpeg encodes (320x180, 10 fps, libx264 ultrafast).
 * Run: npm run build && node dist/bench/node/media.js   (ONLY=first,copy,rtsp,encode STEPS=8,16 ENCODE_STEPS=2,4 SEGMENT_SECS=2 SETTLE_S=8)
 */
import { execFile, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, readdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import { ffmpegPath, mediaToolEnv } from '../../src/common/media-tools.js';
import { startBenchNode, stats } from './harness.js';

const run = promisify(execFile);
const SEGMENT_SECS = process.env.SEGMENT_SECS ?? '2';
const SETTLE_S = Number(process.env.SETTLE_S ?? 8);
const MEASURE_S = Number(process.env.MEASURE_S ?? 10);
const COPY_STEPS = (process.env.STEPS ?? '8,16,32,64,96,128,160').split(',').map(Number);
const ENCODE_STEPS = (process.env.ENCODE_STEPS ?? '2,4,8,12,16,24').split(',').map(Number);
/** The node's own share of the two cores (ffmpeg children and node) at which a step counts as the limit. */
const OWN_CORES_LIMIT = Number(process.env.OWN_CORES_LIMIT ?? 1.8);
const TICK = 100;

function procTicks(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8')
      .slice(readFileSync(`/proc/${pid}/stat`, 'utf8').lastIndexOf(')') + 2)
      .split(' ');
    return Number(f[11]) + Number(f[12]);
  } catch {
    return 0;
  }
}

function children(pid: number): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const s = readFileSync(`/proc/${d}/stat`, 'utf8');
      if (Number(s.slice(s.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out;
}

function hostTicks(): { busy: number; total: number } {
  const [, ...v] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - v[3] - v[4], total };
}

/** CPU cores used by the node and each of its ffmpeg children over `secs`, and the host's busy share. */
async function cpu(
  nodePid: number,
  secs: number,
): Promise<{ node: number; ffmpeg: number; perFfmpeg: number; host: number }> {
  const kids = children(nodePid);
  const a = { node: procTicks(nodePid), kids: kids.map(procTicks), host: hostTicks() };
  await sleep(secs * 1000);
  const b = { node: procTicks(nodePid), kids: kids.map(procTicks), host: hostTicks() };
  const ff = b.kids.reduce((s, t, i) => s + (t - a.kids[i]), 0) / TICK / secs;
  return {
    node: (b.node - a.node) / TICK / secs,
    ffmpeg: ff,
    perFfmpeg: kids.length ? ff / kids.length : 0,
    host: (100 * (b.host.busy - a.host.busy)) / (b.host.total - a.host.total),
  };
}

/** Resident memory of the node's ffmpeg children, MiB. */
function childrenRssMb(pid: number): number {
  let kb = 0;
  for (const c of children(pid)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${c}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      /* gone */
    }
  }
  return kb / 1024;
}

async function api(url: string, method: string, path: string, body?: unknown): Promise<any> {
  const r = await fetch(url + path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
  });
  return r.json().catch(() => null);
}

async function firstSegment(label: string, input: string, rounds = 5): Promise<void> {
  const node = await startBenchNode('', { ARGUS_NODE_SEGMENT_SECS: SEGMENT_SECS });
  const viewer: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const name = `fs${i}`;
    const t0 = performance.now();
    await api(node.url, 'PUT', `/api/v1/streams/${name}`, { input });
    for (;;) {
      const r = await fetch(`${node.url}/${name}/index.m3u8`);
      await r.arrayBuffer();
      if (r.status === 200) break;
      await sleep(50);
    }
    viewer.push(performance.now() - t0);
    await api(node.url, 'DELETE', `/api/v1/streams/${name}`);
  }
  await node.stop();
  console.log(
    `first playable segment, ${label} (segment ${SEGMENT_SECS} s), PUT to first 200 on index.m3u8: ${stats(viewer)}`,
  );
}

async function capacity(label: string, input: (i: number) => string, steps: number[]): Promise<void> {
  const node = await startBenchNode('', { ARGUS_NODE_SEGMENT_SECS: SEGMENT_SECS });
  const idle = await cpu(node.proc.pid!, 3);
  console.log(
    `\n${label}: host busy before any stream ${idle.host.toFixed(0)}% (other work on this machine counts here)`,
  );
  console.log(
    'streams | live | degraded | failing | ffmpeg cores | per stream | node cores | host busy | ffmpeg RSS MiB',
  );
  let n = 0;
  let best = 0;
  for (const target of steps) {
    for (; n < target; n++) await api(node.url, 'PUT', `/api/v1/streams/s${n}`, { input: input(n) });
    await sleep(SETTLE_S * 1000);
    const c = await cpu(node.proc.pid!, MEASURE_S);
    const rows: Array<{ state: string }> = (await api(node.url, 'GET', '/api/v1/streams')).rows;
    const count = (s: string) => rows.filter((r) => r.state === s).length;
    console.log(
      `${String(target).padStart(7)} | ${String(count('live')).padStart(4)} | ${String(count('degraded')).padStart(8)} | ${String(count('failing')).padStart(7)} | ${c.ffmpeg.toFixed(2).padStart(12)} | ${c.perFfmpeg.toFixed(3).padStart(10)} | ${c.node.toFixed(2).padStart(10)} | ${c.host.toFixed(0).padStart(8)}% | ${childrenRssMb(node.proc.pid!).toFixed(0).padStart(14)}`,
    );
    // Others' load on the machine is not the node's: the limit is every stream live within its own CPU budget.
    if (count('live') === target && c.ffmpeg + c.node <= OWN_CORES_LIMIT) best = target;
    if (count('live') < target || c.ffmpeg + c.node > OWN_CORES_LIMIT) break;
  }
  console.log(`${label}: all streams live up to ${best} streams`);
  await node.stop();
}

const dir = await mkdtemp(join(tmpdir(), 'argus-bench-clip-'));
const clip = join(dir, 'cam-720p.mp4');
await run(
  ffmpegPath(),
  [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=1280x720:rate=25:duration=20',
    '-c:v',
    'libx264',
    '-preset',
    'veryfast',
    '-b:v',
    '2M',
    '-g',
    '50',
    '-pix_fmt',
    'yuv420p',
    '-y',
    clip,
  ],
  { env: mediaToolEnv(ffmpegPath()) },
);
const clipUrl = pathToFileURL(clip).toString();

const only = process.env.ONLY ?? 'first,copy,rtsp,encode';
if (only.includes('first')) {
  await firstSegment('testsrc 320x180 encoded', 'testsrc://b?size=320x180&rate=10');
  await firstSegment('file 720p copied', clipUrl);
}
if (only.includes('copy')) await capacity(`file source copied (720p25 H.264, 2 Mbit/s)`, () => clipUrl, COPY_STEPS);
if (only.includes('rtsp')) {
  const RtspServer = createRequire(import.meta.url)('rtsp-streaming-server').default as new (
    o: Record<string, number>,
  ) => { start(): Promise<void> };
  const serverPort = 25554 + Math.floor(Math.random() * 1000);
  const relay = new RtspServer({ serverPort, clientPort: serverPort + 1000, rtpPortStart: 40000, rtpPortCount: 4000 });
  await relay.start();
  const pub = spawn(
    ffmpegPath(),
    [
      '-hide_banner',
      '-loglevel',
      'error',
      '-re',
      '-stream_loop',
      '-1',
      '-i',
      clip,
      '-c',
      'copy',
      '-f',
      'rtsp',
      `rtsp://127.0.0.1:${serverPort}/cam`,
    ],
    { stdio: 'ignore', env: mediaToolEnv(ffmpegPath()) },
  );
  await sleep(2000);
  await capacity(
    'rtsp source copied (720p25 H.264, 2 Mbit/s, one relay mount)',
    () => `rtsp://127.0.0.1:${serverPort + 1000}/cam`,
    (process.env.RTSP_STEPS ?? '8,16,32,64').split(',').map(Number),
  );
  pub.kill('SIGKILL');
}
if (only.includes('encode'))
  await capacity(
    'testsrc encoded (320x180, 10 fps, libx264 ultrafast)',
    (i) => `testsrc://s${i}?size=320x180&rate=10`,
    ENCODE_STEPS,
  );
process.exit(0);
