import { useQueries, useQuery } from '@tanstack/react-query';
import { play } from '../api/cameras.js';
import { mergeRanges, segmentsOf, ticketOf, type Range, type Segment } from '../lib/recording.js';

/** A recorded range read through the public API: its playback session, its segments and the node's ticket. */
export interface RecordedChunk {
  play: { url: string; token: string } | null;
  segments: Segment[];
  ticket: string | null;
}

const reviewKey = (id: string, from: number, seconds: number, rev = 0) => ['review', id, from, seconds, rev] as const;

/**
 * POST /cameras/{id}/play with intent playback, then the node's playlist of the range. A range
 * with nothing recorded (the node's 404 `no_recording`) is an empty chunk, not an error.
 */
async function readChunk(id: string, from: number, duration: number): Promise<RecordedChunk> {
  const session = await play(id, { intent: 'playback', from, duration });
  const res = await fetch(`${session.url}?token=${encodeURIComponent(session.token)}`);
  if (!res.ok) return { play: null, segments: [], ticket: null };
  const text = await res.text();
  return { play: session, segments: segmentsOf(text), ticket: ticketOf(text) };
}

// A chunk read once is kept for the page's life: the recording of the past does not change, and
// the chunk holding now is read again by the next jump (its `rev`).
const KEEP = { staleTime: Infinity, gcTime: 10 * 60_000 };

/** The range the player plays (`rev` reads it again: a jump to the newest moment). */
export const usePlayRange = (id: string, range: { from: number; duration: number; rev: number }) =>
  useQuery({
    queryKey: reviewKey(id, range.from, range.duration, range.rev),
    queryFn: () => readChunk(id, range.from, range.duration),
    ...KEEP,
  });

/**
 * What is recorded in a chunk of the timeline's view: a viewer token for the chunk (POST
 * /cameras/{id}/play, intent playback), then the node's `recorded-<from>-<secs>.json`, the ranges
 * alone (a playlist lists every segment with its ticket, some 20 MB for a day).
 */
async function readRanges(id: string, from: number, duration: number): Promise<Range[]> {
  const session = await play(id, { intent: 'playback', from, duration });
  const url = session.url.replace(/index-(\d+)-(\d+)\.m3u8$/, 'recorded-$1-$2.json');
  const res = await fetch(`${url}?token=${encodeURIComponent(session.token)}`);
  if (!res.ok) return [];
  const body = (await res.json()) as { ranges?: Array<{ from_ms: number; to_ms: number }> };
  return (body.ranges ?? []).map((r) => ({ fromMs: r.from_ms, toMs: r.to_ms }));
}

/** The recorded ranges under the timeline's view, read in its chunks (review-zoom.ts chunksOf) and joined. */
export function useRecordedChunks(id: string, chunks: Array<{ from: number; duration: number }>) {
  const results = useQueries({
    queries: chunks.map((c) => ({
      queryKey: ['review-ranges', id, c.from, c.duration] as const,
      queryFn: () => readRanges(id, c.from, c.duration),
      ...KEEP,
      // The chunk still being recorded is read again each minute, so the bar grows with it.
      ...((c.from + c.duration) * 1000 > Date.now() ? { staleTime: 30_000, refetchInterval: 60_000 } : {}),
    })),
  });
  const ranges = mergeRanges(results.flatMap((r) => r.data ?? []));
  return { ranges, pending: results.some((r) => r.isPending) };
}

/**
 * The URL of the node's thumbnail of a moment (src/node/media/playback/thumbnail.ts), on the
 * session of a range of the same stream: its ticket when the node gave one (it outlives the
 * 5-minute viewer token), else the viewer token.
 */
export function thumbUrl(chunk: RecordedChunk | undefined, epochSecs: number): string | null {
  if (!chunk?.play) return null;
  const base = chunk.play.url.replace(/index-\d+-\d+\.m3u8$/, `thumb-${epochSecs}.jpg`);
  if (base === chunk.play.url) return null;
  return chunk.ticket
    ? `${base}?t=${encodeURIComponent(chunk.ticket)}`
    : `${base}?token=${encodeURIComponent(chunk.play.token)}`;
}
