-- Event templates (document 2 "Event template", document 4 §5) and what intake needs to apply them.

-- org_id null = a system template (shipped here, never deleted; a superadmin may override only
-- `title` and `ignore_event`). unknown_fields: top-level keys of doc that the plane does not
-- recognise; kept and returned.
create table event_templates (
  id uuid primary key,
  org_id uuid references orgs (id) on delete cascade,
  name text not null,
  detector_match text not null,
  version integer not null default 1,
  doc jsonb not null,
  system boolean not null default false,
  enabled boolean not null default true,
  unknown_fields jsonb not null default '[]',
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check (system = (org_id is null))
);
-- names are unique per organisation ignoring case (system templates form their own namespace)
create unique index event_templates_name_key on event_templates (coalesce(org_id, '00000000-0000-0000-0000-000000000000'::uuid), lower(name));
create index event_templates_org_idx on event_templates (org_id, id);

-- Coalescing and interval time-outs (document 4 §5): a coalesced interval carries the key of its
-- template's source values and the time of its last repeat; close_by is when the plane closes an
-- open interval (events.interval_timeouts job). Nullable columns: adding them rewrites nothing.
alter table events add column coalesce_key text;
alter table events add column last_seen_at timestamptz;
alter table events add column close_by timestamptz;
create index events_coalesce_open_idx on events (org_id, coalesce_key) where coalesce_key is not null and ended_at is null;
create index events_close_by_idx on events (close_by) where close_by is not null and ended_at is null;

-- The system templates of the plane's own events (document 4 §4).
insert into event_templates (id, org_id, name, detector_match, doc, system) values
('00000000-0000-7000-8000-00000000a001', null, 'Node unreachable', 'system.node_unreachable',
 '{"detector_match":"system.node_unreachable","title":{"en":"Node unreachable"},
   "fields":[{"key":"node_name","label":"Node","source":"/node_name","type":"string"},{"key":"reason","label":"Reason","source":"/reason","type":"string"}],
   "list_fields":[{"key":"node_name","label":"Node","source":"/node_name"}],
   "detail_layout":[{"title":"Node","keys":["node_name","reason"]}],"ignore_event":false}', true),
('00000000-0000-7000-8000-00000000a002', null, 'Camera offline', 'system.camera_offline',
 '{"detector_match":"system.camera_offline","title":{"en":"Camera offline"},
   "fields":[{"key":"camera_name","label":"Camera","source":"/camera_name","type":"string"},{"key":"reason","label":"Reason","source":"/reason","type":"string"}],
   "list_fields":[{"key":"camera_name","label":"Camera","source":"/camera_name"}],
   "detail_layout":[{"title":"Camera","keys":["camera_name","reason"]}],"ignore_event":false}', true),
('00000000-0000-7000-8000-00000000a003', null, 'Evidence storage pressure', 'system.evidence_storage_pressure',
 '{"detector_match":"system.evidence_storage_pressure","title":{"en":"Evidence storage pressure"},
   "fields":[{"key":"used_percent","label":"Used","source":"/used_percent","type":"number","unit":"%"},{"key":"watermark","label":"Watermark","source":"/watermark","type":"number","unit":"%"}],
   "list_fields":[{"key":"used_percent","label":"Used","source":"/used_percent"}],
   "detail_layout":[{"title":"Storage","keys":["used_percent","watermark"]}],"ignore_event":false}', true);
