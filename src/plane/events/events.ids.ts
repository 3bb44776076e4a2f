import { v7 as uuidv7 } from 'uuid';

const V7_RE = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A new event id: a UUIDv7 whose 48-bit time is the event's occurred_at (milliseconds). */
export function eventId(occurredAtMs: number): string {
  return uuidv7({ msecs: occurredAtMs });
}

/**
 * The occurred_at an event id carries, or null when the id is not an event id (any other
 * shape is a 404 without a database read). With the id and its time the card read goes
 * straight to one partition and its primary key.
 */
export function timeOfEventId(id: string): Date | null {
  const m = V7_RE.exec(id);
  if (!m) return null;
  const ms = parseInt(m[1]! + m[2]!, 16);
  return new Date(ms);
}
