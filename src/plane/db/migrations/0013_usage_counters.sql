-- Prepared usage counters (document 1 "Quota usage", document 4 §9): GET /api/v1/usage reads
-- these rows and never counts the resource tables per request. The writes keep them: one
-- statement-level trigger per table and operation, over its transition tables, adds one delta
-- per organisation and statement (an intake batch of 100 events is one counter update, not 100).
-- An organisation has up to 16 rows (`shard` = the writing connection's backend pid modulo 16),
-- so concurrent writers of one organisation (event intake) do not queue on one row; a read sums
-- them. docs/usage.md tells how a new table (dashboards, reports) attaches its counter.
-- No foreign key to orgs: its check would take a key-share lock on the organisation row, which a
-- quota check holds FOR UPDATE, and a writer that created a shard row and then waited for that
-- lock could deadlock with a create waiting for the shard row. The rows go with the organisation
-- row through the trigger below instead.
create table org_usage_counters (
  org_id uuid not null,
  shard smallint not null,
  cameras bigint not null default 0,
  users bigint not null default 0,
  tags bigint not null default 0,
  event_templates bigint not null default 0,
  dashboards bigint not null default 0,
  reports bigint not null default 0,
  events bigint not null default 0,
  sessions bigint not null default 0,
  primary key (org_id, shard)
);

create or replace function argus_usage_forget_org() returns trigger language plpgsql as $$
begin
  delete from org_usage_counters where org_id = old.id;
  return null;
end $$;
create trigger usage_forget_org after delete on orgs for each row execute function argus_usage_forget_org();

-- Attaches a counter to a table that has an org_id column: per operation (insert, delete; update
-- too when a predicate is given, as a row may then start or stop counting) a trigger function of
-- its own with static SQL, whose plan each connection caches (a dynamic EXECUTE is planned on
-- every statement: that cost the intake 10 percent), and a first count of the rows already there.
-- `pred` is what a row must meet to count (a session: unrevoked, its expiry not yet swept).
-- Rows of an organisation being deleted (deleted_at set: its archive cleanup removes them) or of
-- none (global templates) leave the counters alone; an organisation's counter rows go with its row.
-- Issue 13: `select argus_attach_usage_counter('dashboards', 'dashboards');` in its migration.
create or replace function argus_attach_usage_counter(tbl regclass, col text, pred text default null)
returns void language plpgsql as $attach$
declare
  p text := coalesce(pred, 'true');
  op text;
  src text;
  fn text;
  refs text;
begin
  foreach op in array case when pred is null then array['insert', 'delete'] else array['insert', 'delete', 'update'] end loop
    src := case op
      when 'insert' then format('select org_id, 1 as n from argus_usage_new where %s', p)
      when 'delete' then format('select org_id, -1 as n from argus_usage_old where %s', p)
      else format('select org_id, 1 as n from argus_usage_new where %1$s union all select org_id, -1 as n from argus_usage_old where %1$s', p)
    end;
    refs := case op
      when 'insert' then 'new table as argus_usage_new'
      when 'delete' then 'old table as argus_usage_old'
      else 'old table as argus_usage_old new table as argus_usage_new'
    end;
    fn := format('argus_usage_%s_%s', col, op);
    execute format($f$create or replace function %1$I() returns trigger language plpgsql as $body$
      begin
        insert into org_usage_counters as c (org_id, shard, %2$I)
          select d.org_id, (pg_backend_pid() %% 16)::smallint, sum(d.n) from (%3$s) d
           where exists (select 1 from orgs o where o.id = d.org_id and o.deleted_at is null)
           group by d.org_id having sum(d.n) <> 0
        on conflict (org_id, shard) do update set %2$I = c.%2$I + excluded.%2$I;
        return null;
      end $body$$f$, fn, col, src);
    execute format('create trigger %I after %s on %s referencing %s for each statement execute function %I()',
      'usage_' || col || '_' || op, op, tbl, refs, fn);
  end loop;
  execute format(
    'insert into org_usage_counters as c (org_id, shard, %1$I)
       select t.org_id, 0, count(*) from %2$s t join orgs o on o.id = t.org_id and o.deleted_at is null
        where %3$s group by t.org_id
     on conflict (org_id, shard) do update set %1$I = c.%1$I + excluded.%1$I', col, tbl, p);
end $attach$;

-- sessions_count is "the live count of unrevoked, unexpired sessions". Expiry is not a write, so
-- the counter holds unrevoked sessions whose expiry has not been swept yet; the job
-- usage.session_expiry sets expired_swept on expired ones (the update trigger takes them off),
-- and a read subtracts the few expired-but-not-yet-swept sessions of its organisation (index below).
alter table sessions add column expired_swept boolean not null default false;
create index sessions_unswept_idx on sessions (org_id, expires_at) where revoked_at is null and not expired_swept;
create index sessions_expiry_sweep_idx on sessions (expires_at) where revoked_at is null and not expired_swept;

select argus_attach_usage_counter('cameras', 'cameras');
-- A user may move to another organisation (PATCH org_id): the update trigger moves its count.
select argus_attach_usage_counter('users', 'users', 'true');
select argus_attach_usage_counter('tags', 'tags');
select argus_attach_usage_counter('event_templates', 'event_templates');
select argus_attach_usage_counter('events', 'events');
select argus_attach_usage_counter('sessions', 'sessions', 'revoked_at is null and not expired_swept');
