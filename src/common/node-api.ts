import { Type, type Static, type TSchema } from 'typebox';
import { LogEntrySchema } from './log-schemas.js';

/**
 * The node's replies that the plane reads (document 4 §6 and §9), written once: the node's routes
 * serialise with these schemas and the plane's node client (src/plane/nodes/node-client.ts)
 * checks what it receives against them. A field added here reaches both programs; a reply the
 * node changes without changing this file fails the node's own contract test
 * (test/common/node-api.test.ts).
 */
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** How many of the node's streams are in each state. */
export const NodeStreamCounts = Type.Object({
  total: Type.Integer(),
  live: Type.Integer(),
  degraded: Type.Integer(),
  failing: Type.Integer(),
});

/** The host and process figures of `GET /api/v1/system` (document 1, "Fleet and process telemetry"). */
export const NodeTelemetry = Type.Object({
  cpus: Type.Integer(),
  proc_cpu_cores: Type.Number(),
  host_cpu_busy_pct: Type.Number(),
  mem_total_mb: Type.Integer(),
  mem_available_mb: Type.Integer(),
  rss_mb: Type.Integer(),
  stream_counts: NodeStreamCounts,
});
export type NodeTelemetry = Static<typeof NodeTelemetry>;

/**
 * Only the telemetry's own fields, in the schema's order: a node's reply may carry more, and every
 * plane process must encode the same frame to the same text. Picked by hand, not TypeBox's
 * `Clean(Clone(body))`: that walked the whole body, every node every sweep, and was 7% of the
 * sweeping process's CPU at 1,000 nodes (issue 26).
 */
export function telemetryFields(t: NodeTelemetry): NodeTelemetry {
  const c = t.stream_counts;
  return {
    cpus: t.cpus,
    proc_cpu_cores: t.proc_cpu_cores,
    host_cpu_busy_pct: t.host_cpu_busy_pct,
    mem_total_mb: t.mem_total_mb,
    mem_available_mb: t.mem_available_mb,
    rss_mb: t.rss_mb,
    stream_counts: { total: c.total, live: c.live, degraded: c.degraded, failing: c.failing },
  };
}

/** One recording storage of the node as `GET /api/v1/system` lists it. */
export const NodeStorage = Type.Object({
  name: Type.String(),
  total_bytes: Type.Integer(),
  avail_bytes: Type.Integer(),
  write_iops: Type.Number(),
  identity_healthy: Type.Boolean(),
});
export type NodeStorage = Static<typeof NodeStorage>;

/** The node's licence signal for the fleet banner; `null` in the reply: no signal. */
export const NodeLicenseSignal = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('grace'), Type.Literal('unlicensed')]),
});
export type NodeLicenseState = Static<typeof NodeLicenseSignal>['state'];

/** `GET /api/v1/system`: what the plane's sweeper reads every sweep. */
export const NodeSystemReply = Type.Object({
  version: Type.String(),
  ...NodeTelemetry.properties,
  storages: Type.Array(NodeStorage),
  license: Nullable(NodeLicenseSignal),
});

/** A stream's recording: which storage, how long. */
export const NodeDvr = Type.Object({ storage: Type.String(), retention: Type.String() });

/** A row of `GET /api/v1/streams`; `input` shows a password as *** (the node masks it). */
export const NodeStreamRow = Type.Object({
  name: Type.String(),
  input: Nullable(Type.String()),
  dvr: Nullable(NodeDvr),
  on_demand: Type.Boolean(),
  state: Type.String(),
  since_ms: Nullable(Type.Integer()),
  reason: Nullable(Type.String()),
  bitrate_kbps: Nullable(Type.Number()),
  fps: Nullable(Type.Number()),
  resolution: Nullable(Type.String()),
  codec: Nullable(Type.String()),
  video: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  last_error_ms: Nullable(Type.Integer()),
  viewers: Type.Integer(),
  recorded_bytes: Nullable(Type.Integer()),
});
export const NodeStreamsReply = Type.Object({ rows: Type.Array(NodeStreamRow) });

/** A configuration change as the node answers it (stream writes, PATCH config/globals): the epoch it made. */
export const NodeChangeReply = Type.Object({ epoch: Type.Integer(), hash: Type.String(), changed: Type.Boolean() });
export type NodeChangeReply = Static<typeof NodeChangeReply>;

