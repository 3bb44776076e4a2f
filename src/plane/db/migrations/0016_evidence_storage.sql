-- Evidence storage counters shared by every plane process (document 4 §10, settings stats):
-- uploads refused at the critical watermark. One row.
create table evidence_counters (
  id smallint primary key default 1 check (id = 1),
  pressure_dropped_attachments bigint not null default 0
);
insert into evidence_counters (id) values (1);

-- Volume retention (`oldest_purge_day`) removes whole days as cleanup jobs of kind `retention`.
alter table cleanup_jobs drop constraint cleanup_jobs_kind_check;
alter table cleanup_jobs add constraint cleanup_jobs_kind_check check (kind in ('events', 'archive', 'retention'));
