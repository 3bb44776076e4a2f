import info from '../build-info.json' with { type: 'json' };

/** Written by scripts/build-info.mjs at build time: the running program never asks git. */
export interface BuildInfo {
  version: string;
  git: string;
  git_sha: string;
  dirty: boolean;
  profile: string;
  target: string;
  /** YYYY-MM-DD; the licence's `updates_until` is compared with it. */
  build_date: string;
}

export const BUILD: BuildInfo = {
  version: info.version,
  git: info.git,
  git_sha: info.git_sha,
  dirty: info.dirty,
  profile: info.profile,
  target: info.target,
  build_date: info.build_date,
};
