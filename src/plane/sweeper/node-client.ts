import { exchange, NodeExchangeFailure } from '../nodes/node-call.js';
import type { LicenseState, StorageTelemetry, SystemTelemetry } from './sweep-report.js';

/**
 * What the sweeper reads of a node (document 4 §6): `GET /api/v1/system` and `GET /api/v1/streams`
 * with the node's write token, both under one time-out. The token travels only in the
 * Authorization header; no failure text carries it (reasons are fixed words).
 */
export interface NodeSystem {
  version: string;
  // Optional: a result built by hand (tests, older nodes) may carry only the version.
  telemetry?: SystemTelemetry | null;
  storages?: StorageTelemetry[] | null;
  license?: LicenseState | null;
}
/** A row of the node's stream list; `input` may show a password as *** (the node masks it). */
export interface NodeStream {
  name: string;
  state: string;
  input?: string | null;
  dvr?: { storage: string; retention: string } | null;
  on_demand?: boolean;
}

export type PollResult =
  | { reachable: true; system: NodeSystem; streams: NodeStream[] | null; errors?: string[] }
  | { reachable: false; reason: string; errors?: string[] };

/**
 * Why a read failed. `message`: the reason the node_unreachable event carries (`timeout`,
 * `connection_failed`, `http_<status>`, `bad_reply`); `word`: the short word of the sweep
 * report (document 4 §9: `timeout`, `refused`, `http <status>`, `bad_body`).
 */
class PollFailure extends Error {
  constructor(
    message: string,
    readonly word: string,
    opts?: ErrorOptions,
  ) {
    super(message, opts);
  }
}

/** A reply larger than this is not a node's system body or stream list (bad_body). */
const MAX_BODY = 8 << 20;

/** One GET of a node's JSON (nodes/node-call.ts `exchange`): anything but a 200 with JSON is a PollFailure. */
async function getJson(url: string, token: string, signal: AbortSignal): Promise<unknown> {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new PollFailure('connection_failed', 'refused');
  }
  let res: { status: number; body: Buffer };
  try {
    res = await exchange(u, token, { signal, maxBytes: MAX_BODY });
  } catch (err) {
    if (err instanceof NodeExchangeFailure && err.kind === 'too_large') throw new PollFailure('bad_reply', 'bad_body');
    throw signal.aborted
      ? new PollFailure('timeout', 'timeout', { cause: err })
      : new PollFailure('connection_failed', 'refused', { cause: err });
  }
  if (res.status !== 200) throw new PollFailure(`http_${res.status}`, `http ${res.status}`);
  try {
    return JSON.parse(res.body.toString('utf8'));
  } catch {
    throw new PollFailure('bad_reply', 'bad_body');
  }
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const obj = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function telemetryOf(b: Record<string, unknown>): SystemTelemetry | null {
  const c = b.stream_counts;
  if (
    !num(b.cpus) ||
    !num(b.proc_cpu_cores) ||
    !num(b.host_cpu_busy_pct) ||
    !num(b.mem_total_mb) ||
    !num(b.mem_available_mb) ||
    !num(b.rss_mb)
  )
    return null;
  if (!obj(c) || !num(c.total) || !num(c.live) || !num(c.degraded) || !num(c.failing)) return null;
  return {
    cpus: b.cpus,
    proc_cpu_cores: b.proc_cpu_cores,
    host_cpu_busy_pct: b.host_cpu_busy_pct,
    mem_total_mb: b.mem_total_mb,
    mem_available_mb: b.mem_available_mb,
    rss_mb: b.rss_mb,
    stream_counts: { total: c.total, live: c.live, degraded: c.degraded, failing: c.failing },
  };
}

function storagesOf(v: unknown): StorageTelemetry[] | null {
  if (!Array.isArray(v)) return null;
  const out: StorageTelemetry[] = [];
  for (const s of v.slice(0, 64)) {
    if (
      !obj(s) ||
      typeof s.name !== 'string' ||
      !num(s.total_bytes) ||
      !num(s.avail_bytes) ||
      !num(s.write_iops) ||
      typeof s.identity_healthy !== 'boolean'
    )
      return null;
    out.push({
      name: s.name.slice(0, 64),
      total_bytes: s.total_bytes,
      avail_bytes: s.avail_bytes,
      write_iops: s.write_iops,
      identity_healthy: s.identity_healthy,
    });
  }
  return out;
}

function licenseOf(v: unknown): LicenseState | null {
  const s = obj(v) ? v.state : null;
  return s === 'ok' || s === 'grace' || s === 'unlicensed' ? s : null;
}

/** The whole system body; only `version` is required for the node to count as reachable. */
export function systemOf(body: unknown): NodeSystem {
  if (!obj(body) || typeof body.version !== 'string') throw new PollFailure('bad_reply', 'bad_body');
  return {
    version: body.version.slice(0, 128),
    telemetry: telemetryOf(body),
    storages: storagesOf(body.storages),
    license: licenseOf(body.license),
  };
}

function streamsOf(body: unknown): NodeStream[] {
  const rows = obj(body) ? body.rows : null;
  if (!Array.isArray(rows)) throw new PollFailure('bad_reply', 'bad_body');
  return rows.flatMap((r) => {
    if (!obj(r) || typeof r.name !== 'string' || typeof r.state !== 'string') return [];
    const dvr =
      obj(r.dvr) && typeof r.dvr.storage === 'string' && typeof r.dvr.retention === 'string'
        ? { storage: r.dvr.storage, retention: r.dvr.retention }
        : null;
    return [
      {
        name: r.name,
        state: r.state,
        input: typeof r.input === 'string' ? r.input : null,
        dvr,
        on_demand: r.on_demand === true,
      },
    ];
  });
}

const wordOf = (err: unknown) => (err instanceof PollFailure ? err.word : 'bad_body');

/**
 * Polls one node. The node is reachable when `/api/v1/system` answers 200 with a system body in
 * time; `streams` is null when the stream list failed on a node that is otherwise reachable
 * (its cameras are then left as they were). `errors`: the short words of what failed.
 */
export async function pollNode(baseUrl: string, token: string, timeoutMs: number): Promise<PollResult> {
  const ctl = new AbortController();
  const timer = setTimeout(() => ctl.abort(), timeoutMs);
  try {
    const [system, streams] = await Promise.allSettled([
      getJson(`${baseUrl}/api/v1/system`, token, ctl.signal).then(systemOf),
      getJson(`${baseUrl}/api/v1/streams`, token, ctl.signal).then(streamsOf),
    ]);
    if (system.status === 'rejected') {
      const err = system.reason;
      return {
        reachable: false,
        reason: err instanceof PollFailure ? err.message : 'bad_reply',
        errors: [wordOf(err)],
      };
    }
    const errors = streams.status === 'rejected' ? [wordOf(streams.reason)] : [];
    return {
      reachable: true,
      system: system.value,
      streams: streams.status === 'fulfilled' ? streams.value : null,
      errors,
    };
  } finally {
    clearTimeout(timer);
  }
}
