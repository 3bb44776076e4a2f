import { errors } from '../../errors.js';
import { segmentEnd, type DvrStore } from '../dvr/dvr.store.js';

/** The longest window one read covers: the console's timeline zooms out to a week. */
export const RECORDED_MAX_SECS = 7 * 86_400;
/** Segments closer than this are one range (a restarted ffmpeg's first segment starts a little late). */
const JOIN_MS = 1500;

export interface RecordedRange {
  from_ms: number;
  to_ms: number;
}

/**
 * `/{stream}/recorded-<from>-<secs>.json` (issue 23): what is recorded in a window, as ranges of
 * wall-clock milliseconds, for the console's timeline to draw recording and gaps. A playback
 * playlist says the same segment by segment, each URL with its session ticket, about 0.5 KB per
 * 2-second segment (some 20 MB for a day): far too much to draw a week's bar from. Nothing
 * recorded (or a stream that does not record) is an empty list, not an error.
 */
export function recordedRanges(store: DvrStore | undefined, from: number, secs: number): RecordedRange[] {
  if (secs < 1 || secs > RECORDED_MAX_SECS)
    throw errors.rangeInvalid(`duration must be 1 to ${RECORDED_MAX_SECS} seconds`);
  const out: RecordedRange[] = [];
  for (const s of store?.range(from * 1000, (from + secs) * 1000) ?? []) {
    const last = out[out.length - 1];
    if (last && s.start - last.to_ms <= JOIN_MS) last.to_ms = Math.max(last.to_ms, segmentEnd(s));
    else out.push({ from_ms: s.start, to_ms: segmentEnd(s) });
  }
  return out;
}
