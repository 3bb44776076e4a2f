-- Audit records are append-only (issue 10, finding 8): the application's own role could
-- UPDATE, DELETE or TRUNCATE them, so a bug or an injected statement could rewrite history.
-- The one change the plane makes is closing a begun record (document 1: ended_at set, with
-- a new seq and one more extension); every other UPDATE, any DELETE and TRUNCATE are refused.
-- No path of the plane deletes audit rows: org archive cleanup and history purge keep them.
create function argus_audit_append_only() returns trigger language plpgsql as $$
begin
  if tg_op = 'UPDATE'
     and (new.id, new.occurred_at, new.org_id, new.actor_id, new.actor_name, new.actor_role, new.ip, new.user_agent,
          new.action, new.object_type, new.object_id, new.object_name, new.params, new.node_id)
         is not distinct from
         (old.id, old.occurred_at, old.org_id, old.actor_id, old.actor_name, old.actor_role, old.ip, old.user_agent,
          old.action, old.object_type, old.object_id, old.object_name, old.params, old.node_id)
     and new.extensions = old.extensions + 1 then
    return new;
  end if;
  raise exception 'audit records are append-only: % refused', tg_op using errcode = '42501';
end $$;

-- Row triggers on the partitioned table are cloned onto every partition, present and future.
create trigger audit_append_only before update or delete on audit
  for each row execute function argus_audit_append_only();
-- TRUNCATE is a statement trigger: on the parent, and on each partition (existing ones here,
-- new ones from argus_ensure_audit_partitions below).
create trigger audit_no_truncate before truncate on audit
  for each statement execute function argus_audit_append_only();
do $$
declare p regclass;
begin
  for p in select inhrelid::regclass from pg_inherits where inhparent = 'audit'::regclass loop
    execute format('create trigger audit_no_truncate before truncate on %s for each statement execute function argus_audit_append_only()', p);
  end loop;
end $$;

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
        execute format('create trigger audit_no_truncate before truncate on %I for each statement execute function argus_audit_append_only()', name);
      exception when others then
        -- rows for that month already sit in the default partition (clock jump): leave them there
        null;
      end;
    end if;
    m := (m + interval '1 month')::date;
  end loop;
end $$;
