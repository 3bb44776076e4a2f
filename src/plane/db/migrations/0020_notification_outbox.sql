-- The outbox of document 4 §13, made compact (issue 24: intake with three rules must keep 90% of
-- intake without). An event write records its planned deliveries here, in its own transaction, as
-- one row for the write: the (event, rule, channel) triples as parallel arrays and each planned
-- event's frame once. The delivery workers of every plane process turn a row into its
-- notification_deliveries rows (one per triple, dedupe_key unique) and delete it in one
-- transaction, taking rows with FOR UPDATE SKIP LOCKED; a crash before that commit leaves the row
-- to be taken again, so nothing recorded is lost and nothing is written twice.
create table notification_outbox (
  id bigint generated always as identity primary key,
  org_id uuid not null references orgs (id) on delete cascade,
  -- the event write's instant: the deliveries' created_at, first due time and 24 h window start
  created_at timestamptz not null,
  event_ids uuid[] not null,
  rule_ids uuid[] not null,
  channel_ids uuid[] not null,
  -- {rule id: the rule's name} and {event id: the event's frame} as they were at the write
  rule_names jsonb not null,
  frames jsonb not null
);
