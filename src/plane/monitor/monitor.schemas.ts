import { Type } from 'typebox';

const Int = Type.Integer();

/** Document 1, "Fleet summary". */
export const FleetSummaryBody = Type.Object({
  seq: Int,
  sampled_at: Type.String({ format: 'date-time' }),
  nodes_total: Int,
  nodes_reachable: Int,
  stream_samples_stale: Int,
  streams_total: Int,
  streams_live: Int,
  streams_degraded: Int,
  streams_failing: Int,
  cameras_total: Int,
  cameras_live: Int,
  cameras_unavailable: Int,
  cameras_degraded: Int,
  cameras_failing: Int,
  nodes_unlicensed: Int,
  nodes_grace: Int,
});

/** Document 1, "Control-plane process sample". */
export const ProcessSampleBody = Type.Object({
  seq: Int,
  sampled_at_ms: Int,
  uptime_s: Int,
  rss_mb: Int,
  proc_cpu_cores: Type.Number(),
  cpus: Int,
  host_cpu_busy_pct: Type.Number(),
  mem_total_mb: Int,
  mem_available_mb: Int,
  open_fds: Int,
  db_pool_max: Int,
  db_pool_size: Int,
  db_pool_idle: Int,
  db_pool_in_use: Int,
  // Only with [database] read_url (document 4, section 15): the largest replica lag, replicas in use.
  db_replica_lag_secs: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
  db_replicas_used: Type.Optional(Int),
});

export const PlaneEnvelope = Type.Object({
  cadence_secs: Type.Literal(2),
  retention_points: Type.Literal(900),
  samples: Type.Array(ProcessSampleBody),
});

/** The other streams resume only by header: their query takes nothing (and ignores what it is given). */
export const PlaneStreamQuery = Type.Object({ last_event_id: Type.Optional(Type.String({ maxLength: 64 })) });
