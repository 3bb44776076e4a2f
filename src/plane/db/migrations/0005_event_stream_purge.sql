-- Live event stream and purge of history (document 2, "Live stream", "Purge of history").

-- A row whose stream position moved because it changed (star, close) rather than being created:
-- a listener that reads the row from the table (its notice carried no frame) sends it as an
-- `updated` frame.
alter table events add column changed boolean not null default false;

-- Tombstones of purged events: the `deleted` frame at its own stream position, so that a ring
-- catching up from the table (start, reconnect, a gap) replays removals too, and so that a
-- request for a purged event answers 410 archived_data_expired instead of 404.
create table event_tombstones (
  seq bigint primary key,
  id uuid not null,
  occurred_at timestamptz not null,
  org_id uuid not null,
  camera_id uuid,
  frame jsonb not null,
  deleted_at timestamptz not null
);
create index event_tombstones_key_idx on event_tombstones (occurred_at, id);

-- Attachments removed with their events (410 on a later download instead of 404).
create table purged_attachments (
  ref uuid primary key,
  org_id uuid not null,
  camera_id uuid,
  purged_at timestamptz not null
);

-- Cleanup jobs (document 2, "Cleanup job"): `spec` is the normalised selection with its as_of;
-- the background run deletes in batches and counts what it removed.
create table cleanup_jobs (
  id uuid primary key,
  kind text not null check (kind in ('events', 'archive')),
  org_id uuid,
  state text not null check (state in ('queued', 'finished')),
  spec jsonb not null,
  preview jsonb not null,
  deleted_events bigint not null default 0,
  deleted_attachments bigint not null default 0,
  created_by uuid,
  created_at timestamptz not null,
  finished_at timestamptz,
  last_error text
);
create index cleanup_jobs_queued_idx on cleanup_jobs (created_at) where state = 'queued';
