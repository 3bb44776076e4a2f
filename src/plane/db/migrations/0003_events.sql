-- Events (document 2), module tokens (document 1), evidence attachments and intake (document 4 §4).

-- Module tokens: a credential space of their own. Only the SHA-256 of the secret is kept.
-- Names starting with `__` are reserved for the plane's own producers and never shown.
create table module_tokens (
  id uuid primary key,
  org_id uuid not null references orgs (id),
  name text not null,
  secret_sha256 bytea not null,
  rate_limit integer check (rate_limit is null or rate_limit >= 1),
  enabled boolean not null default true,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  last_used_at timestamptz
);
create unique index module_tokens_secret_key on module_tokens (secret_sha256);
create unique index module_tokens_org_name_key on module_tokens (org_id, lower(name));

-- The event stream: seq is the global stream position (cursor g:<n>), drawn from event_seq
-- inside the insert. Writers do not serialise (their commits group): a writer holds
-- pg_advisory_xact_lock_shared(EVENT_WRITERS) from before it draws numbers until commit, and
-- a reader that needs a safe resume point (every seq at or below it committed or abandoned)
-- takes the same lock exclusively for an instant and reads event_seq. purge_day is the day
-- cut-off of the `d<purge-day>:<n>` cursor form (null until a purge sets it).
create sequence event_seq;
create table event_stream (
  singleton boolean primary key default true check (singleton),
  purge_day date
);
insert into event_stream (singleton) values (true);

-- Events, partitioned by day of occurred_at. id is a UUIDv7 whose time is occurred_at
-- (millisecond precision; occurred_at is stored truncated to the millisecond), so a card read
-- derives the partition and the primary key from the id alone.
create table events (
  id uuid not null,
  occurred_at timestamptz not null,
  seq bigint not null,
  org_id uuid not null,
  camera_id uuid,
  node_id uuid,
  token_id uuid,
  category text not null default 'camera' check (category in ('camera', 'system')),
  detector text not null,
  detector_title jsonb,
  severity smallint check (severity between 0 and 4),
  confidence double precision,
  "interval" boolean not null default false,
  ended_at timestamptz,
  template_id uuid,
  subject_type text,
  subject_ref text,
  ext_id text,
  list_values jsonb not null default '[]',
  -- typed values of the template's search and analytics fields, extracted at intake
  fields jsonb not null default '{}',
  payload jsonb not null default '{}',
  attachments jsonb not null default '[]',
  starred boolean not null default false,
  -- Written at intake: to_tsvector('simple', free text) || array_to_tsvector(field tokens
  -- `key:value`), so free words and field:value searches use one GIN index.
  search tsvector not null default ''::tsvector,
  check (ended_at is null or "interval"),
  primary key (occurred_at, id)
) partition by range (occurred_at);
create index events_org_order_idx on events (org_id, occurred_at desc, id desc);
create index events_camera_order_idx on events (camera_id, occurred_at desc, id desc) where camera_id is not null;
create index events_detector_idx on events (org_id, detector text_pattern_ops, occurred_at desc);
create index events_seq_idx on events (seq);
create index events_open_idx on events (org_id, token_id, detector) where "interval" and ended_at is null;
create index events_starred_idx on events (org_id, occurred_at desc, id desc) where starred;
create index events_search_idx on events using gin (search);
create table events_default partition of events default;

-- Idempotency of module uploads: one (token, ext_id) names one event for ever. Kept outside the
-- partitioned table because a unique key there would have to include occurred_at.
create table event_ext_ids (
  token_id uuid not null,
  ext_id text not null,
  event_id uuid not null,
  occurred_at timestamptz not null,
  primary key (token_id, ext_id)
);
create index event_ext_ids_event_idx on event_ext_ids (occurred_at, event_id);

-- Evidence attachments: metadata here, bytes in the evidence storage under storage_key.
-- ref is a UUIDv7 of the upload time. camera_id/event_id are set when the first event
-- references the attachment; camera rights of downloads follow camera_id.
create table attachments (
  ref uuid primary key,
  org_id uuid not null references orgs (id),
  token_id uuid,
  backend text not null,
  storage_key text not null,
  content_type text not null,
  size bigint not null check (size >= 0),
  sha256 bytea not null,
  camera_id uuid,
  event_id uuid,
  event_occurred_at timestamptz,
  created_at timestamptz not null default now()
);
create index attachments_org_idx on attachments (org_id, ref);
create index attachments_event_idx on attachments (event_id) where event_id is not null;

-- Evidence accounting per organisation (quota attachment_quota_bytes; usage figures).
create table org_evidence_usage (
  org_id uuid primary key references orgs (id) on delete cascade,
  bytes bigint not null default 0,
  attachments bigint not null default 0
);

-- Creates the daily partitions that cover [from, to); called at start and by the
-- events.partitions job so that rows do not land in the default partition in normal operation.
create or replace function argus_ensure_event_partitions(from_ts timestamptz, to_ts timestamptz)
returns integer language plpgsql as $$
declare
  d date := (from_ts at time zone 'UTC')::date;
  name text;
  made integer := 0;
begin
  while (d::timestamp at time zone 'UTC') < to_ts loop
    name := 'events_' || to_char(d, 'YYYYMMDD');
    if to_regclass(name) is null then
      begin
        execute format('create table %I partition of events for values from (%L) to (%L)',
          name, (d::timestamp at time zone 'UTC'), ((d + 1)::timestamp at time zone 'UTC'));
        made := made + 1;
      exception when others then
        -- rows for that day already sit in the default partition: leave them there
        null;
      end;
    end if;
    d := d + 1;
  end loop;
  return made;
end $$;
