import { randomFillSync } from 'node:crypto';

const V7_RE = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
// Random bits for ids, drawn a few kilobytes at a time (one getRandomValues per id cost about 3%
// of intake CPU in bench/plane/intake.ts).
const pool = Buffer.alloc(4096);
let used = pool.length;

/** A new event id: a UUIDv7 whose 48-bit time is the event's occurred_at (milliseconds). */
export function eventId(occurredAtMs: number): string {
  if (used + 10 > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  const b = pool,
    o = used;
  used += 10;
  const t = Math.trunc(occurredAtMs).toString(16).padStart(12, '0');
  // version 7 and 12 random bits; variant 10 and 62 random bits
  return (
    `${t.slice(0, 8)}-${t.slice(8, 12)}-7${HEX[b[o]! & 0x0f]!.slice(1)}${HEX[b[o + 1]!]}-${HEX[(b[o + 2]! & 0x3f) | 0x80]}${HEX[b[o + 3]!]}-` +
    `${HEX[b[o + 4]!]}${HEX[b[o + 5]!]}${HEX[b[o + 6]!]}${HEX[b[o + 7]!]}${HEX[b[o + 8]!]}${HEX[b[o + 9]!]}`
  );
}

/**
 * The occurred_at an event id carries, or null when the id is not an event id (any other
 * shape is a 404 without a database read). With the id and its time the card read goes
 * straight to one partition and its primary key.
 */
const LAST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

export function timeOfEventId(id: string): Date | null {
  const m = V7_RE.exec(id);
  if (!m) return null;
  const ms = parseInt(m[1]! + m[2]!, 16);
  // Past year 9999 no event was ever stored, and PostgreSQL refuses the ISO text of such a time.
  return ms <= LAST_MS ? new Date(ms) : null;
}
