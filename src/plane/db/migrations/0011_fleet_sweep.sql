-- Cameras provisioned on their nodes and one sweeping process (issue 11, document 4 §3, §6).

-- recording_retention: the camera's recording (`dvr <first storage> <retention>` on its main
-- stream), in the node's retention grammar (90s, 30m, 12h, 7d); null: no recording.
alter table cameras add column recording_retention text
  check (recording_retention is null or recording_retention ~ '^[1-9][0-9]{0,6}[smhd]$');

-- The sweeper's lease: one row; the process named `holder` sweeps until `expires_at`, renewing
-- it every sweep. When the holder dies its lease runs out and another process takes it.
create table sweeper_lease (
  id integer primary key check (id = 1),
  holder text not null,
  expires_at timestamptz not null
);
