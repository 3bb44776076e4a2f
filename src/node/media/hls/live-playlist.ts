/**
 * The media playlist ffmpeg's HLS muxer writes for a live stream, read back by the node: the
 * node never hands ffmpeg's file to a viewer as it is, because every segment URL must carry the
 * viewer's session ticket.
 */
export interface LiveSegment {
  /** File name inside the live folder, e.g. `r3-1700000000.ts`. */
  uri: string;
  /** Media sequence number. */
  seq: number;
  duration: number;
  /** Wall-clock start (EXT-X-PROGRAM-DATE-TIME), ms; null when ffmpeg did not write one. */
  startMs: number | null;
}

export interface LivePlaylist {
  targetDuration: number;
  mediaSequence: number;
  segments: LiveSegment[];
  ended: boolean;
}

export const SEGMENT_URI = /^r[0-9]+-[0-9]+\.ts$/;

export function parseLivePlaylist(text: string): LivePlaylist | null {
  if (!text.startsWith('#EXTM3U')) return null;
  const pl: LivePlaylist = { targetDuration: 1, mediaSequence: 0, segments: [], ended: false };
  let duration: number | null = null;
  let pdt: number | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (line.startsWith('#EXT-X-TARGETDURATION:')) pl.targetDuration = Number(line.slice(22)) || 1;
    else if (line.startsWith('#EXT-X-MEDIA-SEQUENCE:')) pl.mediaSequence = Number(line.slice(22)) || 0;
    else if (line.startsWith('#EXTINF:')) duration = parseFloat(line.slice(8));
    else if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) {
      const t = Date.parse(line.slice(25));
      pdt = Number.isFinite(t) ? t : null;
    } else if (line === '#EXT-X-ENDLIST') pl.ended = true;
    else if (!line.startsWith('#')) {
      if (duration !== null && Number.isFinite(duration) && SEGMENT_URI.test(line)) {
        pl.segments.push({ uri: line, seq: pl.mediaSequence + pl.segments.length, duration, startMs: pdt });
      }
      duration = null;
      pdt = null;
    }
  }
  return pl;
}
