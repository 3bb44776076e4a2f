/**
 * Live over WebSocket, what viewers cost the node: one testsrc stream (320x180, 10 fps, encoded
 * once; the tee writes HLS and fMP4), watched by 0, then 1, then VIEWERS (64) WebSocket viewers.
 * For each: the node process's own CPU time over a window (its ffmpeg child is not counted: the
 * encode is the same whatever the viewers), its resident memory, and the fragments the viewers
 * received. Printed: the CPU per viewer at VIEWERS beside the 1-viewer figure of the same run.
 * No assertion: figures only.
 * Run: npm run build && node dist/bench/node/ws-viewers.js   (VIEWERS=64 WINDOW_S=10 SETTLE_S=3)
 */
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import WebSocket from 'ws';
import { startBenchNode } from './harness.js';

const VIEWERS = Number(process.env.VIEWERS ?? 64);
const WINDOW_S = Number(process.env.WINDOW_S ?? 10);
const SETTLE_S = Number(process.env.SETTLE_S ?? 3);
const INPUT = 'testsrc://bench?size=320x180&rate=10&bitrate=150';
const TICK = 100;

function procTicks(pid: number): number {
  const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const f = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(f[11]) + Number(f[12]);
}

function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
}

interface Viewer {
  ws: WebSocket;
  messages: number;
  bytes: number;
}

function open(url: string): Promise<Viewer> {
  return new Promise((resolve, reject) => {
    const v: Viewer = { ws: new WebSocket(url), messages: 0, bytes: 0 };
    v.ws.on('message', (data: Buffer) => {
      v.messages++;
      v.bytes += data.length;
    });
    v.ws.once('open', () => resolve(v));
    v.ws.once('error', reject);
  });
}

interface Step {
  viewers: number;
  /** CPU of the node process, milliseconds per second (millicores). */
  cpuMsPerS: number;
  rssMb: number;
  /** Fragments each viewer received per second, on average. */
  fragmentsPerS: number;
  kbitPerViewer: number;
}

async function measure(pid: number, viewers: Viewer[]): Promise<Step> {
  await sleep(SETTLE_S * 1000);
  const before = viewers.map((v) => ({ m: v.messages, b: v.bytes }));
  const t0 = procTicks(pid);
  await sleep(WINDOW_S * 1000);
  const ticks = procTicks(pid) - t0;
  const n = viewers.length;
  const msgs = viewers.reduce((s, v, i) => s + v.messages - before[i].m, 0);
  const bytes = viewers.reduce((s, v, i) => s + v.bytes - before[i].b, 0);
  return {
    viewers: n,
    cpuMsPerS: (ticks * (1000 / TICK)) / WINDOW_S,
    rssMb: rssMb(pid),
    fragmentsPerS: n ? msgs / n / WINDOW_S : 0,
    kbitPerViewer: n ? (bytes * 8) / 1000 / n / WINDOW_S : 0,
  };
}

const node = await startBenchNode(`stream cam1 { input "${INPUT}"; }\n`, { ARGUS_NODE_SEGMENT_SECS: '1' });
const pid = node.proc.pid!;
try {
  for (;;) {
    const r = await fetch(`${node.url}/cam1/index.m3u8`);
    await r.arrayBuffer();
    if (r.status === 200) break;
    await sleep(100);
  }
  const wsUrl = `${node.url.replace(/^http/, 'ws')}/cam1/live.ws`;
  const steps: Step[] = [await measure(pid, [])];
  const one = [await open(wsUrl)];
  steps.push(await measure(pid, one));
  for (const v of one) v.ws.close();
  const many: Viewer[] = [];
  for (let i = 0; i < VIEWERS; i++) many.push(await open(wsUrl));
  steps.push(await measure(pid, many));
  for (const v of many) v.ws.close();

  for (const s of steps)
    console.log(
      `ws viewers ${String(s.viewers).padStart(3)}: node CPU ${s.cpuMsPerS.toFixed(1)} ms/s, RSS ${s.rssMb.toFixed(1)} MiB, ` +
        `${s.fragmentsPerS.toFixed(1)} fragments/s and ${s.kbitPerViewer.toFixed(0)} kbit/s per viewer`,
    );
  const [idle, single, full] = steps;
  const perViewer = (full.cpuMsPerS - idle.cpuMsPerS) / VIEWERS;
  const oneViewer = single.cpuMsPerS - idle.cpuMsPerS;
  console.log(
    `node CPU per ws viewer: ${perViewer.toFixed(2)} ms/s at ${VIEWERS} viewers; ${oneViewer.toFixed(2)} ms/s for 1 viewer (same run)`,
  );
  console.log(
    JSON.stringify({
      viewers: VIEWERS,
      window_s: WINDOW_S,
      steps,
      cpu_ms_per_s_per_viewer: perViewer,
      cpu_ms_per_s_one_viewer: oneViewer,
      rss_mb_idle: idle.rssMb,
      rss_mb_full: full.rssMb,
    }),
  );
} finally {
  await node.stop();
}
