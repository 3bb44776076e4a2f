import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildNodeApp, type NodeApp } from '../../../src/node/app.js';
import { parseConfig } from '../../../src/node/config/validate.js';
import { makeNodeLogger } from '../../../src/node/logs/node-logger.js';
import { TEST_KEYS } from '../../../src/node/license/trusted-keys.js';
import { BUILD } from '../../../src/common/build-info.js';
import { call, freePort, tempDir } from '../../node/helpers/node-process.js';
import { startPlane, type TestPlane } from '../harness.js';
import { lastAudit, tenants, unique, type Tenants } from '../inventory.helpers.js';

// Issue 25, item 6: a configuration rollback past a change of api_write_token locked the plane
// out (every per-node route 502 node_auth_failed). The node now carries the token in use across
// a rollback. A real node (in process) behind the plane's per-node routes.
const FIRST = 'first-write-token-0123456789';
const SECOND = 'second-write-token-0123456789';
const READ = 'read-token-0123456789abc';

let t: TestPlane;
let x: Tenants;
let node: NodeApp;
let base: string;
let dir: string;
let nodeId: string;
beforeAll(async () => {
  dir = await tempDir();
  const port = await freePort();
  const text =
    `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\nlog_level info;\n` +
    `auth {\n    # the plane's token\n    api_read_token ${READ};\n    api_write_token ${FIRST};\n}\n`;
  await writeFile(join(dir, 'argus-node.conf'), text);
  node = await buildNodeApp({
    configPath: join(dir, 'argus-node.conf'),
    configText: text,
    config: parseConfig(text, dir).config,
    clock: { now: () => Date.now() },
    build: BUILD,
    licenseKeys: TEST_KEYS,
    logger: makeNodeLogger('warn', { write: () => undefined }),
  });
  [base] = await node.listen();
  t = await startPlane();
  x = await tenants(t);
  const r = await x.root.post('/api/v1/nodes', { name: unique('tok'), url: base, api_token: FIRST });
  expect(r.status, r.text).toBe(201);
  nodeId = r.body.id;
});
afterAll(async () => {
  await node?.stop();
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('rollback past a change of the write token', () => {
  it('the plane keeps managing the node: the token in use is carried across, the rest rolls back', async () => {
    const change = await x.root.patch(`/api/v1/nodes/${nodeId}/config/globals`, {
      log_level: 'debug',
      auth: { api_read_token: READ, api_write_token: SECOND },
    });
    expect(change.status, change.text).toBe(200);
    expect((await call(base, 'GET', '/api/v1/config', { token: SECOND })).status).toBe(200);

    const r = await x.root.post(`/api/v1/nodes/${nodeId}/config/rollback`, { epoch: 1 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ changed: true, write_token_kept: true, rolled_from: change.body.epoch });
    expect(r.text).not.toContain(SECOND);
    // Every per-node route still answers (it was 502 node_auth_failed).
    const cfg = await x.root.get(`/api/v1/nodes/${nodeId}/config`);
    expect(cfg.status, cfg.text).toBe(200);
    expect(cfg.body.text).toContain(`api_write_token ${SECOND};`);
    expect(cfg.body.text).not.toContain(FIRST);
    expect(cfg.body.text).toContain("# the plane's token"); // the version's own lines, comments too
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/logging`)).body).toEqual({ level: 'info' });
    expect((await call(base, 'GET', '/api/v1/streams', { token: FIRST })).status).toBe(401);
    const a = await lastAudit(x.root, 'node.update', nodeId);
    expect(a.params).toEqual({
      changed: ['rollback'],
      rolled_back_to: 1,
      rolled_from: change.body.epoch,
      epoch: r.body.epoch,
      kept_in_use: ['api_write_token'],
    });
  });

  it('a version with the same token rolls back as it is', async () => {
    const h = await x.root.get(`/api/v1/nodes/${nodeId}/config/history`);
    const r = await x.root.post(`/api/v1/nodes/${nodeId}/config/rollback`, { epoch: 2 });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({ changed: true, write_token_kept: false, rolled_from: h.body.rows.at(-1).epoch });
    expect((await x.root.get(`/api/v1/nodes/${nodeId}/logging`)).body).toEqual({ level: 'debug' });
  });
});
