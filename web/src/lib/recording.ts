/**
 * What a camera's recording holds, read from the node's playback playlist of a window (the public
 * API: POST /cameras/{id}/play with intent playback, then the playlist): every segment is
 * `dvr-<start ms>.ts` after its `#EXTINF:<seconds>`. Consecutive segments make a range; the
 * playlist plays them back to back, so a moment of the wall clock maps to a position in it.
 */
export interface Segment {
  startMs: number;
  durationMs: number;
  offsetS: number;
}
export interface Range {
  fromMs: number;
  toMs: number;
}

/**
 * The segments of a playback playlist with their wall-clock start: the start in a segment's name
 * (`dvr-<ms>.ts`), else the `#EXT-X-PROGRAM-DATE-TIME` the node writes at the start of each
 * continuous run, carried forward by the durations (a playlist of another origin).
 */
export function segmentsOf(playlist: string): Segment[] {
  const out: Segment[] = [];
  let duration: number | null = null,
    offset = 0,
    clock: number | null = null;
  for (const raw of playlist.split('\n')) {
    const line = raw.trim();
    const inf = /^#EXTINF:([0-9.]+)/.exec(line);
    if (inf) {
      duration = Number(inf[1]);
      continue;
    }
    const pdt = /^#EXT-X-PROGRAM-DATE-TIME:(.+)$/.exec(line);
    if (pdt) {
      const t = Date.parse(pdt[1]!);
      clock = Number.isFinite(t) ? t : null;
      continue;
    }
    if (!line || line.startsWith('#') || duration === null) continue;
    const seg = /(?:^|\/)dvr-([0-9]{10,16})\.ts(?:\?|$)/.exec(line);
    const startMs = seg ? Number(seg[1]) : clock;
    if (startMs !== null) {
      out.push({ startMs, durationMs: Math.round(duration * 1000), offsetS: offset });
      clock = startMs + Math.round(duration * 1000);
    }
    offset += duration;
    duration = null;
  }
  return out;
}

/** The session ticket (`?t=`) the node put in a playlist's segment URLs; it opens every playback path of the stream. */
export function ticketOf(playlist: string): string | null {
  const m = /[?&]t=([^&\s]+)/.exec(playlist);
  return m ? decodeURIComponent(m[1]!) : null;
}

/** Segments that touch (within `gapMs`) merged into recorded ranges. */
export function rangesOf(segments: Segment[], gapMs = 1500): Range[] {
  const out: Range[] = [];
  for (const s of segments) {
    const last = out[out.length - 1];
    if (last && s.startMs - last.toMs <= gapMs) last.toMs = Math.max(last.toMs, s.startMs + s.durationMs);
    else out.push({ fromMs: s.startMs, toMs: s.startMs + s.durationMs });
  }
  return out;
}

/** The playlist position (seconds) of a wall-clock moment; a moment in a gap goes to the next recorded one; null past the end. */
export function positionOf(segments: Segment[], atMs: number): number | null {
  for (const s of segments) {
    if (atMs < s.startMs) return s.offsetS;
    if (atMs < s.startMs + s.durationMs) return s.offsetS + (atMs - s.startMs) / 1000;
  }
  return null;
}

/** The wall-clock moment of a playlist position (seconds), or null outside it. */
export function momentOf(segments: Segment[], positionS: number): number | null {
  for (const s of segments) {
    if (positionS < s.offsetS + s.durationMs / 1000) return s.startMs + Math.max(0, positionS - s.offsetS) * 1000;
  }
  return null;
}

/** Ranges from several reads (chunks of a window) in order, those that touch (within `gapMs`) joined: a chunk's edge is no gap. */
export function mergeRanges(ranges: Range[], gapMs = 1500): Range[] {
  const out: Range[] = [];
  for (const r of [...ranges].sort((a, b) => a.fromMs - b.fromMs)) {
    const last = out[out.length - 1];
    if (last && r.fromMs - last.toMs <= gapMs) last.toMs = Math.max(last.toMs, r.toMs);
    else out.push({ ...r });
  }
  return out;
}
