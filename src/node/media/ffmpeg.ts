import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, join } from 'node:path';

export interface FfmpegLocation {
  path: string;
  source: 'system' | 'npm';
}

/** The first executable `ffmpeg` on `pathEnv`, like a shell would find it. */
export function findOnPath(pathEnv: string | undefined, name = 'ffmpeg'): string | null {
  for (const dir of (pathEnv ?? '').split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch { /* not here */ }
  }
  return null;
}

/** The binary that @ffmpeg-installer/ffmpeg ships for this platform, or null when it has none. */
export function npmFfmpeg(): string | null {
  try {
    const require = createRequire(import.meta.url);
    const p = (require('@ffmpeg-installer/ffmpeg') as { path: string }).path;
    accessSync(p, constants.X_OK);
    return p;
  } catch {
    return null;
  }
}

/**
 * Document 4 section 6: the system's ffmpeg when it is on PATH (the distribution patches and
 * updates it, and it has the codecs the operator installed), else the one an npm package ships.
 * `ARGUS_FFMPEG` names a binary explicitly and wins over both.
 */
export function resolveFfmpeg(env: NodeJS.ProcessEnv = process.env): FfmpegLocation {
  if (env.ARGUS_FFMPEG) return { path: env.ARGUS_FFMPEG, source: 'system' };
  const onPath = findOnPath(env.PATH);
  if (onPath) return { path: onPath, source: 'system' };
  const shipped = npmFfmpeg();
  if (shipped) return { path: shipped, source: 'npm' };
  throw new Error('ffmpeg not found: install it (apt-get install ffmpeg) or reinstall the node package with its optional dependencies');
}

let setpriv: string | null | undefined;

/**
 * Spawns a media child that dies with the node. Node ignores SIGPIPE and its children inherit
 * that, so an ffmpeg whose parent was killed would keep writing forever; on Linux `setpriv
 * --pdeathsig KILL` (util-linux) asks the kernel to end it when the node goes. Under systemd the
 * unit's control group catches anything left as well.
 */
export function spawnMedia(bin: string, args: string[], options: SpawnOptions): ChildProcess {
  if (setpriv === undefined) setpriv = process.platform === 'linux' ? findOnPath(process.env.PATH, 'setpriv') : null;
  if (setpriv) return spawn(setpriv, ['--pdeathsig', 'KILL', '--', bin, ...args], options);
  return spawn(bin, args, options);
}
