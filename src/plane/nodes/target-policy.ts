import { isIP } from 'node:net';

/**
 * Addresses the plane (node URLs) and the nodes (camera sources) must not be pointed at unless
 * `[network] allow_private_targets` says so (issue 10, finding 8): link-local addresses and the
 * cloud metadata services, where a URL chosen by an administrator would read the host's cloud
 * credentials. Private (RFC 1918) and loopback addresses stay allowed: nodes live there.
 */

const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
]);

/** IPv4 as a 32-bit number, from the dotted form WHATWG URL produces; null when not IPv4. */
function ipv4(host: string): number | null {
  if (isIP(host) !== 4) return null;
  return host.split('.').reduce((n, o) => n * 256 + Number(o), 0);
}

function forbiddenV4(n: number): boolean {
  return (
    n >>> 16 === 0xa9fe || // 169.254.0.0/16, link-local, AWS/GCP/Azure metadata
    n >>> 24 === 0 || // 0.0.0.0/8 reaches the local host
    n === 0x646464c8
  ); // 100.100.100.200, Alibaba metadata
}

/** The IPv4 address an IPv6 literal embeds (mapped, compatible, NAT64), or null. */
function embeddedV4(v6: string): number | null {
  const m =
    /^(?:::ffff:|::|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(v6) ??
    /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(v6);
  if (!m) return null;
  if (m[2] === undefined) return ipv4(m[1]!);
  return parseInt(m[1]!, 16) * 65536 + parseInt(m[2], 16);
}

/** True when `hostname` (as a URL gives it, any notation) names a forbidden target. */
export function isForbiddenTarget(hostname: string): boolean {
  let host = hostname.toLowerCase().replace(/\.+$/, '');
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  if (METADATA_NAMES.has(host)) return true;
  if (isIP(host) === 6) {
    if (/^fe[89ab][0-9a-f]?:/i.test(host) || host === '::' || host === 'fd00:ec2::254') return true;
    const v4 = embeddedV4(host);
    return v4 !== null && forbiddenV4(v4);
  }
  // Decimal, hex, octal and short IPv4 forms (2852039166, 0xa9fea9fe, 0251.0376.0251.0376,
  // 169.254.43518) normalised as an http URL would, whatever the scheme of the source.
  let normal: string;
  try {
    normal = new URL(`http://${host}/`).hostname;
  } catch {
    return false;
  }
  const n = ipv4(normal);
  return n !== null && forbiddenV4(n);
}
