-- Analytics (issue 13, docs/analytics.md): hourly counts of events per organisation, detector,
-- category and severity, kept by the writes themselves so that a month of events is read as
-- ~720 hours x detectors instead of every row. Statement-level triggers over transition tables
-- (one upsert per statement, not per row); `shard` spreads concurrent writers of one hour over 8
-- rows so that they do not wait on each other's row lock until commit. Events never change these
-- columns after insert (closing, starring and coalescing do not), so inserts add and deletes
-- (purge, archive cleanup) subtract. The queries read the complete hours from here and the rest
-- of the range from the events.
create table event_rollups (
  org_id uuid not null,
  hour timestamptz not null,
  detector text not null,
  category text not null,
  severity smallint,
  shard smallint not null,
  n bigint not null,
  conf_sum double precision not null,
  conf_n bigint not null,
  constraint event_rollups_key unique nulls not distinct (org_id, hour, detector, category, severity, shard)
);

create or replace function argus_event_rollups_insert() returns trigger language plpgsql as $$
begin
  insert into event_rollups as r (org_id, hour, detector, category, severity, shard, n, conf_sum, conf_n)
    select org_id, date_trunc('hour', occurred_at, 'UTC'), detector, category, severity, (pg_backend_pid() % 8)::smallint,
           count(*), coalesce(sum(confidence), 0), count(confidence)
      from argus_rollup_new group by 1, 2, 3, 4, 5
  on conflict on constraint event_rollups_key do update
    set n = r.n + excluded.n, conf_sum = r.conf_sum + excluded.conf_sum, conf_n = r.conf_n + excluded.conf_n;
  return null;
end $$;

create or replace function argus_event_rollups_delete() returns trigger language plpgsql as $$
begin
  insert into event_rollups as r (org_id, hour, detector, category, severity, shard, n, conf_sum, conf_n)
    select org_id, date_trunc('hour', occurred_at, 'UTC'), detector, category, severity, (pg_backend_pid() % 8)::smallint,
           -count(*), -coalesce(sum(confidence), 0), -count(confidence)
      from argus_rollup_old group by 1, 2, 3, 4, 5
  on conflict on constraint event_rollups_key do update
    set n = r.n + excluded.n, conf_sum = r.conf_sum + excluded.conf_sum, conf_n = r.conf_n + excluded.conf_n;
  return null;
end $$;

create trigger events_rollup_insert after insert on events referencing new table as argus_rollup_new
  for each statement execute function argus_event_rollups_insert();
create trigger events_rollup_delete after delete on events referencing old table as argus_rollup_old
  for each statement execute function argus_event_rollups_delete();

-- The events written before this migration.
insert into event_rollups (org_id, hour, detector, category, severity, shard, n, conf_sum, conf_n)
  select org_id, date_trunc('hour', occurred_at, 'UTC'), detector, category, severity, 0, count(*), coalesce(sum(confidence), 0), count(confidence)
    from events group by 1, 2, 3, 4, 5;

-- Interval events by start, with what the interval measures read (duration, `active` overlap,
-- open_events) in the index itself: those queries scan the intervals only, a tenth or less of the
-- events, without reading the table.
create index events_interval_idx on events (org_id, occurred_at)
  include (ended_at, detector, category, severity, camera_id, node_id) where "interval";
