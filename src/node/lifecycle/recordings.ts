import { setTimeout as sleep } from 'node:timers/promises';

export const RECORDING_STOP_GRACE_MS = 5000;

/** Something that writes a recording file and can finish it cleanly (the segment writer of a dvr stream). */
export interface OpenRecording {
  stream: string;
  close(): Promise<void>;
}

/**
 * Open recordings, so that a stop can give them time to close their files. The stop waits for
 * all of them, but never longer than the grace: a stuck writer must not keep the service up.
 */
export class Recordings {
  private readonly open = new Set<OpenRecording>();

  add(rec: OpenRecording): () => void {
    this.open.add(rec);
    return () => this.open.delete(rec);
  }

  get count(): number {
    return this.open.size;
  }

  /** Resolves with how many recordings did not close within `graceMs`. */
  async closeAll(graceMs = RECORDING_STOP_GRACE_MS): Promise<number> {
    const pending = new Set(this.open);
    if (pending.size === 0) return 0;
    const ac = new AbortController();
    const closing = Promise.all(
      [...pending].map(async (rec) => {
        try {
          await rec.close();
        } catch {
          /* a failed close still counts as no longer open */
        }
        pending.delete(rec);
        this.open.delete(rec);
      }),
    );
    await Promise.race([closing, sleep(graceMs, undefined, { signal: ac.signal }).catch(() => undefined)]);
    ac.abort();
    return pending.size;
  }
}
