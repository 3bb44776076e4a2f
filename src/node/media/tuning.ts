/**
 * Segment length of live HLS and recordings. One second by default (issue 23): with the console's
 * hls.js two segments behind the live edge (liveSyncDurationCount 2, web/src/components/player.tsx)
 * HLS plays about 2.5-3 s behind the camera, within the 4 s that HLS is held to (2 s segments gave
 * 5.7 s, bench/console/glass-to-glass.ts; docs/node-media.md "Latency"). A copied camera stream is
 * cut at its own key frames, so its segments are never shorter than its key-frame interval.
 */
export function segmentSecs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARGUS_NODE_SEGMENT_SECS ?? 1);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? n : 1;
}

/** How long a player may fetch nothing before its session ends (and an on-demand stream parks). */
export function viewerIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARGUS_NODE_VIEWER_IDLE_SECS ?? 10);
  return (Number.isFinite(n) && n >= 1 && n <= 600 ? n : 10) * 1000;
}
