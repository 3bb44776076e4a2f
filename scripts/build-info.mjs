// Captures the git sha and dirty flag at build time for GET /api/v1/version (the running
// process must not shell out to git: an installed copy has no repository).
import { execFileSync } from 'node:child_process';
import { writeFileSync, readFileSync } from 'node:fs';

function git(args) {
  try {
    return execFileSync('git', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}
const sha = git(['rev-parse', 'HEAD']) || 'unknown';
const dirty = git(['status', '--porcelain', '--untracked-files=no']) !== '';
const describe = git(['describe', '--always', '--dirty']) || sha.slice(0, 12);
const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
const info = {
  version: pkg.version,
  git: describe,
  git_sha: sha,
  dirty,
  profile: process.env.NODE_ENV === 'production' ? 'release' : 'dev',
  opt_level: 'tsc-es2023',
  debug: process.env.NODE_ENV !== 'production',
  target: `${process.platform}-${process.arch}-node${process.versions.node.split('.')[0]}`,
  features: ['postgres', 'pglite', 'sse', 'listen-notify'],
  build_date: new Date().toISOString().slice(0, 10),
};
writeFileSync(new URL('../src/build-info.json', import.meta.url), JSON.stringify(info, null, 2) + '\n');
