/**
 * The replay buffer of a live stream: the last `size` frames in stream order (rising `seq`),
 * and `base`, below which frames were evicted (or never loaded), so a resume point older than
 * the buffer is told apart from one with nothing after it. The event ring and the audit ring
 * keep their own delivery rules (gap settling, catch-up) around one of these.
 */
export class ReplayRing<F extends { seq: number }> {
  private frames: F[] = [];
  private floor = 0;

  constructor(readonly size: number) {}

  /** Frames with seq <= base are gone (evicted, or before everything loaded). */
  get base(): number {
    return this.floor;
  }
  /** The highest seq held, else base. */
  get last(): number {
    return this.frames.length ? this.frames[this.frames.length - 1]!.seq : this.floor;
  }
  get length(): number {
    return this.frames.length;
  }

  /** Replaces the contents: `frames` in seq order, everything at or below `base` gone. */
  reset(frames: F[], base: number): void {
    this.frames = frames.slice(-this.size);
    this.floor = frames.length > this.size ? this.frames[0]!.seq - 1 : base;
  }

  /** Appends a frame above the last one; the oldest is evicted past `size`. */
  push(f: F): void {
    this.frames.push(f);
    if (this.frames.length > this.size) {
      const drop = this.frames.length - this.size;
      this.floor = this.frames[drop - 1]!.seq;
      this.frames.splice(0, drop);
    }
  }

  /** Frames after `seq` (oldest first), or null when `seq` is older than the ring holds. */
  after(seq: number): F[] | null {
    if (seq < this.floor) return null;
    let lo = 0,
      hi = this.frames.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.frames[mid]!.seq <= seq) lo = mid + 1;
      else hi = mid;
    }
    return this.frames.slice(lo);
  }
}
