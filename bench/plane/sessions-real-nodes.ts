/**
 * Real argus-node processes for the sessions bench: each with one camera (a small synthetic
 * source) registered in the plane and `viewers` real viewer sessions made the way a player makes
 * them (the plane's play token, the node's entry playlist, then the live playlist with the node's
 * ticket every 3 s so that none goes idle).
 */
import { randomBytes } from 'node:crypto';
import { startBenchNode } from '../node/harness.js';
import { freePort } from '../net.js';

type Api = (method: string, path: string, body: unknown) => Promise<Record<string, any>>;

export interface RealNode {
  url: string;
  token: string;
  stop(): Promise<void>;
}

const SOURCE = 'testsrc://t?size=160x90&rate=10&bitrate=100';

export async function startRealNodes(api: Api, count: number, viewers: number): Promise<RealNode[]> {
  const out: RealNode[] = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const token = `bench-write-${randomBytes(12).toString('hex')}`;
    const secret = `bench-viewer-${randomBytes(12).toString('hex')}`;
    const url = `http://127.0.0.1:${port}`;
    const { id } = await api('POST', '/api/v1/nodes', {
      name: `bench-real-node-${i}`,
      url,
      api_token: token,
      auth_backend_secret: secret,
    });
    const cam = await api('POST', '/api/v1/cameras', { name: `bench-real-cam-${i}`, node_id: id, main_source: SOURCE });
    const node = await startBenchNode(
      `auth {\n    admin_password "bench-admin-password";\n    api_write_token ${token};\n}\n` +
        `auth_backend { hs256 ${secret}; }\nstream ${cam.id}_main { input "${SOURCE}"; }\n`,
      { ARGUS_NODE_SEGMENT_SECS: '1' },
      port,
    );
    const variants: URL[] = [];
    for (let v = 0; v < viewers; v++) {
      const play = await api('POST', `/api/v1/cameras/${cam.id}/play`, { profile: 'MAIN', intent: 'live' });
      const headers = { 'user-agent': `bench-player/${i}.${v}` };
      const entry = await fetch(`${play.url}?token=${play.token}`, { headers });
      if (entry.status !== 200) throw new Error(`node ${i} viewer ${v}: entry playlist ${entry.status}`);
      const variant = (await entry.text()).split('\n').find((l) => l && !l.startsWith('#'))!;
      variants.push(new URL(variant, play.url));
    }
    // Live players reload the playlist every segment; every 3 s keeps the sessions (10 s idle) alive.
    const keep = setInterval(() => {
      for (const v of variants)
        void fetch(v).then(
          (r) => r.arrayBuffer(),
          () => {},
        );
    }, 3000);
    out.push({
      url,
      token,
      stop: async () => {
        clearInterval(keep);
        await node.stop();
      },
    });
  }
  return out;
}
