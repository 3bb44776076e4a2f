#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prettyFactory } from 'pino-pretty';
import { startChild, stopChildren, type Child } from './children.js';
import { layoutOf, prepare, saveFleet, type Layout, type LocalFleet } from './local-fleet.js';
import { PlaneClient } from './plane-client.js';

/**
 * `npm start` (document 4 §1): the plane on :8080 with its embedded database in ./data, one local
 * argus-node on :8081 registered in it, a recorded demo camera fed by testsrc://, and the demo
 * analytics module sending events with snapshots; it prints the console URL and the bootstrap
 * login once everything answers, and Ctrl-C stops every child. ARGUS_DATA_DIR and
 * ARGUS_START_PORT (the plane's port; the node takes the next) move it.
 */
const DIST = fileURLToPath(new URL('..', import.meta.url));
const PLANE_MAIN = resolve(DIST, 'plane/main.js');
const NODE_MAIN = resolve(DIST, 'node/main.js');
const DEMO_MAIN = resolve(DIST, 'start/demo-module.js');
const NODE_NAME = 'local node';
const CAMERA_NAME = 'demo camera';
const MODULE_NAME = 'demo module';
const DEMO_SOURCE = 'testsrc://demo?size=640x360&rate=15&bitrate=400';
const READY_MS = 120_000;

const out = (line: string) => process.stdout.write(line + '\n');
// Children's lines under their name: on a terminal their JSON log lines made readable (pino-pretty),
// elsewhere (a pipe, a file, a service manager) the JSON as the programs wrote it.
const pretty = process.stdout.isTTY
  ? prettyFactory({ colorize: true, singleLine: true, ignore: 'pid,hostname,program', translateTime: 'SYS:HH:MM:ss' })
  : null;
const show = (name: string, line: string) => {
  const text = pretty && line.startsWith('{') ? pretty(line).trimEnd() : line;
  out(`${name.padEnd(6)}| ${text}`);
};

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  children: Child[],
  timeoutMs = READY_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const c of children)
      if (c.proc.exitCode !== null) throw new Error(`${c.name} exited (${c.proc.exitCode}) while waiting for ${what}`);
    const v = await probe().catch(() => undefined);
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** The node, the camera and the module token in the plane: found again on a second start, else created. */
async function register(api: PlaneClient, l: Layout, fleet: LocalFleet): Promise<{ nodeId: string; cameraId: string }> {
  const nodeUrl = `http://127.0.0.1:${l.nodePort}`;
  const nodes = await api.all<{ id: string; name: string; url: string }>('/api/v1/nodes');
  const nodeId =
    nodes.find((n) => n.url === nodeUrl)?.id ??
    (
      await api.must<{ id: string }>('POST', '/api/v1/nodes', {
        name: NODE_NAME,
        url: nodeUrl,
        api_token: fleet.node.writeToken,
        auth_backend_secret: fleet.node.viewerSecret,
      })
    ).id;
  const cameras = await api.all<{ id: string; name: string; node_id: string }>('/api/v1/cameras');
  const cameraId =
    cameras.find((c) => c.node_id === nodeId && c.name === CAMERA_NAME)?.id ??
    (
      await api.must<{ id: string }>('POST', '/api/v1/cameras', {
        name: CAMERA_NAME,
        node_id: nodeId,
        main_source: DEMO_SOURCE,
        recording: { retention: '1d' },
      })
    ).id;
  const tokens = await api.all<{ id: string }>('/api/v1/module-tokens');
  if (!fleet.moduleToken || !tokens.some((t) => t.id === fleet.moduleToken!.id)) {
    const t = await api.must<{ id: string; secret: string }>('POST', '/api/v1/module-tokens', {
      name: `${MODULE_NAME} ${new Date().toISOString().slice(0, 19)}`,
    });
    fleet.moduleToken = { id: t.id, secret: t.secret };
    await saveFleet(l, fleet);
  }
  return { nodeId, cameraId };
}

async function main(): Promise<void> {
  if (!existsSync(PLANE_MAIN)) throw new Error('run "npm run build" first (npm start does)');
  const l = layoutOf(resolve(process.env.ARGUS_DATA_DIR ?? 'data'), Number(process.env.ARGUS_START_PORT ?? 8080));
  const fleet = await prepare(l);
  const children: Child[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    out('argus: stopping');
    await stopChildren(children);
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    const env = { ...process.env };
    delete env.ARGUS_BOOTSTRAP_LOGIN;
    delete env.ARGUS_BOOTSTRAP_PASSWORD;
    delete env.DATABASE_URL;
    const plane = startChild('plane', PLANE_MAIN, ['serve', '--config', l.planeToml], env, show);
    children.push(plane);
    const node = startChild('node', NODE_MAIN, ['run', l.nodeConf], env, show);
    children.push(node);
    await until(
      'the plane database',
      async () => (plane.lines.some((x) => x.includes('database ready')) ? true : undefined),
      children,
    );
    const api = new PlaneClient(`http://127.0.0.1:${l.planePort}`);
    await until(
      'the node',
      async () => {
        const r = await fetch(`http://127.0.0.1:${l.nodePort}/api/v1/system`, {
          headers: { authorization: `Bearer ${fleet.node.writeToken}` },
        });
        return r.status === 200 ? true : undefined;
      },
      children,
    );
    const creds = JSON.parse(await readFile(l.bootstrapFile, 'utf8')) as { login: string; password: string };
    await api.login(creds);
    const { cameraId } = await register(api, l, fleet);
    await until(
      'the demo camera live',
      async () =>
        (await api.must<{ status: string }>('GET', `/api/v1/cameras/${cameraId}`)).status === 'live' ? true : undefined,
      children,
    );
    children.push(
      startChild(
        'module',
        DEMO_MAIN,
        [],
        {
          ...env,
          ARGUS_PLANE_URL: api.base,
          ARGUS_MODULE_TOKEN: fleet.moduleToken!.secret,
          ARGUS_CAMERA_ID: cameraId,
          ARGUS_NODE_URL: `http://127.0.0.1:${l.nodePort}`,
          ARGUS_VIEWER_SECRET: fleet.node.viewerSecret,
        },
        show,
      ),
    );
    out('');
    out(
      `argus: ready. Console ${api.base}/  login "${creds.login}"  password "${creds.password}"  (kept in ${l.bootstrapFile})`,
    );
    out(`argus: node ${`http://127.0.0.1:${l.nodePort}`}, demo camera ${cameraId}; Ctrl-C stops everything`);
    out('');
    // A child that dies takes the others down: a half-running fleet would only confuse.
    const first = await Promise.race(children.map((c) => c.exited.then((code) => ({ c, code }))));
    if (!stopping) {
      out(`argus: ${first.c.name} exited (${first.code})`);
      await stop(1);
    }
  } catch (err) {
    out(`argus: ${(err as Error).message}`);
    await stop(1);
  }
}

await main();
