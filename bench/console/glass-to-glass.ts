/**
 * Glass-to-glass latency of live video in the console (issue 23): a frame's creation at the source
 * to its presentation in Chromium, for the WebSocket path (fMP4 over the node's live.ws, MSE) and
 * for HLS, FRAMES frames each, p50/p95 beside the targets (WebSocket p95 at most 1.0 s, HLS p95 at
 * most 4 s, on loopback).
 *
 * What `npm start` runs (plane, node, the demo camera fed by testsrc://, whose frames ffmpeg
 * generates inside the ingest at real-time rate, `-re`) is started; the camera's page is opened
 * signed in, and its live player (`.player[data-intent=live]`) is timed with
 * requestVideoFrameCallback: presentation = the frame's expectedDisplayTime on the wall clock;
 * creation = the ingest's wall clock for the frame's mediaTime, which the player dispatches as
 * `argus-wallclock` events: over the WebSocket from the fragments' `prft` boxes (ffmpeg's
 * `write_prft=wallclock`), over HLS from the fragments' EXT-X-PROGRAM-DATE-TIME (ffmpeg's HLS
 * muxer: its start on the wall clock plus the media time). Both clocks are this machine's. For
 * HLS the page's WebSocket to the node is closed by the browser driver before its first frame, so
 * the player falls back as it would against a node that refuses the socket.
 *
 * ffmpeg's MP4 muxer writes a frame's fragment (and stamps its prft) when the next frame reaches
 * it, one frame interval after the frame itself: the WebSocket figure is also printed with that
 * interval added ("from capture"), and that is the one read against the target.
 *
 * Run: npm run build && node dist/bench/console/glass-to-glass.js
 *   (FRAMES default 100, over SESSIONS page loads, default 2; WARMUP_S default 4, seconds played
 *    before measuring;
 *    ARGUS_NODE_SEGMENT_SECS is passed to the node like any variable)
 */
import type { BrowserContext, Page } from 'playwright-core';
import { callApi, launchChromium, startFleet, watchedPage } from '../../test/browser/browser.js';
import { LIVE_SYNC_SEGMENTS } from '../../web/src/lib/live-sync.js';

const FRAMES = Number(process.env.FRAMES ?? 100);
const WARMUP_S = Number(process.env.WARMUP_S ?? 4);
const SESSIONS = Math.max(1, Number(process.env.SESSIONS ?? 2));
const TARGET_MS = { ws: 1000, hls: 4000 } as const;

interface Sample {
  mediaTime: number;
  createdMs: number;
  shownMs: number;
}
interface Measured {
  samples: Sample[];
  /** the wall-clock points the player dispatched, for the pacing check */
  points: Array<{ mediaTime: number; wallMs: number; duration?: number }>;
  playbackRate: number;
}

/** Collects the live player's argus-wallclock events from the page's first script on (the recording's player has its own). */
const COLLECT = `
  globalThis.__argusClock = [];
  document.addEventListener('argus-wallclock', (e) => {
    if (e.target.closest('.player[data-intent=live]')) globalThis.__argusClock.push(e.detail);
  }, true);
`;

/** FRAMES frames of the live player timed in the page, creation from the `via` mappings. */
async function measure(page: Page, via: 'prft' | 'pdt', frames: number): Promise<Measured> {
  return page.evaluate(
    async ([frames, via]) => {
      const g = globalThis as any;
      const v = g.document.querySelector('.player[data-intent=live] video');
      const points: Array<{ mediaTime: number; wallMs: number; via: string; duration?: number }> = g.__argusClock;
      const samples: Array<{ mediaTime: number; createdMs: number; shownMs: number }> = [];
      // The newest mapping at or before the frame (a restart of the producer goes back in media time).
      const creation = (m: number): number | null => {
        for (let i = points.length - 1; i >= 0; i--) {
          const p = points[i]!;
          if (p.via === via && p.mediaTime <= m + 1e-6 && m - p.mediaTime < 10)
            return p.wallMs + (m - p.mediaTime) * 1000;
        }
        return null;
      };
      await new Promise<void>((done) => {
        const timer = setTimeout(done, 60_000);
        const step = (_now: number, md: any) => {
          // expectedDisplayTime is on the page's monotonic clock; moved to the wall clock here.
          const shownMs = Date.now() - g.performance.now() + md.expectedDisplayTime;
          const createdMs = creation(md.mediaTime);
          if (createdMs !== null) samples.push({ mediaTime: md.mediaTime, createdMs, shownMs });
          if (samples.length >= frames) {
            clearTimeout(timer);
            done();
          } else v.requestVideoFrameCallback(step);
        };
        v.requestVideoFrameCallback(step);
      });
      return {
        samples,
        points: points
          .filter((p) => p.via === via)
          .map((p) => ({ mediaTime: p.mediaTime, wallMs: p.wallMs, duration: p.duration })),
        playbackRate: v.playbackRate,
      };
    },
    [frames, via] as const,
  );
}

