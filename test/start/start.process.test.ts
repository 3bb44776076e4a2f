import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launch, portPair, until, type Launcher } from './launcher.js';

// `npm start` (document 4 §1, issue 14): the launcher against the real programs on free ports in
// a temporary data folder: it prints the URL and login once the demo camera is live, the demo
// module's events arrive with a snapshot, Ctrl-C leaves no process behind, and a second start
// reuses the data (the same node, camera and module token).

/** The launcher's child processes (plane, node, demo module). */
const childrenOf = (pid: number) =>
  execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
    .split('\n')
    .map((l) => Number(l.trim()))
    .filter((n) => n > 0);
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('npm start', () => {
  let dataDir: string;
  let running: Launcher | undefined;
  afterAll(async () => {
    if (running && running.proc.exitCode === null) {
      running.proc.kill('SIGINT');
      await running.exited;
    }
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('brings up plane, node, demo camera and module; prints URL and login; Ctrl-C stops all; a second start reuses ./data', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'argus-start-'));
    const port = await portPair();
    const base = `http://127.0.0.1:${port}`;
    running = launch(dataDir, port);
    const ready = await until('ready line', () => running!.out.find((l) => l.startsWith('argus: ready.')), running);
    const creds = JSON.parse(await readFile(join(dataDir, 'bootstrap-login.json'), 'utf8')) as {
      login: string;
      password: string;
    };
    expect(ready).toContain(`Console ${base}/`);
    expect(ready).toContain(`login "${creds.login}"  password "${creds.password}"`);

    const login = (await (
      await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(creds),
      })
    ).json()) as { token: string };
    const get = async (path: string) =>
      (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${login.token}` } })).json() as Promise<any>;
    const nodes = (await get('/api/v1/nodes')).rows;
    const cameras = (await get('/api/v1/cameras')).rows;
    expect(nodes).toHaveLength(1);
    expect(cameras).toHaveLength(1);
    expect(cameras[0]).toMatchObject({
      name: 'demo camera',
      status: 'live',
      node_id: nodes[0].id,
      recording: { retention: '1d' },
    });
    // the demo module's first event, with the node's picture as its attachment
    const event = await until(
      'a demo event with a snapshot',
      async () => (await get('/api/v1/events?detector=demo.*')).rows.find((e: any) => e.attachments.length === 1),
      running,
      30_000,
    );
    expect(event.camera_id).toBe(cameras[0].id);
    const att = await fetch(`${base}/api/v1/attachments/${event.attachments[0].ref ?? event.attachments[0]}`, {
      headers: { authorization: `Bearer ${login.token}` },
    });
    expect(att.status).toBe(200);
    expect(Buffer.from(await att.arrayBuffer()).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xd8]));
    // no per-request lines at info
    expect(running.out.some((l) => l.includes('"request completed"') || l.includes('"incoming request"'))).toBe(false);

    const kids = childrenOf(running.proc.pid!);
    expect(kids).toHaveLength(3);
    running.proc.kill('SIGINT');
    expect(await running.exited).toBe(0);
    // the launcher waits for its children before it exits: none is left
    expect(kids.filter(alive)).toEqual([]);
    await expect(fetch(`${base}/health`)).rejects.toThrow();

    const fleet = JSON.parse(await readFile(join(dataDir, 'local-fleet.json'), 'utf8'));
    running = launch(dataDir, port);
    await until('ready line again', () => running!.out.find((l) => l.startsWith('argus: ready.')), running);
    const again = (await (
      await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(creds),
      })
    ).json()) as { token: string };
    const get2 = async (path: string) =>
      (await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${again.token}` } })).json() as Promise<any>;
    expect((await get2('/api/v1/nodes')).rows.map((n: any) => n.id)).toEqual([nodes[0].id]);
    expect((await get2('/api/v1/cameras')).rows.map((c: any) => c.id)).toEqual([cameras[0].id]);
    expect(JSON.parse(await readFile(join(dataDir, 'local-fleet.json'), 'utf8'))).toEqual(fleet);
    running.proc.kill('SIGTERM');
    expect(await running.exited).toBe(0);
  }, 420_000);
});
