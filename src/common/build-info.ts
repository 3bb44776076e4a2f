import info from '../build-info.json' with { type: 'json' };

/**
 * Written by scripts/build-info.mjs at build time (`npm run build`): the running program never asks
 * git, since an installed copy has no repository. Plane (`GET /api/v1/version`) and node share it.
 */
export interface BuildInfo {
  version: string;
  git: string;
  git_sha: string;
  dirty: boolean;
  profile: string;
  opt_level: string;
  debug: boolean;
  target: string;
  features: string[];
  /** YYYY-MM-DD; the node's licence `updates_until` is compared with it. */
  build_date: string;
}

export const BUILD: BuildInfo = {
  version: info.version,
  git: info.git,
  git_sha: info.git_sha,
  dirty: info.dirty,
  profile: info.profile,
  opt_level: info.opt_level,
  debug: info.debug,
  target: info.target,
  features: [...info.features],
  build_date: info.build_date,
};
