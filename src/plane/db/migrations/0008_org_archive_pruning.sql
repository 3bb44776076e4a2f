-- Archive cleanup of an organisation (document 2, "Cleanup job" kind `archive`) and pruning of
-- the records that purges leave behind.

-- An organisation deleted while it still holds event history: gone from every read at once
-- (deleted_at set), its row removed by the archive cleanup job once its history is gone. Its
-- name is free again at once.
alter table orgs add column deleted_at timestamptz;
drop index orgs_name_key;
create unique index orgs_name_key on orgs (lower(name)) where deleted_at is null;

-- Pruning of purged_attachments goes by age (event_tombstones by seq, which follows purge time).
create index purged_attachments_purged_at_idx on purged_attachments (purged_at);
