-- Saved reports, dashboards and widgets (issue 13; document 2 "Dashboards and widgets", document 4
-- §3 and §11). Names are unique per organisation ignoring case (409 already_exists). A widget
-- refers to a saved report or carries an inline definition; a report a widget uses cannot be
-- deleted (409 still_referenced). Counted for max_reports / max_dashboards (docs/usage.md).
create table analytics_reports (
  id uuid primary key,
  org_id uuid not null references orgs (id) on delete cascade,
  name text not null,
  definition jsonb not null,
  visibility text not null check (visibility in ('org', 'users', 'admins')),
  audience_user_ids uuid[] not null default '{}',
  created_by uuid,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index analytics_reports_name_key on analytics_reports (org_id, lower(name));

create table analytics_dashboards (
  id uuid primary key,
  org_id uuid not null references orgs (id) on delete cascade,
  name text not null,
  description text not null default '',
  timezone text not null default 'UTC',
  default_period text not null default 'today',
  live_enabled boolean not null default true,
  visibility text not null check (visibility in ('org', 'users', 'admins')),
  audience_user_ids uuid[] not null default '{}',
  created_by uuid,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create unique index analytics_dashboards_name_key on analytics_dashboards (org_id, lower(name));

create table analytics_widgets (
  id uuid primary key,
  dashboard_id uuid not null references analytics_dashboards (id) on delete cascade,
  report_id uuid references analytics_reports (id),
  inline_definition jsonb,
  title text not null,
  visualization text not null,
  options jsonb not null default '{}',
  layout jsonb not null default '{}',
  position integer not null default 0,
  revision integer not null default 1,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  check ((report_id is null) <> (inline_definition is null))
);
create index analytics_widgets_dashboard_idx on analytics_widgets (dashboard_id, position, id);
create index analytics_widgets_report_idx on analytics_widgets (report_id) where report_id is not null;

select argus_attach_usage_counter('analytics_reports', 'reports');
select argus_attach_usage_counter('analytics_dashboards', 'dashboards');
