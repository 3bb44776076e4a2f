import type { IngestStatus } from '../ingest/ingest.process.js';
import type { RecordedSegment } from '../dvr/dvr.store.js';
import { SEGMENT_URI } from './live-playlist.js';

/** `?t=<ticket>` for URLs inside a playlist; nothing when media is unprotected. */
export function ticketQuery(ticket: string | null): string {
  return ticket ? `?t=${encodeURIComponent(ticket)}` : '';
}

/**
 * The entry playlist `/{stream}/index.m3u8` is a multivariant playlist with one variant. Players
 * reload the variant URL, never the entry URL, so the reloads carry the session ticket and
 * the viewer token is presented once.
 */
export function masterPlaylist(status: IngestStatus | null, ticket: string | null): string {
  const bandwidth = Math.max(64_000, Math.round((status?.bitrate_kbps ?? 500) * 1000 * 1.25));
  const attrs = [`BANDWIDTH=${bandwidth}`];
  if (status?.resolution) attrs.push(`RESOLUTION=${status.resolution}`);
  if (status?.fps) attrs.push(`FRAME-RATE=${status.fps.toFixed(3)}`);
  return [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-INDEPENDENT-SEGMENTS',
    `#EXT-X-STREAM-INF:${attrs.join(',')}`,
    `live.m3u8${ticketQuery(ticket)}`,
    '',
  ].join('\n');
}

/** ffmpeg's live playlist with the ticket added to every segment URL; any other line is kept. */
export function livePlaylist(ffmpegText: string, ticket: string | null): string {
  const q = ticketQuery(ticket);
  return (
    ffmpegText
      .split('\n')
      // The muxer writes ENDLIST when its run ends; a restarted run continues the stream.
      .filter((l) => l.trim() !== '#EXT-X-ENDLIST')
      .map((l) => (SEGMENT_URI.test(l.trim()) ? `${l.trim()}${q}` : l))
      .join('\n')
  );
}

/** Two recorded segments further apart than this were written by different ffmpeg runs. */
const GAP_MS = 500;

/** A recorded range as a finished (VOD) media playlist; segment URLs are `dvr-<start_ms>.ts`. */
export function playbackPlaylist(segments: RecordedSegment[], ticket: string | null): string {
  const q = ticketQuery(ticket);
  const target = Math.max(1, ...segments.map((s) => Math.ceil(s.duration / 1000)));
  const lines = [
    '#EXTM3U',
    '#EXT-X-VERSION:3',
    '#EXT-X-PLAYLIST-TYPE:VOD',
    `#EXT-X-TARGETDURATION:${target}`,
    '#EXT-X-MEDIA-SEQUENCE:0',
    '#EXT-X-INDEPENDENT-SEGMENTS',
  ];
  let prevEnd: number | null = null;
  for (const s of segments) {
    if (prevEnd !== null && Math.abs(s.start - prevEnd) > GAP_MS) lines.push('#EXT-X-DISCONTINUITY');
    if (prevEnd === null || Math.abs(s.start - prevEnd) > GAP_MS)
      lines.push(`#EXT-X-PROGRAM-DATE-TIME:${new Date(s.start).toISOString()}`);
    lines.push(`#EXTINF:${(s.duration / 1000).toFixed(3)},`, `dvr-${s.start}.ts${q}`);
    prevEnd = s.start + s.duration;
  }
  lines.push('#EXT-X-ENDLIST', '');
  return lines.join('\n');
}
