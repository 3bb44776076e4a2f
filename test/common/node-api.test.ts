import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import type { TSchema } from 'typebox';
import Value from 'typebox/value';
import { buildNodeApp, type NodeApp } from '../../src/node/app.js';
import { parseConfig } from '../../src/node/config/validate.js';
import { BUILD } from '../../src/common/build-info.js';
import {
  NodeChangeReply,
  NodeConfigReply,
  NodeHistoryReply,
  NodeLicenseReply,
  NodeLogPage,
  NodeProbeReply,
  NodeRollbackReply,
  NodeSessionsReply,
  NodeStreamsReply,
  NodeSystemReply,
} from '../../src/common/node-api.js';
import { NodeClient } from '../../src/plane/nodes/node-client.js';
import { call, freePort, tempDir } from '../node/helpers/node-process.js';

/**
 * The node's replies that the plane reads are the shared schemas of src/common/node-api.ts: a
 * real node (in process) serialises its routes with them and answers what they describe, and the
 * plane's node client reads that node's replies without a failure.
 */
const WRITE = 'contract-write-token-0123456789';
let node: NodeApp;
let base: string;

beforeAll(async () => {
  const dir = await tempDir();
  const port = await freePort();
  await mkdir(join(dir, 'rec'), { recursive: true });
  const text =
    `http 127.0.0.1:${port};\ndata_dir ${dir}/data;\nlog_level silent;\n` +
    `auth { api_write_token ${WRITE}; }\n` +
    `storage disk1 ${join(dir, 'rec')};\n` +
    `stream cam1 { input rtsp://user:secret-pw@127.0.0.1:9/none; }\n`;
  const configPath = join(dir, 'argus-node.conf');
  await writeFile(configPath, text);
  node = await buildNodeApp({
    configPath,
    configText: text,
    config: parseConfig(text, dir).config,
    clock: { now: () => Date.now() },
    logger: pino({ level: 'silent' }),
  });
  [base] = await node.listen();
});
afterAll(async () => {
  await node?.stop();
});

/** The node's reply to `method path` (200), checked against `schema` with every problem shown. */
async function replyOf(method: string, path: string, schema: TSchema, body?: unknown): Promise<unknown> {
  const r = await call(base, method, path, { token: WRITE, body });
  expect(r.status, r.text).toBe(200);
  const problems = [...Value.Errors(schema, r.json)].map((e) => `${e.instancePath} ${e.message}`);
  expect(problems).toEqual([]);
  return r.json;
}

const READS: Array<[string, string, TSchema]> = [
  ['GET', '/api/v1/system', NodeSystemReply],
  ['GET', '/api/v1/streams', NodeStreamsReply],
  ['GET', '/api/v1/sessions', NodeSessionsReply],
  ['GET', '/api/v1/logs', NodeLogPage],
  ['GET', '/api/v1/license', NodeLicenseReply],
  ['GET', '/api/v1/config', NodeConfigReply],
  ['GET', '/api/v1/config/history', NodeHistoryReply],
];

describe("the node's routes answer the shared schemas", () => {
  it.each(READS)('%s %s answers exactly what the shared schema describes', async (method, path, schema) => {
    const reply = await replyOf(method, path, schema);
    // The node serialises with the shared schema: a field the schema does not name would be in
    // the reply only if the route wrote with a schema of its own (cleaning it would remove it).
    expect(Value.Clean(schema, Value.Clone(reply))).toEqual(reply);
  });

  it('the replies carry what the sweeper reads: the storage, the stream, the version', async () => {
    const system = (await replyOf('GET', '/api/v1/system', NodeSystemReply)) as {
      version: string;
      storages: Array<{ name: string }>;
    };
    expect(system.version).toBe(BUILD.version);
    expect(system.storages.map((s) => s.name)).toEqual(['disk1']);
    const streams = (await replyOf('GET', '/api/v1/streams', NodeStreamsReply)) as {
      rows: Array<{ name: string; input: string }>;
    };
    expect(streams.rows.map((r) => r.name)).toEqual(['cam1']);
    expect(streams.rows[0]!.input).not.toContain('secret-pw');
  });

  it('a change and a rollback answer the shared change schemas', async () => {
    await replyOf('PATCH', '/api/v1/config/globals', NodeChangeReply, { log_level: 'fatal' });
    await replyOf('POST', '/api/v1/config/rollback', NodeRollbackReply, { epoch: 1 });
  });

  it('a probe answers the shared probe schema, found or not', async () => {
    await replyOf('POST', '/api/v1/probe', NodeProbeReply, { url: 'testsrc://t?size=160x90&rate=5' });
    await replyOf('POST', '/api/v1/probe', NodeProbeReply, { url: `http://127.0.0.1:${await freePort()}/x.ts` });
  });
});

describe("the plane's node client reads a real node", () => {
  const client = new NodeClient();
  const at = () => client.at({ url: base, apiToken: WRITE });

  it('system, streams, sessions, logs, licence, config and history, each typed', async () => {
    const n = at();
    const system = await n.system();
    expect(system.version).toBe(BUILD.version);
    expect(system.telemetry?.stream_counts.total).toBe(1);
    expect(system.storages?.map((s) => s.name)).toEqual(['disk1']);
    expect((await n.streams()).map((s) => [s.name, s.dvr, s.on_demand])).toEqual([['cam1', null, false]]);
    expect(await n.sessionRows()).toEqual([]);
    expect((await n.logs({ limit: 5 })).entries.length).toBeLessThanOrEqual(5);
    expect((await n.license()).state).toBe('none');
    expect((await n.config()).text).toContain('stream cam1');
    expect((await n.configHistory()).length).toBeGreaterThanOrEqual(1);
  });

  it('stream writes: created, replaced, deleted, then absent', async () => {
    const n = at();
    const spec = { input: 'rtsp://127.0.0.1:9/two', dvr: { storage: 'disk1', retention: '1d' }, on_demand: true };
    expect(await n.putStream('cam2', spec)).toBe('created');
    expect(await n.putStream('cam2', { ...spec, dvr: null })).toBe('replaced');
    expect((await n.streams()).find((s) => s.name === 'cam2')).toMatchObject({ dvr: null, on_demand: true });
    expect(await n.deleteStream('cam2')).toBe('deleted');
    expect(await n.deleteStream('cam2')).toBe('absent');
  });

  it('a probe, typed', async () => {
    expect(await at().probe('testsrc://t?size=160x90&rate=5')).toEqual({
      ok: true,
      video: { codec: 'h264', width: 160, height: 90, fps: 5 },
      audio: null,
      error: null,
    });
  });

  it('a globals change and a rollback', async () => {
    const n = at();
    const change = await n.patchGlobals({ log_level: 'fatal' });
    expect(change.changed).toBe(true);
    const back = await n.rollback(1);
    expect(back.rolled_from).toBe(change.epoch);
    expect(typeof back.write_token_kept).toBe('boolean');
  });
});
