import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-file.js';
import { DEFAULT_PLANE_TOML } from '../plane/config/config.js';

/**
 * What `npm start` keeps in its data folder (document 4 §1), generated once and reused: the
 * node's write token, viewer secret and admin password, the demo module's token secret, and the
 * ids of what it registered in the plane (so a second start adds nothing). Mode 0600.
 */
export interface LocalFleet {
  node: { writeToken: string; viewerSecret: string; adminPassword: string };
  moduleToken: { id: string; secret: string } | null;
}

export interface Layout {
  dataDir: string;
  planePort: number;
  nodePort: number;
  planeToml: string;
  nodeConf: string;
  fleetFile: string;
  bootstrapFile: string;
}

export function layoutOf(dataDir: string, planePort: number): Layout {
  return {
    dataDir,
    planePort,
    nodePort: planePort + 1,
    planeToml: join(dataDir, 'plane.toml'),
    nodeConf: join(dataDir, 'node', 'argus-node.conf'),
    fleetFile: join(dataDir, 'local-fleet.json'),
    bootstrapFile: join(dataDir, 'bootstrap-login.json'),
  };
}

const secret = (n = 24) => randomBytes(n).toString('base64url');

/** The files of a local installation: plane.toml and the fleet secrets once, the node's config every start (from them). */
export async function prepare(l: Layout): Promise<LocalFleet> {
  await mkdir(join(l.dataDir, 'node', 'recordings'), { recursive: true });
  if (!existsSync(l.planeToml)) {
    const base = `http://127.0.0.1:${l.planePort}`;
    await writeFileAtomic(
      l.planeToml,
      DEFAULT_PLANE_TOML.replace('public_url = "http://127.0.0.1:8080"', `public_url = "${base}"`).replace(
        'listen = "127.0.0.1:8080"',
        `listen = "127.0.0.1:${l.planePort}"`,
      ),
      0o600,
    );
  }
  let fleet: LocalFleet;
  if (existsSync(l.fleetFile)) fleet = JSON.parse(await readFile(l.fleetFile, 'utf8')) as LocalFleet;
  else {
    fleet = {
      node: { writeToken: `local-${secret()}`, viewerSecret: secret(32), adminPassword: secret(16) },
      moduleToken: null,
    };
    await saveFleet(l, fleet);
  }
  await writeFileAtomic(l.nodeConf, nodeConfig(l, fleet), 0o600);
  return fleet;
}

export function saveFleet(l: Layout, fleet: LocalFleet): Promise<void> {
  return writeFileAtomic(l.fleetFile, JSON.stringify(fleet, null, 2) + '\n', 0o600);
}

/** The local node's configuration (document 4 §7 grammar): its port, its data, the plane's tokens, one storage. */
function nodeConfig(l: Layout, f: LocalFleet): string {
  return [
    '# Written by `npm start` at every start from local-fleet.json (edits here are overwritten).',
    `http 127.0.0.1:${l.nodePort};`,
    `data_dir ${JSON.stringify(join(l.dataDir, 'node', 'data'))};`,
    'auth {',
    `    admin_password ${JSON.stringify(f.node.adminPassword)};`,
    `    api_write_token ${f.node.writeToken};`,
    '}',
    `auth_backend { hs256 ${f.node.viewerSecret}; }`,
    `storage main ${join(l.dataDir, 'node', 'recordings')};`,
    '',
  ].join('\n');
}
