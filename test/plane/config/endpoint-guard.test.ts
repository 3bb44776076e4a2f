import { describe, expect, it } from 'vitest';
import { isRefusedAddress, isRefusedEndpoint } from '../../../src/plane/config/endpoint-guard.js';
import { parsePlaneConfig } from '../../../src/plane/config/config.js';

// Issue 25, finding 4: the s3 endpoint guard is read through a URL parser and an IP library, so
// every notation of a link-local or metadata address is one address.

describe('the s3 endpoint guard', () => {
  it.each([
    '[0:0:0:0:0:ffff:a9fe:a9fe]',
    '[::ffff:0:a9fe:a9fe]',
    '[fd00:0ec2::254]',
    '[FD00:EC2:0::254]:80',
    '[fd00:ec2::23]',
    '[::ffff:a9fe:a9fe]:9000',
    '[64:ff9b::a9fe:a9fe]',
    '[64:ff9b:1::a9fe:a9fe]',
    '[2002:a9fe:a9fe::1]',
    '[fe80::1]',
    '[fe80::1%25eth0]',
    '[::]',
    '169.254.169.254',
    '169.254.169.254:80',
    '0xa9fea9fe',
    '2852039166:9000',
    '0251.0376.0251.0376',
    '169.254.43518',
    '0.0.0.0',
    '100.100.100.200',
    'metadata.google.internal',
    'METADATA.GOOGLE.INTERNAL.',
    'instance-data',
  ])('%s is refused', (endpoint) => {
    expect(isRefusedEndpoint(endpoint)).toBe(true);
  });

  it.each([
    '127.0.0.1:9000',
    '[::1]:9000',
    '10.0.0.5',
    '192.168.1.20:9000',
    '[fd12:3456::1]',
    's3.example.org',
    'minio:9000',
    '169.253.255.255',
    '[2002:0a00:0001::1]',
  ])('%s is allowed', (endpoint) => {
    expect(isRefusedEndpoint(endpoint)).toBe(false);
  });

  it('addresses as a resolver answers them', () => {
    for (const a of ['169.254.169.254', 'fe80::1', '::ffff:169.254.169.254', 'fd00:ec2::254'])
      expect(isRefusedAddress(a), a).toBe(true);
    for (const a of ['127.0.0.1', '::1', '10.1.2.3', '2001:db8::1', 'not an address'])
      expect(isRefusedAddress(a), a).toBe(false);
  });

  it('plane.toml: such an endpoint is a start-up problem unless [network] allow_private_targets', () => {
    const text = (allow: boolean) =>
      `[network]\nallow_private_targets = ${allow}\n[evidence_storage]\nbackend = "s3"\nendpoint = "[::ffff:0:a9fe:a9fe]"\nbucket = "b"\nmax_bytes = 1073741824\n`;
    expect(() => parsePlaneConfig({ text: text(false), configFile: null, env: {}, dataDir: '/srv/argus' })).toThrow(
      '[evidence_storage] endpoint is a link-local or metadata address',
    );
    expect(
      parsePlaneConfig({ text: text(true), configFile: null, env: {}, dataDir: '/srv/argus' }).evidence.s3,
    ).toMatchObject({ allowPrivateTargets: true });
  });
});
