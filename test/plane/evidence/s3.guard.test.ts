import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lookup, type LookupAddress } from 'node:dns';
import type { Resolver } from '../../../src/plane/config/endpoint-guard.js';
import { S3EvidenceStorage } from '../../../src/plane/evidence/s3.storage.js';
import { fakeS3 } from './fake-s3.js';

// Issue 25, finding 4: the endpoint is checked again when a connection is made, so a name that
// resolved to an allowed address when the settings were saved cannot lead to a metadata service
// later. The storage is given a resolver where `moved.example` now answers 169.254.169.254 (passed
// in, not a module mock: the suite's workers share modules between files).
const answers: Record<string, LookupAddress[]> = {
  'moved.example': [{ address: '169.254.169.254', family: 4 }],
  'mapped.example': [{ address: '::ffff:a9fe:a9fe', family: 6 }],
  'fine.example': [{ address: '127.0.0.1', family: 4 }],
};
const resolve: Resolver = (host, options, cb) => {
  const a = answers[host];
  if (!a) return lookup(host, options, cb);
  process.nextTick(() => cb(null, a));
};

describe('the s3 storage checks the address at connect time', () => {
  let s3: Awaited<ReturnType<typeof fakeS3>>;
  beforeAll(async () => {
    s3 = await fakeS3();
  });
  afterAll(async () => {
    await s3?.close();
  });
  const port = () => s3.endpoint.split(':')[1];
  const storage = (host: string, allowPrivateTargets = false) =>
    new S3EvidenceStorage(
      {
        endpoint: `${host}:${port()}`,
        bucket: 'evidence',
        region: 'us-east-1',
        https: false,
        addressing: 'path',
        accessKey: 'AK',
        secretKey: 'SK',
        allowPrivateTargets,
      },
      resolve,
    );

  it('a name that resolves to a metadata or link-local address is refused when the socket connects; nothing is sent', async () => {
    for (const host of ['moved.example', 'mapped.example']) {
      const before = s3.requests.length;
      await expect(storage(host).put('k', Buffer.from('x'), 'x')).rejects.toMatchObject({ code: 'EREFUSEDTARGET' });
      expect(s3.requests.length).toBe(before);
    }
  });

  it('a name that resolves to an allowed address connects through the same check', async () => {
    const s = storage('fine.example');
    await s.put('k', Buffer.from('bytes'), 'x');
    expect(await s.exists('k')).toBe(true);
  });

  it('an address refused as written fails every call without a connection, unless allow_private_targets', async () => {
    const before = s3.requests.length;
    const literal = new S3EvidenceStorage({
      endpoint: '[::ffff:0:a9fe:a9fe]',
      bucket: 'evidence',
      region: 'us-east-1',
      https: false,
      addressing: 'path',
      accessKey: null,
      secretKey: null,
    });
    await expect(literal.put('k', Buffer.from('x'), 'x')).rejects.toMatchObject({ code: 'EREFUSEDTARGET' });
    await expect(literal.open('k')).rejects.toMatchObject({ code: 'EREFUSEDTARGET' });
    expect(s3.requests.length).toBe(before);
    // Allowed: the name resolves to the metadata address and the plane goes there (here nowhere: the socket is not made by the test).
    expect(() => storage('moved.example', true)).not.toThrow();
  });
});
