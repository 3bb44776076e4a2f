import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import ipaddr from 'ipaddr.js';

/**
 * Where an s3 evidence endpoint may not point unless `[network] allow_private_targets` (issue 10
 * finding 8, issue 25 finding 4): link-local addresses and the cloud metadata services. The
 * host is normalised first (a URL parser, then ipaddr.js), so every notation of one address is
 * one address: `[0:0:0:0:0:ffff:a9fe:a9fe]`, `[::ffff:0:a9fe:a9fe]`, `[fd00:0ec2::254]`,
 * `0xa9fea9fe`. Private and loopback addresses stay allowed (an s3 server on the same network).
 */
const METADATA_NAMES = new Set([
  'metadata.google.internal',
  'metadata.goog',
  'metadata',
  'instance-data',
  'instance-data.ec2.internal',
  'metadata.azure.com',
]);

const V4_REFUSED: Array<[string, number]> = [
  ['169.254.0.0', 16], // link-local: the AWS, GCP, Azure and OpenStack metadata services
  ['0.0.0.0', 8], // "this network": reaches the local host
  ['100.100.100.200', 32], // Alibaba Cloud metadata
];
const V6_REFUSED: Array<[string, number]> = [
  ['fe80::', 10], // link-local
  ['::', 128], // unspecified: the local host
  ['fd00:ec2::', 32], // AWS's own services (metadata fd00:ec2::254, DNS, time)
];
/** Prefixes whose last 32 bits are an IPv4 address: mapped, translated (RFC 6145), compatible, NAT64 (RFC 6052, RFC 8215). */
const V4_IN_LAST_32: Array<[string, number]> = [
  ['::ffff:0:0', 96],
  ['::ffff:0:0:0', 96],
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
];

const within = (a: ipaddr.IPv4 | ipaddr.IPv6, [net, bits]: [string, number]) => {
  const n = ipaddr.parse(net);
  return a.kind() === n.kind() && a.match(n, bits);
};

/** The IPv4 addresses an IPv6 address carries (last 32 bits of the translation prefixes; 6to4's bits 16-47). */
function carriedV4(a: ipaddr.IPv6): ipaddr.IPv4[] {
  const b = a.toByteArray();
  const out: ipaddr.IPv4[] = [];
  if (V4_IN_LAST_32.some((p) => within(a, p))) out.push(new ipaddr.IPv4(b.slice(12, 16)));
  if (within(a, ['2002::', 16])) out.push(new ipaddr.IPv4(b.slice(2, 6)));
  return out;
}

/** True when the address (any notation ipaddr.js reads) is link-local or a metadata service. */
export function isRefusedAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  const a = ipaddr.parse(address);
  if (a.range() === 'loopback') return false; // ::1 is no IPv4-compatible 0.0.0.1
  if (a.kind() === 'ipv4') return V4_REFUSED.some((r) => within(a, r));
  const v6 = a as ipaddr.IPv6;
  return V6_REFUSED.some((r) => within(v6, r)) || carriedV4(v6).some((v4) => V4_REFUSED.some((r) => within(v4, r)));
}

/** The host of an endpoint `host[:port]` as a URL parser reads it (IPv4 shorthand expanded, IPv6 without brackets); null: not a host. */
export function endpointHost(endpoint: string): string | null {
  try {
    const host = new URL(`http://${endpoint}/`).hostname.toLowerCase().replace(/\.+$/, '');
    return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
  } catch {
    return null;
  }
}

/** True when the endpoint's host, as written, is refused: a metadata name or a refused address in any notation. */
export function isRefusedEndpoint(endpoint: string): boolean {
  const host = endpointHost(endpoint);
  return host === null || METADATA_NAMES.has(host) || isRefusedAddress(host);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for the S3 client's sockets: the name is resolved when the connection is made, and
 * refused (EREFUSEDTARGET) when any address is link-local or a metadata service, so a name that
 * resolved elsewhere when the settings were saved cannot lead there later. (A literal address
 * is not looked up by Node: `isRefusedEndpoint` checks it when the storage is built.)
 */
/** Resolves every address of a name, as `dns.lookup` with `all: true` does. */
export type Resolver = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/** `guardedLookup` over another resolver (tests give one whose names answer chosen addresses). */
export function guardedLookupWith(resolve: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, []);
      const bad = addresses.find((a) => isRefusedAddress(a.address));
      if (bad)
        return callback(
          Object.assign(new Error(`${hostname} resolves to a link-local or metadata address`), {
            code: 'EREFUSEDTARGET',
          }),
          [],
        );
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    });
  };
}

export const guardedLookup = guardedLookupWith(dnsLookup as Resolver);