/** The camera page's live player playing over `transport`, warmed up, then measured. */
async function run(context: BrowserContext, path: string, transport: 'ws' | 'hls', frames: number): Promise<Measured> {
  const { page, errors } = await watchedPage(context);
  await page.addInitScript(COLLECT);
  // HLS: the socket to the node opens and is closed at once by the driver, before any frame.
  if (transport === 'hls') await page.routeWebSocket(/\/live\.ws/, (ws) => ws.close());
  await fleet.open(page, path);
  const player = page.locator(`.player[data-intent=live][data-transport=${transport}] video`);
  await player.waitFor({ state: 'attached', timeout: 30_000 });
  await page.waitForFunction(
    () => {
      const v = (globalThis as any).document.querySelector('.player[data-intent=live] video');
      return v && v.readyState >= 2 && !v.paused && v.currentTime > 0;
    },
    undefined,
    { timeout: 30_000 },
  );
  await page.waitForTimeout(WARMUP_S * 1000);
  const got = await measure(page, transport === 'ws' ? 'prft' : 'pdt', frames);
  const now = await page.locator('.player[data-intent=live]').getAttribute('data-transport');
  if (now !== transport) throw new Error(`the player changed to ${now} while measuring ${transport}`);
  if (errors.length)
    console.error(`${errors.length} console errors in the page (${transport}), the first: ${errors[0]}`);
  await page.close();
  return got;
}

function median(xs: number[]): number | null {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? +s[Math.floor(s.length / 2)]!.toFixed(2) : null;
}

function stats(latencies: number[]) {
  const s = [...latencies].sort((a, b) => a - b);
  const q = (p: number) => Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]!);
  return { frames: s.length, p50_ms: q(0.5), p95_ms: q(0.95), min_ms: Math.round(s[0]!), max_ms: q(1) };
}

/**
 * Media seconds per wall second between the first and the last prft of a session: 1.00 when the
 * source is paced in real time (the prft clock is ffmpeg's wall clock as it writes each fragment;
 * the HLS program date-times are the muxer's start plus the media time, so they cannot tell).
 */
function pacing(points: Array<{ mediaTime: number; wallMs: number }>): number | null {
  if (points.length < 2) return null;
  const a = points[0]!,
    b = points[points.length - 1]!;
  return +((b.mediaTime - a.mediaTime) / ((b.wallMs - a.wallMs) / 1000)).toFixed(3);
}

/** Frames per second of the measured frames (their media times), for the one-interval correction. */
function frameInterval(samples: Sample[]): number {
  const d = samples
    .slice(1)
    .map((s, i) => s.mediaTime - samples[i]!.mediaTime)
    .filter((x) => x > 0)
    .sort((a, b) => a - b);
  return d.length ? d[Math.floor(d.length / 2)]! * 1000 : 0;
}

const fleet = await startFleet();
const browser = await launchChromium();
try {
  const session = await fleet.session();
  const cams = await callApi<{ rows: Array<{ id: string; name: string; status: string }> }>(
    fleet.base,
    session,
    'GET',
    '/api/v1/cameras',
  );
  const demo = cams.rows[0];
  if (!demo) throw new Error('the fleet has no camera');
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  // Each session is a page load of its own: HLS's latency is fixed where its player starts, so
  // the sessions' spread is part of the figure.
  const per = Math.ceil(FRAMES / SESSIONS);
  const sessions = async (transport: 'ws' | 'hls') => {
    const all: Measured[] = [];
    for (let i = 0; i < SESSIONS; i++) all.push(await run(context, `/cameras/${demo.id}`, transport, per));
    return {
      samples: all.flatMap((m) => m.samples),
      points: all[all.length - 1]!.points,
      playbackRate: all[all.length - 1]!.playbackRate,
    };
  };
  const ws = await sessions('ws');
  const hls = await sessions('hls');
  await context.close();

  const interval = frameInterval(ws.samples);
  const wsLat = ws.samples.map((s) => s.shownMs - s.createdMs);
  const result = {
    frames: FRAMES,
    sessions: SESSIONS,
    // the node's HLS segment length, as the fragments hls.js buffered last (median)
    segment_secs: median(hls.points.map((p) => p.duration ?? 0).filter((d) => d > 0)),
    ws: stats(wsLat),
    ws_from_capture: stats(wsLat.map((x) => x + interval)),
    hls: stats(hls.samples.map((s) => s.shownMs - s.createdMs)),
    frame_interval_ms: Math.round(interval),
    source_pacing: pacing(ws.points),
    playback_rate_at_end: { ws: ws.playbackRate, hls: hls.playbackRate },
    targets_ms: { ws_p95: TARGET_MS.ws, hls_p95: TARGET_MS.hls },
  };
  const line = (name: string, s: ReturnType<typeof stats>, target: number) =>
    `| ${name} | ${s.frames} | ${s.p50_ms} | ${s.p95_ms} | ${s.min_ms} | ${s.max_ms} | ${target} | ${s.p95_ms <= target ? 'within' : 'OVER'} |`;
  console.log(
    `| glass to glass, ${demo.name} (${FRAMES} frames in ${SESSIONS} page loads) | frames | p50 ms | p95 ms | min ms | max ms | target p95 ms | |`,
  );
  console.log('|---|---|---|---|---|---|---|---|');
  console.log(line('WebSocket + MSE, creation per prft', result.ws, TARGET_MS.ws));
  console.log(
    line(`WebSocket + MSE, from capture (prft - ${result.frame_interval_ms} ms)`, result.ws_from_capture, TARGET_MS.ws),
  );
  console.log(line('HLS (hls.js), creation per program date-time', result.hls, TARGET_MS.hls));
  console.log(
    `HLS segments ${result.segment_secs} s, hls.js liveSyncDurationCount ${LIVE_SYNC_SEGMENTS}; source pacing (prft media s per wall s) ${result.source_pacing}`,
  );
  console.log(JSON.stringify(result));
} finally {
  await browser.close();
  await fleet.stop();
}
