import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createSecureContext } from 'node:tls';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { Clock } from '../../common/clock.js';
import { writeFileAtomic } from '../../common/atomic-file.js';
import type { Job } from '../jobs/jobs.js';
import { describe, selfSigned, stillGood } from './certificate.js';
import { obtain } from './acme.js';
import { PemProblem, readPemPair } from './pem.js';
import { ConfigError } from '../config/config.js';
import type { CertificateDescription, KeyPair, TlsOptions } from './tls.types.js';

/** The part of an HTTPS server a new certificate is handed to. */
export interface SecureServer {
  setSecureContext(options: { cert: string; key: string }): void;
}

const sha = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The certificate the plane serves (document 4 §10): none for `off` and `external` (plain HTTP;
 * a proxy in front terminates TLS), the operator's files for `pem` (re-read when they change),
 * a generated one for `self_signed` (kept in store_dir, renewed 30 days before it ends). The
 * running server gets a new certificate without a restart (`setSecureContext`).
 */
export class TlsService {
  private pair: KeyPair | null = null;
  private server: SecureServer | null = null;
  private seen = '';

  constructor(
    private readonly opts: TlsOptions,
    private readonly clock: Clock,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
  ) {}

  /** What the server starts with: null for plain HTTP. */
  async load(): Promise<KeyPair | null> {
    if (this.opts.mode === 'off' || this.opts.mode === 'external') return null;
    if (this.opts.mode === 'pem') this.pair = await this.readPem();
    else if (this.opts.mode === 'self_signed') this.pair = await this.ensureSelfSigned();
    else this.pair = await this.ensureAcme();
    return this.pair;
  }

  attach(server: SecureServer): void {
    this.server = server;
  }

  certificate(): CertificateDescription {
    return describe(this.opts.mode, this.opts.hosts, this.pair?.cert ?? null, this.clock.now(), false);
  }

  /** `pem`: the files, checked every 10 s; `self_signed`: the renewal, checked hourly. */
  jobs(): Job[] {
    if (this.opts.mode === 'pem')
      return [
        {
          name: 'tls.pem_reload',
          everyMs: 10_000,
          budgetMs: 5_000,
          run: async () => {
            await this.reloadPem();
          },
        },
      ];
    if (this.opts.mode === 'self_signed')
      return [
        {
          name: 'tls.self_signed_renewal',
          everyMs: 3_600_000,
          budgetMs: 30_000,
          run: async () => {
            await this.renew();
          },
        },
      ];
    if (this.opts.mode === 'acme')
      return [
        {
          name: 'tls.acme_renewal',
          everyMs: 3_600_000,
          budgetMs: 300_000,
          run: async () => {
            await this.renew();
          },
        },
      ];
    return [];
  }

  /** At start: a pair that cannot be served is a configuration problem (ConfigError: `argus-plane serve` exits 2). */
  private async readPem(): Promise<KeyPair> {
    let pair: KeyPair;
    try {
      pair = await readPemPair(this.opts.cert!, this.opts.key!);
    } catch (err) {
      if (err instanceof PemProblem) throw new ConfigError([`[network.tls] ${err.message}`]);
      throw err;
    }
    this.seen = sha(pair.cert + pair.key);
    return pair;
  }

  /** New files that make a valid pair replace the served one; a broken pair keeps the old and is logged. */
  async reloadPem(): Promise<boolean> {
    let pair: KeyPair;
    try {
      const cert = await readFile(this.opts.cert!, 'utf8');
      const key = await readFile(this.opts.key!, 'utf8');
      if (sha(cert + key) === this.seen) return false;
      createSecureContext({ cert, key });
      pair = { cert, key };
    } catch (err) {
      this.log.warn(
        { err: (err as Error).message },
        'tls: the certificate files do not make a valid pair; the served one stays',
      );
      return false;
    }
    this.seen = sha(pair.cert + pair.key);
    this.use(pair);
    this.log.info({}, 'tls: certificate files changed; now served');
    return true;
  }

  /** Generates (self_signed) or orders (acme) and stores a certificate when none is kept, it does not cover the hosts, or it is due. */
  async renew(): Promise<boolean> {
    const fresh = this.opts.mode === 'acme' ? await this.ensureAcme() : await this.ensureSelfSigned();
    if (this.pair && fresh.cert === this.pair.cert) return false;
    this.use(fresh);
    return true;
  }

  private async ensureSelfSigned(): Promise<KeyPair> {
    const certFile = join(this.opts.storeDir, 'self-signed.crt');
    const keyFile = join(this.opts.storeDir, 'self-signed.key');
    if (existsSync(certFile) && existsSync(keyFile)) {
      const kept = { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
      if (stillGood(kept.cert, this.opts.hosts, this.clock.now())) return kept;
    }
    const made = await selfSigned(this.opts.hosts, this.clock.now());
    await mkdir(this.opts.storeDir, { recursive: true, mode: 0o700 });
    await writeFileAtomic(keyFile, made.key, 0o600);
    await writeFileAtomic(certFile, made.cert, 0o644);
    this.log.info({ hosts: this.opts.hosts }, 'tls: self-signed certificate generated');
    return made;
  }

  private async ensureAcme(): Promise<KeyPair> {
    const certFile = join(this.opts.storeDir, 'acme.crt');
    const keyFile = join(this.opts.storeDir, 'acme.key');
    if (existsSync(certFile) && existsSync(keyFile)) {
      const kept = { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
      if (stillGood(kept.cert, this.opts.hosts, this.clock.now())) return kept;
    }
    const made = await obtain(this.opts);
    await writeFileAtomic(keyFile, made.key, 0o600);
    await writeFileAtomic(certFile, made.cert, 0o644);
    this.log.info({ hosts: this.opts.hosts }, 'tls: certificate obtained from the ACME directory');
    return made;
  }

  private use(pair: KeyPair): void {
    this.pair = pair;
    this.server?.setSecureContext(pair);
  }
}
