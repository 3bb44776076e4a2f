-- Each audit record keeps its API rendering (the JSON object of GET /api/v1/audit rows) as a
-- stored column: a 100-row page is then one string_agg over the rows instead of 100 calls of
-- row_to_json and to_char, which cost the server about 1.5 ms per page (measured on 1M rows).
-- Being a generated column, the rendering is refreshed by the database when a record is closed.
--
-- Declared immutable so that a generated column may use it: its result depends only on its
-- arguments, because times are formatted at the fixed zone UTC with a fixed pattern and json
-- and uuid output do not read session settings.
create function argus_audit_doc(
  id uuid, occurred_at timestamptz, ended_at timestamptz, org_id uuid, actor_id uuid, actor_name text,
  actor_role text, ip text, user_agent text, action text, object_type text, object_id uuid,
  object_name text, params jsonb, node_id uuid
) returns text language sql immutable parallel safe as $$
  select '{"id":"' || id::text
    || '","occurred_at":"' || to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    || '","ended_at":' || coalesce('"' || to_char(ended_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') || '"', 'null')
    || ',"org_id":' || coalesce('"' || org_id::text || '"', 'null')
    || ',"actor_id":' || coalesce('"' || actor_id::text || '"', 'null')
    || ',"actor_name":' || to_json(actor_name)::text
    || ',"actor_role":' || to_json(actor_role)::text
    || ',"ip":' || to_json(ip)::text
    || ',"user_agent":' || to_json(user_agent)::text
    || ',"action":' || to_json(action)::text
    || ',"object_type":' || to_json(object_type)::text
    || ',"object_id":' || coalesce('"' || object_id::text || '"', 'null')
    || ',"object_name":' || to_json(object_name)::text
    || ',"params":' || params::text
    || ',"node_id":' || coalesce('"' || node_id::text || '"', 'null')
    || '}'
$$;

alter table audit add column doc text not null generated always as (argus_audit_doc(
  id, occurred_at, ended_at, org_id, actor_id, actor_name, actor_role, ip, user_agent, action, object_type,
  object_id, object_name, params, node_id)) stored;
