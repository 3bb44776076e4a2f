import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** A program `npm start` runs, its output shown line by line under its name. */
export interface Child {
  name: string;
  proc: ChildProcess;
  exited: Promise<number | null>;
  lines: string[];
}

/**
 * Starts `node <script> <args>`; every output line goes to `show` (the launcher prints it with
 * the program's name) and is kept (the last 200) for a failure message.
 */
export function startChild(
  name: string,
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  show: (name: string, line: string) => void,
): Child {
  const proc = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const keep = (line: string) => {
    lines.push(line);
    if (lines.length > 200) lines.shift();
    show(name, line);
  };
  createInterface({ input: proc.stdout! }).on('line', keep);
  createInterface({ input: proc.stderr! }).on('line', keep);
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  return { name, proc, exited, lines };
}

/** Stops children in reverse start order: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopChildren(children: Child[], graceMs = 10_000): Promise<void> {
  for (const c of [...children].reverse()) {
    if (c.proc.exitCode !== null || c.proc.signalCode !== null) continue;
    c.proc.kill('SIGTERM');
    const timer = setTimeout(() => c.proc.kill('SIGKILL'), graceMs);
    await c.exited;
    clearTimeout(timer);
  }
}
