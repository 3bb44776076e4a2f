import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';

/** How much of ffmpeg's standard error a run keeps: its end, where ffmpeg says why it stopped. */
const STDERR_KEEP = 2000;

/** How one bounded ffmpeg (or ffprobe) run ended. */
export interface FfmpegRun {
  /** the exit code; null when a signal ended it (the bound, or too much output) */
  code: number | null;
  /** what it wrote to standard output, when `stdout` asked for it (empty otherwise) */
  stdout: Buffer;
  /** the last characters of its standard error */
  stderr: string;
  /** whether the bound ended it */
  timedOut: boolean;
}

export interface RunFfmpegOptions {
  /** the bound: the child is killed (SIGKILL) after this long */
  timeoutMs: number;
  /** collect standard output (a frame on `pipe:1`); otherwise it is not even opened */
  stdout?: boolean;
  /** more standard output than this kills the child; what came within it is kept */
  maxStdoutBytes?: number;
  /** each piece of standard error as it comes (a caller reading ffmpeg's lines as they arrive) */
  onStderr?: (chunk: string) => void;
  env?: NodeJS.ProcessEnv;
  /** how the child is started: the node's `spawnMedia` (it dies with the node), else a plain spawn */
  spawn?: (bin: string, args: string[], options: SpawnOptions) => ChildProcess;
}

/**
 * One media tool run to its end within a bound: the plane's video previews and the node's
 * previews, thumbnails, exports and source probes are each one such run. Resolves once the child
 * has exited and its output is all read (`close`, so a frame's last bytes are not lost); rejects
 * only when the child could not be started. How a run's failure is worded is the caller's.
 */
export function runFfmpeg(bin: string, args: string[], o: RunFfmpegOptions): Promise<FfmpegRun> {
  return new Promise((resolve, reject) => {
    const child = (o.spawn ?? spawn)(bin, args, {
      stdio: ['ignore', o.stdout ? 'pipe' : 'ignore', 'pipe'],
      ...(o.env ? { env: o.env } : {}),
    });
    const out: Buffer[] = [];
    let outBytes = 0;
    let err = '';
    let timedOut = false;
    let settled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    child.stdout?.on('data', (c: Buffer) => {
      outBytes += c.length;
      if (o.maxStdoutBytes === undefined || outBytes <= o.maxStdoutBytes) out.push(c);
      else child.kill('SIGKILL');
    });
    child.stderr!.setEncoding('utf8').on('data', (c: string) => {
      o.onStderr?.(c);
      err = (err + c).slice(-STDERR_KEEP);
    });
    const settle = (then: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      then();
    };
    child.once('error', (e) => {
      child.kill('SIGKILL');
      settle(() => reject(e));
    });
    child.once('close', (code) => settle(() => resolve({ code, stdout: Buffer.concat(out), stderr: err, timedOut })));
  });
}
