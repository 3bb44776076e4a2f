/**
 * hls.js's liveSyncDurationCount for live HLS, the console's fallback from the WebSocket: how many
 * segments behind the playlist's end the player plays. With the node's 1 s segments
 * (src/node/media/tuning.ts) HLS plays about 2.5-3 s behind the camera, within the 4 s HLS is
 * held to (issue 23; bench/console/glass-to-glass.ts, docs/console.md "Live playback"): one
 * segment would leave at most a second of buffer (a late playlist reload stalls), three would
 * add a second of latency for nothing.
 */
export const LIVE_SYNC_SEGMENTS = 2;
