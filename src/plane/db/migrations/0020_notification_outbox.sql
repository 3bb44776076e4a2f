-- The outbox of document 4 §13, made compact (issue 24: intake with three rules must keep 90% of
-- intake without). An event write records its planned deliveries here in its own transaction
-- (on intake's one-statement path, in its very statement) as one row for the write: the
-- (rule, channel) pairs once, the planned events, and for each event the set of pairs it goes
-- to. The delivery workers of every plane process turn a row into its notification_deliveries
-- rows (one per event and pair, dedupe_key unique) and delete it in one transaction, taking rows
-- with FOR UPDATE SKIP LOCKED; a crash before that commit leaves the row to be taken again, so
-- nothing recorded is lost and nothing is written twice. The events' frames are read from the
-- event log then (an event id carries its partition), not copied here.
create table notification_outbox (
  id bigint generated always as identity primary key,
  -- No foreign key, as on events: each write's key check would lock the organisation's row, and
  -- concurrent writers of one organisation would queue on it. A plan of a deleted organisation
  -- expands to nothing (its rules went with it) and is deleted as it is taken.
  org_id uuid not null,
  -- the event write's instant: the deliveries' created_at, first due time and 24 h window start
  created_at timestamptz not null,
  -- [[rule id, channel id, rule name], ...]
  pairs jsonb not null,
  -- [[pair index, ...], ...]: the distinct sets of pairs the events go to
  sets jsonb not null,
  event_ids uuid[] not null,
  -- event_sets[n]: the index in sets of the pairs event_ids[n] goes to
  event_sets smallint[] not null
);
-- A plan is written once and read once: the ids are not compressible (uuids), so no compression is
-- tried, and a plan stays in its row up to a page (a write of up to ~500 planned events).
alter table notification_outbox alter column event_ids set storage external;
alter table notification_outbox alter column event_sets set storage external;
alter table notification_outbox set (toast_tuple_target = 8160);
