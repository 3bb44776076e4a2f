-- Foundation: organisations, users, sessions, signing keys, inventory, camera rights, audit.

create table orgs (
  id uuid primary key,
  name text not null,
  max_cameras integer,
  max_users integer,
  attachment_quota_bytes bigint,
  max_sessions_per_user integer,
  max_dashboards integer,
  max_reports integer,
  max_tags integer,
  max_event_templates integer,
  max_agents integer,
  max_agent_devices integer,
  max_agent_access_rules integer,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index orgs_name_key on orgs (lower(name));

create table users (
  id uuid primary key,
  org_id uuid not null references orgs (id),
  login text not null,
  name text not null,
  role text not null check (role in ('superadmin', 'admin', 'user')),
  password_hash text not null,
  disabled boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index users_login_key on users (lower(login));
create index users_org_idx on users (org_id, id);

-- The signing key in force. kid = material_id || '.' || epoch: an epoch change makes a new kid
-- over the same material, a material change makes both new. Only the current kid verifies.
create table signing_keys (
  singleton boolean primary key default true check (singleton),
  material_id text not null,
  epoch integer not null,
  secret bytea not null,
  rotated_at timestamptz not null default now()
);

create table sessions (
  id uuid primary key,
  user_id uuid not null references users (id) on delete cascade,
  org_id uuid not null,
  kid text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  ip text not null default '',
  user_agent text not null default ''
);
create index sessions_user_idx on sessions (user_id) where revoked_at is null;
create index sessions_org_live_idx on sessions (org_id, expires_at) where revoked_at is null;

create table tags (
  id uuid primary key,
  org_id uuid not null references orgs (id),
  name text not null,
  created_at timestamptz not null default now()
);
create unique index tags_org_name_key on tags (org_id, lower(name));

create table nodes (
  id uuid primary key,
  name text not null,
  url text not null,
  api_token_enc text not null,
  auth_backend_secret_enc text,
  enabled boolean not null default true,
  state text not null default 'unknown',
  last_seen_at timestamptz,
  version text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index nodes_name_key on nodes (lower(name));

create table cameras (
  id uuid primary key,
  org_id uuid not null references orgs (id),
  node_id uuid not null references nodes (id),
  name text not null,
  main_source text not null,
  sub_source text,
  status text not null default 'unavailable' check (status in ('live', 'unavailable', 'degraded', 'failing')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index cameras_org_idx on cameras (org_id, id);
create index cameras_node_idx on cameras (node_id);

create table camera_tags (
  camera_id uuid not null references cameras (id) on delete cascade,
  tag_id uuid not null references tags (id) on delete cascade,
  primary key (camera_id, tag_id)
);
create index camera_tags_tag_idx on camera_tags (tag_id);

create table user_camera_grants (
  user_id uuid not null references users (id) on delete cascade,
  camera_id uuid not null references cameras (id) on delete cascade,
  primary key (user_id, camera_id)
);
create table user_tag_grants (
  user_id uuid not null references users (id) on delete cascade,
  tag_id uuid not null references tags (id) on delete cascade,
  primary key (user_id, tag_id)
);

-- Audit: partitioned by month of occurred_at; id is a UUIDv7. seq is the global stream
-- position (g:<seq>); it is taken under an advisory lock at the end of the writing
-- transaction so that seq order is commit order and a resumed stream never skips a record.
create sequence audit_seq;
create table audit (
  id uuid not null,
  seq bigint not null,
  occurred_at timestamptz not null,
  ended_at timestamptz,
  org_id uuid,
  actor_id uuid,
  actor_name text not null default '',
  actor_role text not null default '',
  ip text not null default '',
  user_agent text not null default '',
  action text not null,
  object_type text not null default '',
  object_id uuid,
  object_name text not null default '',
  params jsonb not null default '{}',
  node_id uuid,
  extensions smallint not null default 0,
  search tsvector generated always as (
    to_tsvector('simple', action || ' ' || object_type || ' ' || object_name || ' ' || actor_name || ' ' || ip || ' ' || params::text)
  ) stored,
  primary key (occurred_at, id)
) partition by range (occurred_at);
create index audit_org_order_idx on audit (org_id, occurred_at desc, id desc);
create index audit_seq_idx on audit (seq);
create index audit_actor_idx on audit (actor_id, occurred_at desc);
create index audit_action_idx on audit (action, occurred_at desc);
create index audit_object_idx on audit (object_id, occurred_at desc);
create index audit_node_idx on audit (node_id, occurred_at desc);
create index audit_search_idx on audit using gin (search);
create table audit_default partition of audit default;

-- Creates the monthly partitions that cover [from, to); called at start and by the
-- partition job so that rows never land in the default partition in normal operation.
create or replace function argus_ensure_audit_partitions(from_ts timestamptz, to_ts timestamptz)
returns void language plpgsql as $$
declare
  m date := date_trunc('month', from_ts at time zone 'UTC')::date;
  name text;
begin
  while m < to_ts loop
    name := 'audit_' || to_char(m, 'YYYY_MM');
    if to_regclass(name) is null then
      begin
        execute format('create table %I partition of audit for values from (%L) to (%L)',
          name, (m::timestamp at time zone 'UTC'), ((m + interval '1 month')::timestamp at time zone 'UTC'));
      exception when others then
        -- rows for that month already sit in the default partition (clock jump): leave them there
        null;
      end;
    end if;
    m := (m + interval '1 month')::date;
  end loop;
end $$;
