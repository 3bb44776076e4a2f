import type { Shape } from './grammar.js';

/** Which directives exist where, whether they open a block and how many arguments they take. */
const one: Shape = { min: 1, max: 1 };
// Secrets take 0..1 so that `api_read_token;` reaches the value check and gets the helpful
// "must not be empty" message instead of an arity error.
const secret: Shape = { min: 0, max: 1 };

const AUTH: Record<string, Shape> = {
  admin_password: secret,
  session_secret: secret,
  admin_ip_bind: { min: 0, max: 1 },
  api_read_token: secret,
  api_write_token: secret,
};

export const NODE_SCHEMA: Record<string, Shape> = {
  http: one,
  auth: { min: 0, max: 0, block: AUTH },
  auth_backend: { min: 0, max: 0, block: { hs256: one, jwks: one } },
  session_keys: { min: 0, max: 0, block: { secret: one } },
  trusted_proxies: { min: 1, max: Infinity },
  storage: { min: 2, max: 4 },
  cluster_id: one,
  data_dir: one,
  log_level: one,
  stream: { min: 1, max: 1, block: { input: one, dvr: { min: 2, max: 2 }, on_demand: { min: 0, max: 0 } } },
};
