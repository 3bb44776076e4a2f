import { describe, expect, it } from 'vitest';
import { SNAPSHOT_LINK_SECS, SnapshotLinks } from '../../../src/plane/evidence/snapshot-links.js';

// The signed snapshot links of document 4 §13, as pure rules: valid for 24 h from their making,
// bound to one ref and one expiry, and only under the key of the plane that made them.

const KEY = new Uint8Array(32).fill(7);
const REF = '0190c0de-0000-7000-8000-0000000000a1';
const NOW = Date.UTC(2026, 10, 26, 10, 0, 0);

const partsOf = (url: string) => {
  const u = new URL(url);
  return {
    ref: u.pathname.split('/').at(-1)!,
    expires: u.searchParams.get('expires')!,
    signature: u.searchParams.get('signature')!,
    u,
  };
};

describe('snapshot links', () => {
  const links = new SnapshotLinks(KEY, 'https://argus.example/console/');

  it('names the route on the public URL and expires 24 h after it was made', () => {
    const p = partsOf(links.urlOf(REF, NOW + 999));
    expect(p.u.origin + p.u.pathname).toBe(`https://argus.example/api/v1/notification-snapshots/${REF}`);
    expect(Number(p.expires)).toBe(NOW / 1000 + SNAPSHOT_LINK_SECS);
    expect(links.check(p.ref, p.expires, p.signature, NOW)).toBe('valid');
    expect(links.check(p.ref, p.expires, p.signature, NOW + SNAPSHOT_LINK_SECS * 1000 - 1)).toBe('valid');
    expect(links.check(p.ref, p.expires, p.signature, NOW + SNAPSHOT_LINK_SECS * 1000)).toBe('expired');
  });

  it('is invalid with any part changed, under another key, or malformed', () => {
    const p = partsOf(links.urlOf(REF, NOW));
    const other = '0190c0de-0000-7000-8000-0000000000a2';
    expect(links.check(other, p.expires, p.signature, NOW)).toBe('invalid');
    expect(links.check(p.ref, String(Number(p.expires) + 1), p.signature, NOW)).toBe('invalid');
    const flipped = (p.signature[0] === 'A' ? 'B' : 'A') + p.signature.slice(1);
    expect(links.check(p.ref, p.expires, flipped, NOW)).toBe('invalid');
    expect(
      new SnapshotLinks(new Uint8Array(32).fill(8), 'https://argus.example').check(p.ref, p.expires, p.signature, NOW),
    ).toBe('invalid');
    for (const [ref, expires, sig] of [
      [REF.toUpperCase(), p.expires, p.signature],
      [REF, '-1', p.signature],
      [REF, '1e12', p.signature],
      [REF, p.expires, `${p.signature}=`],
      [REF, p.expires, ''],
    ] as const)
      expect(links.check(ref, expires, sig, NOW)).toBe('invalid');
    // An expired link whose signature is wrong is invalid, not expired: nothing is said about a forged link.
    expect(links.check(p.ref, p.expires, flipped, NOW + 2 * SNAPSHOT_LINK_SECS * 1000)).toBe('invalid');
  });
});
