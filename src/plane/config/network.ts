import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { parseTrustedProxies } from '../http/trusted-proxies.js';
import type { TlsOptions } from '../tls/tls.types.js';
import type { PlaneConfig, PlaneToml } from './config.types.js';

/** [network] and [network.tls]; `listen` is null when its value is broken (a problem is reported). */
export function parseNetwork(
  network: PlaneToml['network'],
  dataDir: string,
  problems: string[],
): Pick<PlaneConfig, 'publicUrl' | 'trustedProxies' | 'allowPrivateTargets' | 'tls'> & {
  listen: PlaneConfig['listen'] | null;
} {
  const listenText = String(network?.listen ?? '127.0.0.1:8080');
  const listen = parseListen(listenText);
  if (!listen) problems.push(`[network] listen must be IP:port, got "${listenText}"`);
  const publicUrl = String(network?.public_url ?? `http://${listenText}`);
  // A public URL derived from a broken listen value is not a second problem.
  if (listen || network?.public_url !== undefined) {
    try {
      new URL(publicUrl);
    } catch {
      problems.push(`[network] public_url is not a URL: "${publicUrl}"`);
    }
  }
  const trustedProxies = parseTrustedProxies(network?.trusted_proxies, problems);
  const allowPrivateTargets = network?.allow_private_targets ?? false;
  if (typeof allowPrivateTargets !== 'boolean') problems.push('[network] allow_private_targets must be true or false');

  const tls = parseTls(network?.tls ?? {}, dataDir, publicUrl, problems);
  // external: a proxy on this machine terminates TLS; its X-Forwarded-* are believed (document 4 §10)
  if (tls.mode === 'external' && !trustedProxies.length) trustedProxies.push('127.0.0.1', '::1');
  return { listen, publicUrl, trustedProxies, allowPrivateTargets: allowPrivateTargets === true, tls };
}

const TLS_MODES: Array<TlsOptions['mode']> = ['off', 'external', 'pem', 'self_signed', 'acme'];

/** [network.tls] (document 1 tls.mode, document 4 §10); the rules of the settings PATCH apply at start too. */
function parseTls(t: Record<string, unknown>, dataDir: string, publicUrl: string, problems: string[]): TlsOptions {
  const mode = (t.mode ?? 'off') as TlsOptions['mode'];
  if (!TLS_MODES.includes(mode)) problems.push(`[network.tls] mode must be one of ${TLS_MODES.join(', ')}`);
  const str = (k: string): string | null => {
    if (t[k] === undefined) return null;
    if (typeof t[k] === 'string' && t[k]) return t[k] as string;
    problems.push(`[network.tls] ${k} must be a non-empty string`);
    return null;
  };
  const hosts = Array.isArray(t.hosts) && t.hosts.every((h) => typeof h === 'string') ? (t.hosts as string[]) : [];
  if (t.hosts !== undefined && !hosts.length && !Array.isArray(t.hosts))
    problems.push('[network.tls] hosts must be a list of host names');
  const opts: TlsOptions = {
    mode,
    cert: str('cert'),
    key: str('key'),
    hosts,
    storeDir: resolve(dataDir, str('store_dir') ?? 'tls'),
    acmeContact: str('acme_contact'),
    acmeListen: str('acme_listen'),
    acmeDirectoryUrl: str('acme_directory_url') ?? 'https://acme-v02.api.letsencrypt.org/directory',
    acmeCaFile: str('acme_ca_file'),
  };
  let scheme = '';
  try {
    scheme = new URL(publicUrl).protocol;
  } catch {
    /* reported with public_url */
  }
  if (scheme && mode === 'off' && scheme !== 'http:')
    problems.push('[network.tls] with mode off the public URL must be http://');
  if (scheme && mode !== 'off' && TLS_MODES.includes(mode) && scheme !== 'https:')
    problems.push(`[network.tls] with mode ${mode} the public URL must be https://`);
  if (mode === 'pem' && (!opts.cert || !opts.key)) problems.push('[network.tls] mode pem requires cert and key');
  // Relative paths would depend on the directory the plane is started from (issue 25); the files themselves are read at start.
  for (const k of ['cert', 'key'] as const)
    if (opts[k] && !isAbsolute(opts[k])) problems.push(`[network.tls] ${k} must be an absolute path`);
  if (mode === 'self_signed' && !hosts.length) problems.push('[network.tls] mode self_signed requires hosts');
  if (mode === 'acme') {
    if (!hosts.length || hosts.some((h) => isIP(h) !== 0))
      problems.push('[network.tls] mode acme requires hosts that are domain names');
    if (!opts.acmeListen || !/^.+:\d{1,5}$/.test(opts.acmeListen))
      problems.push('[network.tls] mode acme requires acme_listen (IP:port)');
  }
  return opts;
}

function parseListen(text: string): { host: string; port: number } | null {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(text);
  if (!m) return null;
  const port = Number(m[2]);
  if (port > 65535) return null;
  const host = m[1]!.replace(/^\[|\]$/g, '');
  if (!host.includes(':') && host.split('.').some((o) => Number(o) > 255)) return null;
  return { host, port };
}
