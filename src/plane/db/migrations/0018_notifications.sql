-- Notifications (issue 24; document 4 §13, docs/notifications.md): rules turn events into
-- deliveries to channels, at least once. Deliveries are an outbox: the event log writes them in
-- the transaction of the event (events/log/), workers in every plane process claim the due ones
-- with FOR UPDATE SKIP LOCKED. Names are unique per organisation ignoring case (409 already_exists).
create table notification_channels (
  id uuid primary key,
  org_id uuid not null references orgs (id) on delete cascade,
  name text not null,
  kind text not null check (kind in ('webhook', 'email', 'mqtt')),
  enabled boolean not null default true,
  -- the kind's settings without its secret (webhook url and headers, email to, mqtt url, topic, username)
  config jsonb not null,
  -- the webhook secret or the mqtt password, sealed by the plane's secret box bound to row and field
  secret_enc text,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index notification_channels_name_key on notification_channels (org_id, lower(name));

create table notification_rules (
  id uuid primary key,
  org_id uuid not null references orgs (id) on delete cascade,
  name text not null,
  enabled boolean not null default true,
  match jsonb not null,
  schedule jsonb,
  cooldown_secs integer not null default 0 check (cooldown_secs between 0 and 86400),
  channel_ids uuid[] not null,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index notification_rules_name_key on notification_rules (org_id, lower(name));
create index notification_rules_org_idx on notification_rules (org_id) where enabled;

-- The cooldown per (rule, camera): the newest occurred_at sent, and the matching events it kept
-- back (a rule's suppressed_count is their sum). camera_key is the nil uuid for camera-less events.
-- A row per key, locked by the event write that reads it, so concurrent writers see each other's sends.
-- No foreign keys to rules or channels here or in deliveries: an event write must never fail
-- because a rule or channel was deleted a moment before (the rules are cached per process); the
-- deletes remove their rows themselves (docs/notifications.md).
create table notification_cooldowns (
  rule_id uuid not null,
  camera_key uuid not null,
  last_sent_at timestamptz,
  suppressed bigint not null default 0,
  primary key (rule_id, camera_key)
);

create table notification_deliveries (
  id uuid primary key,
  -- stable across retries and plane processes: sha256 of event, rule and channel (a test message: its own id)
  dedupe_key text not null unique,
  event_id uuid,
  -- null for the message of POST /api/v1/notification-channels/{id}/test
  rule_id uuid,
  channel_id uuid not null,
  org_id uuid not null references orgs (id) on delete cascade,
  state text not null default 'pending' check (state in ('pending', 'sent', 'failed', 'dead')),
  attempts integer not null default 0,
  last_error text,
  next_attempt_at timestamptz not null,
  sent_at timestamptz,
  created_at timestamptz not null,
  -- after a failed attempt past this instant the delivery is dead (24 h after it was written or requeued)
  deadline_at timestamptz not null,
  -- what the message says, fixed when the delivery is written: the rule's name and the event's frame
  rule_name text,
  event jsonb not null
);
-- The claim: due deliveries in time order (only the ones still to send are in the index).
create index notification_deliveries_due_idx on notification_deliveries (next_attempt_at)
  where state in ('pending', 'failed');
create index notification_deliveries_org_idx on notification_deliveries (org_id, id);
create index notification_deliveries_event_idx on notification_deliveries (event_id);
create index notification_deliveries_rule_idx on notification_deliveries (rule_id, id);
create index notification_deliveries_channel_idx on notification_deliveries (channel_id, id);
