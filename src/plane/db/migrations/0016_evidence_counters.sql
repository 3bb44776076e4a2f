-- Evidence storage counters shared by every plane process (document 4 §10, settings stats):
-- uploads refused at the critical watermark. One row.
create table evidence_counters (
  id smallint primary key default 1 check (id = 1),
  pressure_dropped_attachments bigint not null default 0
);
insert into evidence_counters (id) values (1);
