import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** A snapshot link is valid this long from the moment it is written into a message (document 4 §13). */
export const SNAPSHOT_LINK_SECS = 24 * 3600;
const REF = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export type LinkCheck = 'valid' | 'expired' | 'invalid';

/**
 * The signed links of notification snapshots (document 4 §13: "a signed link valid 24 h"). The
 * signature is an HMAC-SHA256 of `ref.expires` under a key derived from the plane's secret key,
 * so every plane process that shares the data folder's `secret.key` writes and accepts the same
 * links, and a link cannot be stretched or moved to another attachment. Document 2's own
 * attachment routes stay without signed URLs: these links name a route of their own.
 */
export class SnapshotLinks {
  private readonly key: Buffer;

  constructor(
    secretKey: Uint8Array,
    private readonly publicUrl: string,
  ) {
    // A key of its own: the secret key also seals stored secrets, and a use never lends the other its key.
    this.key = Buffer.from(hkdfSync('sha256', secretKey, Buffer.alloc(0), 'argus notification snapshot link v1', 32));
  }

  /** The link to `ref`, valid SNAPSHOT_LINK_SECS from `nowMs`. */
  urlOf(ref: string, nowMs: number): string {
    const expires = Math.floor(nowMs / 1000) + SNAPSHOT_LINK_SECS;
    const url = new URL(`/api/v1/notification-snapshots/${ref}`, this.publicUrl);
    url.searchParams.set('expires', String(expires));
    url.searchParams.set('signature', this.sign(ref, expires));
    return url.toString();
  }

  /** Whether a link's parts are this plane's signature, and still within their time. */
  check(ref: string, expires: string, signature: string, nowMs: number): LinkCheck {
    if (!REF.test(ref) || !/^\d{1,12}$/.test(expires) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
    const want = Buffer.from(this.sign(ref, Number(expires)));
    const got = Buffer.from(signature);
    if (!timingSafeEqual(want, got)) return 'invalid';
    return Number(expires) * 1000 <= nowMs ? 'expired' : 'valid';
  }

  private sign(ref: string, expires: number): string {
    return createHmac('sha256', this.key).update(`${ref}.${expires}`).digest('base64url');
  }
}
