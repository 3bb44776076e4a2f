import { isIP } from 'node:net';

/**
 * `[network] trusted_proxies` (issue 10, finding 7): the reverse proxies whose X-Forwarded-For
 * the plane believes. Without it every client behind a proxy had the proxy's address: 20 failed
 * logins by anyone locked every login, and the audit's ip was the proxy's. Forwarded headers
 * are believed only from these addresses (Fastify's trustProxy over proxy-addr walks the chain
 * from the socket back and stops at the first address that is not trusted).
 */

// proxy-addr's names for the usual ranges, accepted besides addresses and CIDRs.
const NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** The checked list; problems go to `problems` in the wording of the configuration errors. */
export function parseTrustedProxies(value: unknown, problems: string[]): string[] {
  if (value === undefined) return [];
  const key = '[network] trusted_proxies';
  if (!Array.isArray(value)) {
    problems.push(`${key} must be a list of CIDRs, e.g. ["10.0.0.0/8", "::1"]`);
    return [];
  }
  const out: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || !isCidr(item.trim())) {
      problems.push(`${key}: "${String(item)}" is not an IP address or CIDR`);
      continue;
    }
    out.push(item.trim());
  }
  return out;
}

function isCidr(s: string): boolean {
  if (NAMES.has(s)) return true;
  const [addr, prefix, ...rest] = s.split('/');
  if (rest.length || !addr) return false;
  const v = isIP(addr);
  if (!v) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (v === 4 ? 32 : 128);
}

/** Fastify's `trustProxy`: false (the socket's address is the client) unless proxies are listed. */
export function trustProxyOption(list: string[]): false | string[] {
  return list.length ? list : false;
}
