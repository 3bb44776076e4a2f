import { accessSync, chmodSync, constants, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

/**
 * Where ffmpeg and ffprobe are found, one rule for the node and its tests (document 4 section 6):
 * the system's binary when it is on PATH (the distribution patches and updates it, and it has the
 * codecs the operator installed), else the one an npm package ships (@ffmpeg-installer/ffmpeg,
 * @ffprobe-installer/ffprobe). `ARGUS_FFMPEG` names an ffmpeg explicitly and wins over both.
 */
export type MediaTool = 'ffmpeg' | 'ffprobe';

export interface MediaToolLocation {
  path: string;
  source: 'system' | 'npm';
}

const PACKAGE: Record<MediaTool, string> = {
  ffmpeg: '@ffmpeg-installer/ffmpeg',
  ffprobe: '@ffprobe-installer/ffprobe',
};

/** The first executable `name` on `pathEnv`, like a shell would find it. */
export function findOnPath(pathEnv: string | undefined, name: string): string | null {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not here */
    }
  }
  return null;
}

/**
 * The binary the npm package ships for this platform, or null when it has none. npm 11 may skip
 * the package's postinstall `chmod`, which leaves the binary without its execute bits: they are
 * added here when the file is ours to change, since the binary is otherwise complete.
 */
export function npmMediaTool(tool: MediaTool): string | null {
  let p: string;
  try {
    const require = createRequire(import.meta.url);
    p = (require(PACKAGE[tool]) as { path: string }).path;
  } catch {
    return null;
  }
  try {
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    /* not executable (yet) */
  }
  try {
    chmodSync(p, statSync(p).mode | 0o755);
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return null;
  }
}

export function resolveMediaTool(tool: MediaTool, env: NodeJS.ProcessEnv = process.env): MediaToolLocation {
  if (tool === 'ffmpeg' && env.ARGUS_FFMPEG) return { path: env.ARGUS_FFMPEG, source: 'system' };
  const onPath = findOnPath(env.PATH, tool);
  if (onPath) return { path: onPath, source: 'system' };
  const shipped = npmMediaTool(tool);
  if (shipped) return { path: shipped, source: 'npm' };
  throw new Error(
    `${tool} not found: install it (apt-get install ffmpeg) or reinstall the node package with its optional dependencies`,
  );
}

/**
 * The environment to run `path` in. The npm binaries are statically linked against an old glibc
 * that still loads the system's gconv modules (to convert MPEG-TS service names, for one) and
 * crashes in them (SIGSEGV, SavageCore/node-ffprobe-installer#121): pointed at no modules, the
 * conversion is skipped and the names are kept as they are. A system binary gets `env` unchanged.
 */
export function mediaToolEnv(path: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  if (!/[\\/]node_modules[\\/]@ff(mpeg|probe)-installer[\\/]/.test(path)) return env;
  return { ...env, GCONV_PATH: '/nonexistent-argus-gconv' };
}

export function ffmpegPath(env: NodeJS.ProcessEnv = process.env): string {
  return resolveMediaTool('ffmpeg', env).path;
}

export function ffprobePath(env: NodeJS.ProcessEnv = process.env): string {
  return resolveMediaTool('ffprobe', env).path;
}
