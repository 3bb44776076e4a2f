-- Each user's own console preferences (document 4 §12, GET and PUT /api/v1/me/preferences): one
-- row per user who has saved them; no row means the defaults (docs/preferences.md). A PUT
-- replaces the document whole; the row goes with its user. Camera ids inside are not foreign
-- keys: a camera the user may no longer see (deleted, or its right withdrawn) is left out when
-- the document is read, and comes back if the right does.
create table user_preferences (
  user_id uuid primary key references users (id) on delete cascade,
  doc jsonb not null,
  updated_at timestamptz not null default now()
);
