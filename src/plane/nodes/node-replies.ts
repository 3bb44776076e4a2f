import { Type, type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import {
  NodeDvr,
  NodeLicenseReply,
  NodeLicenseSignal,
  NodeSessionRow,
  NodeStorage,
  NodeStreamRow,
  NodeSystemReply,
  NodeTelemetry,
  telemetryFields,
  type NodeLicenseState,
} from '../../common/node-api.js';

/**
 * How the plane reads a node's replies, against the schemas the node serialises with
 * (src/common/node-api.ts). Each reply has the part without which it is no reply at all (a
 * system body's version, a list's rows): without it the call fails as `bad_reply`. Past that the
 * plane reads what is well formed and leaves the rest: a node of another version, whose
 * telemetry or a stream row differs, is still reachable and its cameras still counted.
 */

/** What the plane takes of `GET /api/v1/system`; only `version` is required for the node to count as reachable. */
export interface NodeSystem {
  version: string;
  // Optional: a result built by hand (tests) may carry only the version.
  telemetry?: NodeTelemetry | null;
  storages?: NodeStorage[] | null;
  license?: NodeLicenseState | null;
}

/** What the plane takes of a row of `GET /api/v1/streams`; `input` may show a password as *** (the node masks it). */
export interface NodeStream {
  name: string;
  state: string;
  input?: string | null;
  dvr?: Static<typeof NodeDvr> | null;
  on_demand?: boolean;
  /** The ingest's figures (frames per second, kbit/s, "1920x1080", "h264"), null when the node has none. */
  fps?: number | null;
  bitrate_kbps?: number | null;
  resolution?: string | null;
  codec?: string | null;
}

/** `GET /api/v1/license` as the plane answers it: a field the node leaves out is null. */
export interface NodeLicense {
  state: string;
  licensee: string | null;
  expires: string | null;
  updates_until: string | null;
  build_date: string | null;
}

// Compiled once: the sweeper reads every node's system and streams every few seconds.
const SystemHead = Compile(Type.Object({ version: NodeSystemReply.properties.version }));
const Telemetry = Compile(NodeTelemetry);
const Storage = Compile(NodeStorage);
const LicenseSignal = Compile(NodeLicenseSignal);
const Rows = Compile(Type.Object({ rows: Type.Array(Type.Unknown()) }));
const StreamKey = Compile(Type.Object({ name: NodeStreamRow.properties.name, state: NodeStreamRow.properties.state }));
const Dvr = Compile(NodeDvr);
const SessionRow = Compile(NodeSessionRow);
const LicenseHead = Compile(Type.Object({ state: Type.String() }));

/** At most this many storages of one node are kept; their names at most 64 characters, the version 128. */
const MAX_STORAGES = 64;

function storagesOf(v: unknown): NodeStorage[] | null {
  if (!Array.isArray(v)) return null;
  const out: NodeStorage[] = [];
  for (const s of v.slice(0, MAX_STORAGES)) {
    if (!Storage.Check(s)) return null;
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

/** The system body, or null when it has no version (not a node's). */
export function systemOf(body: unknown): NodeSystem | null {
  if (!SystemHead.Check(body)) return null;
  const b = body as Record<string, unknown>;
  return {
    version: body.version.slice(0, 128),
    telemetry: Telemetry.Check(b) ? telemetryFields(b) : null,
    storages: storagesOf(b.storages),
    license: LicenseSignal.Check(b.license) ? b.license.state : null,
  };
}

/** A figure the node reports: a finite number at or above 0, else null (a bad value is not shown). */
const figure = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null);
const shortText = (v: unknown): string | null => (typeof v === 'string' ? v.slice(0, 32) : null);

/** The stream rows, or null when the body has no rows; a row without a name or state is left out. */
export function streamsOf(body: unknown): NodeStream[] | null {
  if (!Rows.Check(body)) return null;
  return body.rows.flatMap((r) => {
    if (!StreamKey.Check(r)) return [];
    const row = r as Record<string, unknown> & { name: string; state: string };
    const dvr = Dvr.Check(row.dvr) ? { storage: row.dvr.storage, retention: row.dvr.retention } : null;
    return [
      {
        name: row.name,
        state: row.state,
        input: typeof row.input === 'string' ? row.input : null,
        dvr,
        on_demand: row.on_demand === true,
        fps: figure(row.fps),
        bitrate_kbps: figure(row.bitrate_kbps),
        resolution: shortText(row.resolution),
        codec: shortText(row.codec),
      },
    ];
  });
}

const SAFE = (n: number) => Number.isSafeInteger(n);

/**
 * The viewer rows, or null when the body has no rows. A row that is not a session row as the node
 * writes it (the nullable fields may also be absent), or whose id passes 128 characters or any
 * other text 1024, is left out.
 */
export function sessionsOf(body: unknown): NodeSessionRow[] | null {
  if (!Rows.Check(body)) return null;
  return body.rows.flatMap((r) => {
    if (r === null || typeof r !== 'object' || Array.isArray(r)) return [];
    const o = r as Record<string, unknown>;
    const row = {
      ...o,
      subject_kind: o.subject_kind ?? null,
      subject_name: o.subject_name ?? null,
      camera_id: o.camera_id ?? null,
    };
    if (!SessionRow.Check(row)) return [];
    const texts = [
      row.stream,
      row.protocol,
      row.client_ip,
      row.user_agent,
      row.sub,
      row.subject_kind,
      row.subject_name,
      row.camera_id,
    ];
    if (row.id.length > 128 || texts.some((t) => t !== null && t.length > 1024)) return [];
    if (!SAFE(row.connected_ms) || !SAFE(row.started_at_ms)) return [];
    return [row];
  });
}

/** The licence reply, or null without a state; the node's other fields where they are text. */
export function licenseOf(body: unknown): NodeLicense | null {
  if (!LicenseHead.Check(body)) return null;
  const b = body as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  const fields: Array<keyof typeof NodeLicenseReply.properties> = [
    'licensee',
    'expires',
    'updates_until',
    'build_date',
  ];
  return { state: body.state, ...Object.fromEntries(fields.map((f) => [f, text(b[f])])) } as NodeLicense;
}
