-- The fleet monitor (document 1 "Fleet and process telemetry", document 4 §9): the process that
-- swept stores what the sweep found, and every other plane process loads it after one NOTIFY,
-- so all serve the same summary and node frames with the same numbers.

-- One row: the sweep number (the summary's seq), the last node-frame number handed out, and the
-- summary of the latest sweep. Both numbers are drawn here, under this row's lock, so two
-- processes that publish one after the other never hand out a number twice.
create table monitor_fleet (
  id integer primary key check (id = 1),
  seq bigint not null default 0,
  frame_seq bigint not null default 0,
  summary json
);
insert into monitor_fleet (id) values (1);

-- The latest telemetry frame of each node the latest sweep polled (the replay snapshot), and the
-- node's last known stream total (kept for a node whose counts could not be read this sweep).
create table monitor_node_frames (
  node_id uuid primary key,
  seq bigint not null,
  known_total integer,
  frame json not null
);
