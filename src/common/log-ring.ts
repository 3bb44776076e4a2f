import { scrubSecrets } from './log-scrub.js';

/**
 * The in-memory log ring of a process (document 1 "Control-plane log entry"; the node keeps one
 * of the same shape, document 4 section 9): the newest 4096 entries, never on disk, numbered
 * from 1 by `seq` (the numbering restarts with the process).
 */
export type RingLevel = 'debug' | 'info' | 'warn' | 'error';
export const RING_LEVELS: readonly RingLevel[] = ['debug', 'info', 'warn', 'error'];

export interface LogEntry {
  seq: number;
  ts_ms: number;
  level: RingLevel;
  target: string;
  message: string;
}

/** The display filter of the page and the live tail; undefined fields do not filter. */
export interface LogFilter {
  /** minimum severity; `all` (or absent) admits every level */
  level?: RingLevel | 'all';
  /** exact target */
  target?: string;
  /** case-insensitive substring of message or target */
  q?: string;
}

export const LOG_RING_CAPACITY = 4096;
export const MESSAGE_MAX_BYTES = 4096;
export const TARGET_MAX_BYTES = 128;
/** Longest `target` and `q` filter (characters). */
export const LOG_FILTER_MAX_CHARS = 128;
export const LOG_PAGE_DEFAULT = 500;
export const LOG_PAGE_MAX = 1000;

const RANK: Record<RingLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** `text` cut to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (text.length * 3 <= maxBytes) return text;
  const buf = Buffer.from(text, 'utf8');
  if (buf.length <= maxBytes) return text;
  let end = maxBytes;
  // Step back over continuation bytes (10xxxxxx) to the start of the cut character.
  while (end > 0 && (buf[end]! & 0xc0) === 0x80) end--;
  return buf.subarray(0, end).toString('utf8');
}

/** A compiled filter: the level rank, the exact target, the lowered query. */
export function compileFilter(f: LogFilter): (e: LogEntry) => boolean {
  const min = f.level && f.level !== 'all' ? RANK[f.level] : 0;
  const target = f.target;
  const q = f.q ? f.q.toLowerCase() : '';
  return (e) =>
    RANK[e.level] >= min &&
    (target === undefined || e.target === target) &&
    (q === '' || e.message.toLowerCase().includes(q) || e.target.toLowerCase().includes(q));
}

export class LogRing {
  private readonly slots: Array<LogEntry | undefined>;
  private seq = 0;
  private readonly listeners = new Set<(e: LogEntry) => void>();

  constructor(readonly capacity = LOG_RING_CAPACITY) {
    this.slots = new Array<LogEntry | undefined>(capacity);
  }

  /** The seq of the newest entry (0 while empty). */
  get head(): number {
    return this.seq;
  }

  /**
   * Admits one entry: scrubbed, then cut to the byte limits (scrubbing first, so a cut never
   * leaves half a secret). `scrubbed`: the caller scrubbed the text already (the pino sink scrubs
   * the whole line once, for stdout too).
   */
  capture(level: RingLevel, target: string, message: string, tsMs: number, scrubbed = false): LogEntry {
    const entry: LogEntry = {
      seq: ++this.seq,
      ts_ms: tsMs,
      level,
      target: truncateUtf8(scrubbed ? target : scrubSecrets(target), TARGET_MAX_BYTES),
      message: truncateUtf8(scrubbed ? message : scrubSecrets(message), MESSAGE_MAX_BYTES),
    };
    this.slots[(entry.seq - 1) % this.capacity] = entry;
    // A listener (a live tail) must never make logging throw.
    for (const fn of this.listeners) {
      try {
        fn(entry);
      } catch {
        /* its stream ends on its own */
      }
    }
    return entry;
  }

  /** Entries with seq above `after`, oldest first. */
  since(after: number): LogEntry[] {
    const first = Math.max(after + 1, this.seq - this.capacity + 1, 1);
    const out: LogEntry[] = [];
    for (let s = first; s <= this.seq; s++) out.push(this.slots[(s - 1) % this.capacity]!);
    return out;
  }

  /** A page: the ring filtered, reversed (newest first), then cut to `limit`. */
  page(filter: LogFilter, after: number, limit: number): LogEntry[] {
    const match = compileFilter(filter);
    const floor = Math.max(after, this.seq - this.capacity, 0);
    const out: LogEntry[] = [];
    for (let s = this.seq; s > floor && out.length < limit; s--) {
      const e = this.slots[(s - 1) % this.capacity]!;
      if (match(e)) out.push(e);
    }
    return out;
  }

  /** Every entry admitted from now on; returns the unsubscribe. */
  subscribe(fn: (e: LogEntry) => void): () => void {
    this.listeners.add(fn);
    return () => {
      this.listeners.delete(fn);
    };
  }
}