/** A live viewer of `GET /api/v1/sessions`, for the plane's fleet-wide list. */
export const NodeSessionRow = Type.Object({
  id: Type.String(),
  stream: Type.String(),
  protocol: Type.String(),
  client_ip: Type.String(),
  user_agent: Type.String(),
  sub: Type.String(),
  connected_ms: Type.Integer(),
  subject_kind: Nullable(Type.String()),
  subject_name: Nullable(Type.String()),
  camera_id: Nullable(Type.String()),
  started_at_ms: Type.Integer(),
});
export type NodeSessionRow = Static<typeof NodeSessionRow>;
export const NodeSessionsReply = Type.Object({ rows: Type.Array(NodeSessionRow) });

/** `GET /api/v1/logs`: a page of the node's ring, newest first. */
export const NodeLogPage = Type.Object({
  head_seq: Type.Integer(),
  capacity: Type.Integer(),
  entries: Type.Array(LogEntrySchema),
});
export type NodeLogPage = Static<typeof NodeLogPage>;

/** `GET /api/v1/license`: `none` without a licence file; what a bad or untrusted file does not give is null. */
export const NodeLicenseReply = Type.Object({
  state: Type.Union([Type.Literal('ok'), Type.Literal('grace'), Type.Literal('unlicensed'), Type.Literal('none')]),
  licensee: Nullable(Type.String()),
  expires: Nullable(Type.String()),
  updates_until: Nullable(Type.String()),
  build_date: Type.String(),
});

/** `GET /api/v1/config`: the configuration text (it holds the node's secrets) and the epoch it is. */
export const NodeConfigReply = Type.Object({
  text: Type.String(),
  version: Type.String(),
  build: Type.Record(Type.String(), Type.Unknown()),
  epoch: Type.Integer(),
  hash: Type.String(),
});
export type NodeConfigReply = Static<typeof NodeConfigReply>;

/** One version of the node's configuration (document 3, configuration history entry). */
export const NodeHistoryEntry = Type.Object({
  epoch: Type.Integer(),
  hash: Type.String(),
  ts_ms: Type.Integer(),
  actor: Type.String(),
  via: Type.String(),
});
export const NodeHistoryReply = Type.Array(NodeHistoryEntry);
export type NodeHistoryEntry = Static<typeof NodeHistoryEntry>;

/** `POST /api/v1/config/rollback`: the new epoch, the one it replaced, whether the write token in use was carried across. */
export const NodeRollbackReply = Type.Object({
  ...NodeChangeReply.properties,
  rolled_from: Type.Integer(),
  write_token_kept: Type.Boolean(),
});

/** The video a probe found: its codec as ffmpeg names it, its size, its frame rate (null when the source declares none). */
export const NodeProbeVideo = Type.Object({
  codec: Type.String({ description: 'as ffmpeg names it: h264, hevc, mjpeg, mpeg4...' }),
  width: Type.Integer(),
  height: Type.Integer(),
  fps: Nullable(Type.Number({ description: 'frames per second the source declares; null when it declares none' })),
});

/**
 * `POST /api/v1/probe` (document 4 §12): the node opened the source once. `ok` with the video
 * (and the audio, null when there is none), or not `ok` with `error`, words for an operator
 * (never ffmpeg's text, never the URL's credentials).
 */
export const NodeProbeReply = Type.Object({
  ok: Type.Boolean({ description: 'the node opened the source and found video in it' }),
  video: Nullable(NodeProbeVideo),
  audio: Nullable(Type.Object({ codec: Type.String() })),
  error: Nullable(Type.String({ description: 'when not ok: why, in words for an operator' })),
});
export type NodeProbeReply = Static<typeof NodeProbeReply>;

/** `POST /api/v1/probe/snapshot` (issue 22, "a snapshot before saving"): one frame of the source, or why not. */
export const NodeSnapshotReply = Type.Object({
  ok: Type.Boolean({ description: 'the node read a picture from the source' }),
  image: Nullable(
    Type.String({ description: 'the picture: a JPEG at most 640 pixels wide, base64', maxLength: 8 << 20 }),
  ),
  error: Nullable(Type.String({ description: 'when not ok: why, in words for an operator' })),
});
export type NodeSnapshotReply = Static<typeof NodeSnapshotReply>;
