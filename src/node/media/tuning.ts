/** Segment length of live HLS and recordings. Two seconds by default: short latency, few files. */
export function segmentSecs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARGUS_NODE_SEGMENT_SECS ?? 2);
  return Number.isInteger(n) && n >= 1 && n <= 10 ? n : 2;
}

/** How long a player may fetch nothing before its session ends (and an on-demand stream parks). */
export function viewerIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const n = Number(env.ARGUS_NODE_VIEWER_IDLE_SECS ?? 10);
  return (Number.isFinite(n) && n >= 1 && n <= 600 ? n : 10) * 1000;
}
