-- The sweeper (document 4 §6) and the plane's own system events (document 4 §4).
-- The state each system interval follows lives in the database, so several plane processes on
-- one database agree on it: a transition is a conditional UPDATE ... RETURNING, and only the
-- process whose UPDATE returned the row writes (or closes) the event.

-- nodes.state: unknown (never polled), reachable, unreachable, disabled (no longer polled).
-- unreachable_since: start of the open system.node_unreachable interval (its occurred_at);
-- polled_at: the sweep that claimed the node last, so that processes share the polling.
alter table nodes add column unreachable_since timestamptz;
alter table nodes add column polled_at timestamptz;

-- offline_since: start of the open system.camera_offline interval of the camera.
alter table cameras add column offline_since timestamptz;

-- The watermark level of the evidence storage last seen: 0 below low, 1 low, 2 high, 3 critical.
-- One row; an upward move writes one system.evidence_storage_pressure event per watermark crossed.
create table evidence_pressure (
  id integer primary key check (id = 1),
  level integer not null default 0 check (level between 0 and 3),
  used_percent double precision,
  measured_at timestamptz
);
insert into evidence_pressure (id) values (1);
