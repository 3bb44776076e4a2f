import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFile } from 'node:fs/promises';
import { ROOT } from '../harness.js';
import { login, type Client } from '../client.js';
import { planeWithFile } from './plane-with-file.js';
import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';
import { SETTING_MAX } from '../../../src/plane/config/lengths.js';

// Issue 25, finding 14: every string setting has a length limit, in the API (TypeBox maxLength:
// a validation text, as document 1 allows for settings) and in plane.toml at start.

const long = (n: number) => 'a'.repeat(n);
const V = { public_url: 'http://127.0.0.1:8080', listen: '127.0.0.1:8080', tls: { mode: 'off' } };
const E = {
  backend: 'local',
  dir: '/srv/argus-evidence',
  volume_retention: 'disabled',
  low_watermark_percent: 70,
  high_watermark_percent: 85,
  critical_watermark_percent: 95,
};
const S3 = {
  ...E,
  backend: 's3',
  dir: undefined,
  endpoint: 's3.example.org',
  bucket: 'evidence',
  addressing: 'path',
  max_bytes: 1 << 30,
};

describe('string settings have a length limit', () => {
  let p: Awaited<ReturnType<typeof planeWithFile>>;
  let root: Client;
  beforeAll(async () => {
    p = await planeWithFile();
    root = await login(p.t.plane.app, ROOT);
  });
  afterAll(async () => {
    await p?.close();
  });

  it.each([
    [
      'network.public_url',
      { network: { ...V, public_url: `http://a.example/${long(SETTING_MAX.url)}` } },
      /public_url must NOT have more than 2048 characters/,
    ],
    [
      'network.listen',
      { network: { ...V, listen: `127.0.0.1:${long(80)}` } },
      /listen must NOT have more than 64 characters/,
    ],
    [
      'network.tls.cert',
      {
        network: { ...V, public_url: 'https://a.example', tls: { mode: 'pem', cert: `/${long(5000)}`, key: '/k.pem' } },
      },
      /cert must NOT have more than 4096 characters/,
    ],
    [
      'network.tls.hosts',
      {
        network: {
          ...V,
          public_url: 'https://a.example',
          tls: { mode: 'self_signed', hosts: ['a.example', long(300)] },
        },
      },
      /hosts\/1 must NOT have more than 253 characters/,
    ],
    [
      'network.tls.hosts (count)',
      {
        network: {
          ...V,
          public_url: 'https://a.example',
          tls: { mode: 'self_signed', hosts: Array.from({ length: 40 }, (_, i) => `h${i}.example`) },
        },
      },
      /hosts must NOT have more than 32 items/,
    ],
    ['log_level', { log_level: long(1000) }, /log_level must NOT have more than 32 characters/],
    [
      'evidence_storage.dir',
      { evidence_storage: { ...E, dir: `/${long(5000)}` } },
      /dir must NOT have more than 4096 characters/,
    ],
    [
      'evidence_storage.access_key',
      { evidence_storage: { ...S3, access_key: long(300), secret_key: 's' } },
      /access_key must NOT have more than 256 characters/,
    ],
    [
      'evidence_storage.bucket',
      { evidence_storage: { ...S3, bucket: long(64) } },
      /bucket must NOT have more than 63 characters/,
    ],
  ])('%s: 400 with the limit; nothing written', async (_name, body, text) => {
    const before = await readFile(p.file, 'utf8');
    const r = await root.req('PATCH', '/api/v1/settings/plane', body);
    expect(r.status, r.text).toBe(400);
    expect(r.body.error).toMatch(text);
    expect(await readFile(p.file, 'utf8')).toBe(before);
  });

  it('the storage test too; a value at the limit passes the schema; a public URL that is no string keeps its code', async () => {
    const r = await root.post('/api/v1/settings/plane/evidence-storage/test', {
      evidence_storage: { ...S3, endpoint: long(300) },
    });
    expect([r.status, r.body.error]).toEqual([
      400,
      expect.stringMatching(/endpoint must NOT have more than 261 characters/),
    ]);
    const atLimit = await root.req('PATCH', '/api/v1/settings/plane', {
      network: { ...V, public_url: `http://a.example/${long(SETTING_MAX.url - 17)}` },
    });
    expect(atLimit.status, atLimit.text).toBe(200);
    expect((await root.req('PATCH', '/api/v1/settings/plane', { network: { ...V, public_url: 42 } })).body).toEqual({
      error: 'invalid_public_url',
    });
    expect((await root.req('PATCH', '/api/v1/settings/plane', { network: V })).status).toBe(200);
  });

  it('plane.toml: the same limits at start', () => {
    const text = `[network]\npublic_url = "http://a.example/${long(3000)}"\n[evidence_storage]\nbackend = "s3"\nendpoint = "s3.example.org"\nbucket = "${long(70)}"\nmax_bytes = 1073741824\n`;
    let problems: string[] = [];
    try {
      parsePlaneConfig({ text, configFile: null, env: {}, dataDir: '/srv/argus' });
    } catch (e) {
      problems = (e as ConfigError).problems;
    }
    expect(problems).toEqual(
      expect.arrayContaining([
        '[network] public_url must be at most 2048 characters',
        '[evidence_storage] bucket must be at most 63 characters',
      ]),
    );
  });
});
