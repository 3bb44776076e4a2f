-- Failed-login counters shared by every plane process on the database, so that N processes do
-- not grant N times the attempts. The layout is the one rate-limiter-flexible's
-- RateLimiterPostgres reads and writes (key, points, expire in epoch milliseconds).
create table login_throttle (
  key varchar(255) primary key,
  points integer not null default 0,
  expire bigint
);
create index login_throttle_expire_idx on login_throttle (expire);
