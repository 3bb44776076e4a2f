import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { ManualClock } from '../harness.js';
import { freePort } from '../../node/helpers/node-process.js';
import { TlsService } from '../../../src/plane/tls/tls.service.js';
import { selfSigned } from '../../../src/plane/tls/certificate.js';

// tls.mode acme (document 4 §10) against Debian's pebble, a real ACME server started here: the
// plane's http-01 responder on acme_listen answers pebble's validation (PEBBLE_VA_ALWAYS_VALID is
// not set), the certificate and the account key are kept, a second start reuses them, and a
// renewal when due orders a new one.

const PEBBLE = '/usr/bin/pebble';
const DAY = 86_400_000;

describe.skipIf(!existsSync(PEBBLE))('acme against pebble', () => {
  let pebble: ChildProcess | undefined;
  let dir = '';
  afterAll(async () => {
    pebble?.kill('SIGTERM');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('obtains a certificate through http-01 on acme_listen, keeps and reuses it, renews it when due', async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-acme-'));
    // pebble serves its directory over HTTPS: a certificate of its own, which the plane is told to trust
    const own = await selfSigned(['localhost', '127.0.0.1'], Date.now());
    await writeFile(join(dir, 'pebble.crt'), own.cert);
    await writeFile(join(dir, 'pebble.key'), own.key);
    const [acmePort, mgmtPort, httpPort] = [await freePort(), await freePort(), await freePort()];
    await writeFile(
      join(dir, 'pebble.json'),
      JSON.stringify({
        pebble: {
          listenAddress: `127.0.0.1:${acmePort}`,
          managementListenAddress: `127.0.0.1:${mgmtPort}`,
          certificate: join(dir, 'pebble.crt'),
          privateKey: join(dir, 'pebble.key'),
          httpPort,
          tlsPort: await freePort(),
          ocspResponderURL: '',
          externalAccountBindingRequired: false,
        },
      }),
    );
    let log = '';
    pebble = spawn(PEBBLE, ['-config', join(dir, 'pebble.json')], {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pebble.stdout!.on('data', (b) => {
      log += b;
    });
    pebble.stderr!.on('data', (b) => {
      log += b;
    });
    const agent = new Agent({ ca: own.cert });
    // A bound for a pebble that never serves its directory, not for its speed (a loaded machine starts it late).
    const deadline = Date.now() + 120_000;
    for (;;) {
      const up = await new Promise<boolean>((resolve) => {
        import('node:https').then(({ get }) =>
          get({ host: '127.0.0.1', port: acmePort, path: '/dir', agent }, (r) => {
            r.resume();
            resolve(r.statusCode === 200);
          }).on('error', () => resolve(false)),
        );
      });
      if (up) break;
      if (Date.now() > deadline) throw new Error(`pebble did not start:\n${log}`);
      await new Promise((r) => setTimeout(r, 200));
    }

    const store = join(dir, 'store');
    const clock = new ManualClock(Date.now());
    const o = {
      mode: 'acme' as const,
      cert: null,
      key: null,
      hosts: ['localhost'],
      storeDir: store,
      acmeContact: 'mailto:ops@example.org',
      acmeListen: `127.0.0.1:${httpPort}`,
      acmeDirectoryUrl: `https://127.0.0.1:${acmePort}/dir`,
      acmeCaFile: join(dir, 'pebble.crt'),
    };
    const quiet = pino({ level: 'silent' });
    const tls = new TlsService(o, clock, quiet);
    const pair = (await tls.load().catch((e: Error) => {
      throw new Error(`${e.message}\n${log.slice(-3000)}`);
    }))!;
    const cert = new X509Certificate(pair.cert);
    expect(cert.subjectAltName).toBe('DNS:localhost');
    expect(cert.issuer).toMatch(/Pebble/);
    expect(tls.certificate()).toMatchObject({
      mode: 'acme',
      automatic_renewal: true,
      status_hint: 'ok',
      certificate: { hosts: ['localhost'] },
    });
    expect((await import('node:fs')).statSync(join(store, 'acme-account.key')).mode & 0o777).toBe(0o600);
    expect(log).toMatch(/validat/i);

    // a second start: the kept certificate, no new order
    const again = new TlsService(o, clock, quiet);
    expect((await again.load())!.cert).toBe(pair.cert);
    // due for renewal: a new certificate from the directory, handed to the running server
    const handed: string[] = [];
    again.attach({
      setSecureContext: (p) => {
        handed.push(p.cert);
      },
    });
    clock.set(Date.parse(cert.validTo) - 29 * DAY);
    expect(await again.renew()).toBe(true);
    expect(handed).toHaveLength(1);
    expect(new X509Certificate(handed[0]!).serialNumber).not.toBe(cert.serialNumber);
    expect(await readFile(join(store, 'acme.crt'), 'utf8')).toBe(handed[0]);
  }); // the suite's bound (240 s): 60 s was less than pebble's start bound and two orders on a loaded machine
});
