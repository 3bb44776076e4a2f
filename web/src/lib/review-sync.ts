/**
 * Synchronised review (issue 23): up to four cameras' recordings played from one clock. The
 * master clock is a wall-clock moment that runs at the chosen speed; each camera's video is
 * steered towards the playlist position of that moment (lib/recording.ts maps the two): a large
 * drift is a seek, a small one a playbackRate nudge, which corrects without the stutter of a seek.
 * Pure logic: the review wall (components/review/) applies it to the <video> elements.
 */
import type { Segment } from './recording.js';

/** How many cameras play together: four decoders beside each other is what a laptop keeps smooth. */
export const MAX_CAMERAS = 4;
/** The speeds offered, for every camera at once. */
export const SPEEDS = [0.5, 1, 2, 4, 8] as const;
/** Past this drift (seconds) a video is moved by a seek: a nudge would take seconds to close it. */
export const SEEK_OVER_S = 0.3;
/** Within this drift a video plays at the master's speed: below what the eye tells apart. */
export const STEADY_UNDER_S = 0.04;
/** The largest nudge, a share of the speed: 20 % closes 0.3 s in about 2 s at 1x without a visible change of pace. */
export const NUDGE_MAX = 0.2;
/** The longest the clock waits for a video that loads or seeks before it goes on without it. */
export const HOLD_MAX_MS = 4000;
/** Segments this close (ms) are one recording: the node's segments rarely touch exactly. */
const JOIN_MS = 1500;

/** What to do with one video this tick. */
export type Correction = { kind: 'seek'; to: number } | { kind: 'rate'; rate: number };

/**
 * The correction of a video at `videoS` (its currentTime) whose target is `targetS` at `speed`:
 * a seek past SEEK_OVER_S, else the rate that closes the drift (slower when ahead, faster when
 * behind, in proportion, at most NUDGE_MAX of the speed), the plain speed within STEADY_UNDER_S.
 */
export function correction(videoS: number, targetS: number, speed: number): Correction {
  const drift = videoS - targetS;
  if (Math.abs(drift) > SEEK_OVER_S) return { kind: 'seek', to: targetS };
  if (Math.abs(drift) <= STEADY_UNDER_S) return { kind: 'rate', rate: speed };
  return { kind: 'rate', rate: speed * (1 - (drift / SEEK_OVER_S) * NUDGE_MAX) };
}

/**
 * The playlist position (seconds) of wall-clock moment `atMs` when the camera recorded it; null in
 * a gap, before the first segment or after the last (the camera shows "No recording at this time").
 * A moment in a gap of at most JOIN_MS between two segments goes to the later one.
 */
export function recordedPosition(segments: readonly Segment[], atMs: number): number | null {
  let previousEnd = Number.NEGATIVE_INFINITY;
  for (const s of segments) {
    if (atMs < s.startMs) return s.startMs - previousEnd <= JOIN_MS ? s.offsetS : null;
    if (atMs < s.startMs + s.durationMs) return s.offsetS + (atMs - s.startMs) / 1000;
    previousEnd = s.startMs + s.durationMs;
  }
  return null;
}

/** The master clock: the moment shown at `anchorPerf` (a performance.now() reading), running from there when `running`. */
export interface MasterClock {
  readonly anchorMs: number;
  readonly anchorPerf: number;
  readonly speed: number;
  /** Play pressed (the user's state). */
  readonly playing: boolean;
  /** Waiting for a video to load or seek: the clock stands still though `playing`. */
  readonly held: boolean;
}

export const stoppedClock = (atMs: number, perf: number, speed = 1): MasterClock => ({
  anchorMs: atMs,
  anchorPerf: perf,
  speed,
  playing: false,
  held: false,
});

/** The master's moment (epoch ms) at `perf`. */
export const masterAt = (c: MasterClock, perf: number): number =>
  c.anchorMs + (c.playing && !c.held ? (perf - c.anchorPerf) * c.speed : 0);

/** The clock changed at `perf` (play, pause, speed, a seek, a hold): anchored again where it stands, so no moment jumps. */
export function changed(
  c: MasterClock,
  perf: number,
  change: Partial<Pick<MasterClock, 'speed' | 'playing' | 'held' | 'anchorMs'>>,
): MasterClock {
  return {
    anchorMs: change.anchorMs ?? masterAt(c, perf),
    anchorPerf: perf,
    speed: change.speed ?? c.speed,
    playing: change.playing ?? c.playing,
    held: change.held ?? c.held,
  };
}

/**
 * Whether the clock waits: a video that should play is loading or seeking (`waitingSince`, its
 * perf time, or null) and has not waited HOLD_MAX_MS yet; a camera that never loads (its node
 * away) does not stop the others for longer than that.
 */
export const mustHold = (waitingSince: ReadonlyArray<number | null>, perf: number): boolean =>
  waitingSince.some((since) => since !== null && perf - since < HOLD_MAX_MS);

/** What the review's address keeps: the cameras (at most MAX_CAMERAS, in order) and the start moment. */
export interface ReviewPlace {
  readonly cameras: readonly string[];
  /** epoch ms; null: not chosen yet (the page proposes a moment) */
  readonly from: number | null;
}

/** The review's place read from a query string (`?cameras=a,b&from=<RFC 3339>`); extra cameras past the fourth are dropped. */
export function reviewPlace(search: string): ReviewPlace {
  const q = new URLSearchParams(search);
  const cameras = [...new Set((q.get('cameras') ?? '').split(',').filter(Boolean))].slice(0, MAX_CAMERAS);
  const from = Date.parse(q.get('from') ?? '');
  return { cameras, from: Number.isFinite(from) ? from : null };
}

/** The query string of a place, keys in a fixed order so that one place has one address. */
export function searchOfPlace(p: ReviewPlace): string {
  const q = new URLSearchParams();
  if (p.cameras.length) q.set('cameras', p.cameras.join(','));
  if (p.from !== null) q.set('from', new Date(p.from).toISOString());
  const s = q.toString().replace(/%2C/g, ',').replace(/%3A/g, ':');
  return s ? `?${s}` : '';
}
