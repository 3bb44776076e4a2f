import type { Logger } from 'pino';
import { LogRing, type RingLevel } from './log-ring.js';
import { scrubSecrets } from './log-scrub.js';

/** Where pino writes: any object with `write(line)` (stdout, a test capture). */
export interface LineWriter {
  write(line: string): unknown;
}

/** Fields of a pino line that are its frame, not its content. */
const FRAME_FIELDS = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'part', 'module', 'program', 'v']);

function ringLevel(n: unknown): RingLevel {
  const v = typeof n === 'number' ? n : 30;
  if (v >= 50) return 'error';
  if (v >= 40) return 'warn';
  if (v >= 30) return 'info';
  return 'debug';
}

/**
 * The target of a line (docs/logs.md): `<program>::<part>` for a child logger built with
 * `{part}` (or `{module}`), `<program>::http` for a request's logger (it carries `reqId`), else
 * `<program>` alone: the words of a Rust trace target, which document 1's `target` names.
 */
export function targetOf(program: string, o: Record<string, unknown>): string {
  const part = typeof o.part === 'string' ? o.part : typeof o.module === 'string' ? o.module : null;
  if (part) return `${program}::${part}`;
  if (o.reqId !== undefined) return `${program}::http`;
  return program;
}

/**
 * The message of a line: pino's `msg`, then its other fields as compact JSON (the error, the
 * URL, the node id), so an operator reading the ring sees what stdout shows.
 */
function messageOf(o: Record<string, unknown>): string {
  const rest: Record<string, unknown> = {};
  let any = false;
  for (const [k, v] of Object.entries(o)) {
    if (FRAME_FIELDS.has(k)) continue;
    rest[k] = v;
    any = true;
  }
  const msg = typeof o.msg === 'string' ? o.msg : '';
  if (!any) return msg;
  const json = JSON.stringify(rest);
  return msg ? `${msg} ${json}` : json;
}

/**
 * A pino destination that scrubs every line (so no credential reaches stdout either), writes it
 * to `out` and captures it in `ring`. Pino has already dropped the lines below its level, which
 * is therefore the capture level.
 */
export function ringSink(ring: LogRing, out: LineWriter, program: string, now: () => number = Date.now): LineWriter {
  return {
    write(line: string) {
      const clean = scrubSecrets(line);
      out.write(clean);
      let o: Record<string, unknown> | null = null;
      try {
        o = JSON.parse(clean) as Record<string, unknown>;
      } catch {
        /* not pino's JSON: kept as text */
      }
      if (!o || typeof o !== 'object') {
        ring.capture('info', program, clean.trimEnd(), now(), true);
        return;
      }
      const ts = typeof o.time === 'number' ? o.time : now();
      // Re-encoding the parsed fields cannot bring back what was scrubbed from their text.
      ring.capture(ringLevel(o.level), targetOf(program, o), messageOf(o), ts, true);
    },
  };
}

// The ring each logger feeds: the composition root finds it from the logger it is given, so a
// caller (main.ts, a test) passes one object and the ring cannot be another logger's.
const rings = new WeakMap<Logger, LogRing>();

export function attachRing(log: Logger, ring: LogRing): void {
  rings.set(log, ring);
}

/** The ring `log` feeds; a logger built elsewhere (no sink) gets an empty ring of its own. */
export function ringOf(log: Logger): LogRing {
  let ring = rings.get(log);
  if (!ring) {
    ring = new LogRing();
    rings.set(log, ring);
  }
  return ring;
}
