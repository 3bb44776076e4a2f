import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';
import { startPlane, type TestPlane } from '../harness.js';

// Finding 7 of issue 10: [network] trusted_proxies; forwarded headers believed only from them.
const parse = (text: string) => parsePlaneConfig({ text, configFile: null, env: {}, dataDir: '/tmp/argus-test' });

describe('[network] trusted_proxies', () => {
  it('reads addresses and CIDRs; absent means none', () => {
    expect(parse('').trustedProxies).toEqual([]);
    expect(
      parse('[network]\ntrusted_proxies = ["10.0.0.0/8", "::1", "192.168.1.7", "loopback"]').trustedProxies,
    ).toEqual(['10.0.0.0/8', '::1', '192.168.1.7', 'loopback']);
  });

  it('reports a bad entry at start', () => {
    for (const bad of ['"10.0.0.0/33"', '"proxy.example"', '"1.2.3"', '42']) {
      expect(() => parse(`[network]\ntrusted_proxies = [${bad}]`), bad).toThrow(ConfigError);
    }
    expect(() => parse('[network]\ntrusted_proxies = "10.0.0.1"')).toThrow(ConfigError);
  });
});

describe('a plane behind a trusted proxy', () => {
  let t: TestPlane;
  beforeAll(async () => {
    t = await startPlane({
      config: { trustedProxies: ['10.0.0.1/32'], loginThrottle: { attempts: 5, windowSecs: 300 } },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  const fail = (login: string, remote: string, forwarded?: string) =>
    t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { login, password: 'wrong-pass' },
      remoteAddress: remote,
      headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
    });
  const lastIp = async () =>
    (
      await t.db.database.db
        .selectFrom('audit')
        .select(['ip', 'occurred_at'])
        .where('action', '=', 'auth.login_failed')
        .orderBy('occurred_at', 'desc')
        .orderBy('id', 'desc')
        .executeTakeFirstOrThrow()
    ).ip;

  it('audits the forwarded client address from a trusted proxy', async () => {
    expect((await fail('someone', '10.0.0.1', '203.0.113.5')).statusCode).toBe(401);
    expect(await lastIp()).toBe('203.0.113.5');
  });

  it('ignores the header from anyone else', async () => {
    expect((await fail('someone', '10.0.0.2', '203.0.113.6')).statusCode).toBe(401);
    expect(await lastIp()).toBe('10.0.0.2');
  });

  it('throttles each client behind the proxy on its own address', async () => {
    for (let i = 0; i < 20; i++) expect((await fail(`nobody-${i}`, '10.0.0.1', '198.51.100.1')).statusCode).toBe(401);
    expect((await fail('nobody-x', '10.0.0.1', '198.51.100.1')).statusCode).toBe(429);
    // Another client behind the same proxy is not locked out.
    expect((await fail('nobody-y', '10.0.0.1', '198.51.100.2')).statusCode).toBe(401);
  });
});
