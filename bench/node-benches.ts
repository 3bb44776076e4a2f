import { CONNECTIONS, lastJson, num, replyRate, type Bench } from './bench-spec.js';

/** The streaming node's benches (bench/node/), run after the plane's. */
export const NODE_BENCHES: Bench[] = [
  {
    name: 'metrics-rps',
    file: 'node/metrics-rps.js',
    env: { DURATION_MS: '3000', CONCURRENCY: String(CONNECTIONS) },
    figures(out, b) {
      const m = /: (\d+) requests\/s/.exec(out);
      return [
        {
          bench: 'metrics-rps',
          figure: 'node GET /metrics',
          value: m ? Number(m[1]) : null,
          unit: 'req/s',
          baseline: replyRate(b),
          ratio: 'share',
        },
      ];
    },
  },
  {
    name: 'login-delay',
    file: 'node/login-delay.js',
    env: { ROUNDS: '5' },
    figures(out) {
      const med = (label: string) => num(new RegExp(`${label}[^\\n]*median=([0-9.]+)`).exec(out)?.[1]);
      return [
        {
          bench: 'login-delay',
          figure: 'node login, wrong password, median',
          value: med('wrong password'),
          unit: 'ms',
          baseline: { name: 'right password, median', value: med('right password') ?? NaN, unit: 'ms' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'media',
    file: 'node/media.js',
    env: { ONLY: 'first', SEGMENT_SECS: '1' },
    figures(out, b) {
      const m = /first playable segment, testsrc[^\n]*median=([0-9.]+)/.exec(out);
      return [
        {
          bench: 'media',
          figure: 'node: stream added to first playable segment (testsrc 320x180, 1 s segments)',
          value: m ? Number(m[1]) : null,
          unit: 'ms',
          baseline: { name: 'ffmpeg directly to a first HLS playlist', value: b.ffmpegMs, unit: 'ms' },
          ratio: 'times',
        },
      ];
    },
  },
  {
    name: 'ws-viewers',
    file: 'node/ws-viewers.js',
    env: { VIEWERS: '64', WINDOW_S: '8', SETTLE_S: '3' },
    figures(out) {
      const j = lastJson(out) as {
        cpu_ms_per_s_per_viewer: number;
        cpu_ms_per_s_one_viewer: number;
        rss_mb_full: number;
        rss_mb_idle: number;
      };
      return [
        {
          bench: 'ws-viewers',
          figure: 'node CPU per live.ws viewer, 64 viewers of one testsrc stream',
          value: j.cpu_ms_per_s_per_viewer,
          unit: 'ms CPU/s',
          baseline: { name: '1 viewer', value: j.cpu_ms_per_s_one_viewer, unit: 'ms CPU/s' },
          ratio: 'times',
        },
        {
          bench: 'ws-viewers',
          figure: 'node RSS with 64 live.ws viewers',
          value: j.rss_mb_full,
          unit: 'MiB',
          baseline: { name: 'no viewer', value: j.rss_mb_idle, unit: 'MiB' },
          ratio: 'times',
        },
      ];
    },
  },
];
