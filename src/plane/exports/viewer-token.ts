import { SignJWT } from 'jose';

/**
 * The token is used at once, by the plane itself; the play route's five minutes are kept anyway,
 * as the margin for a node's clock that runs ahead of the plane's.
 */
export const EXPORT_TOKEN_TTL_SECS = 300;

/**
 * A viewer token for one stream of the camera's node, with the claims of the play route's
 * (cameras/viewing.service.ts: hs256 with the node's `auth_backend_secret`, `typ` viewer, the
 * hls protocol the node's media surface checks), so the node admits the export as it admits
 * playback. It goes from the plane to the node only; no reply carries it, nor the audit.
 */
export function signViewerToken(
  secret: string,
  nowMs: number,
  who: { userId: string; name: string; stream: string; cameraId: string },
): Promise<string> {
  const now = Math.floor(nowMs / 1000);
  return new SignJWT({
    typ: 'viewer',
    stream: who.stream,
    protocols: ['hls'],
    subject_kind: 'user',
    subject_name: who.name,
    camera_id: who.cameraId,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(who.userId)
    .setIssuedAt(now)
    .setExpirationTime(now + EXPORT_TOKEN_TTL_SECS)
    .sign(new TextEncoder().encode(secret));
}
