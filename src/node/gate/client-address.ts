import { BlockList, isIP } from 'node:net';

/**
 * The address a request comes from. X-Forwarded-For is believed only from `trusted_proxies`,
 * walking from the right so that a client cannot choose its address by sending the header
 * itself; without the setting the binding of `admin_ip_bind` fixes on the proxy address.
 */
export class ClientAddressResolver {
  private trusted = new BlockList();
  private any = false;

  configure(cidrs: string[]): void {
    const list = new BlockList();
    for (const cidr of cidrs) {
      const [addr, bits] = cidr.split('/');
      const family = isIP(addr) === 6 ? 'ipv6' : 'ipv4';
      if (bits === undefined) list.addAddress(addr, family);
      else list.addSubnet(addr, Number(bits), family);
    }
    this.trusted = list;
    this.any = cidrs.length > 0;
  }

  resolve(socketAddress: string | undefined, forwardedFor: string | string[] | undefined): string {
    let addr = normalise(socketAddress ?? '');
    if (!this.any || !forwardedFor) return addr;
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : forwardedFor)
      .split(',')
      .map((h) => normalise(h.trim()))
      .filter((h) => isIP(h) !== 0);
    while (this.isTrusted(addr) && hops.length > 0) addr = hops.pop() as string;
    return addr;
  }

  private isTrusted(addr: string): boolean {
    const family = isIP(addr);
    if (family === 0) return false;
    return this.trusted.check(addr, family === 6 ? 'ipv6' : 'ipv4');
  }
}

function normalise(addr: string): string {
  return addr.startsWith('::ffff:') && isIP(addr.slice(7)) === 4 ? addr.slice(7) : addr;
}
