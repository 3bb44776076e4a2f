import { iso } from '../../common/time.js';
import { SignJWT } from 'jose';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { NodesService } from '../nodes/nodes.service.js';
import { streamName, type CamerasService } from './cameras.service.js';
import type { PlayRequest } from './cameras.schemas.js';

/**
 * A viewer token only has to reach the node's first playlist request: the node turns it into
 * its own session ticket there (document 4 section 6), so it is kept short.
 */
export const VIEWER_TOKEN_TTL_SECS = 300;

/**
 * POST /api/v1/cameras/{id}/play: a viewer token for the camera's node, signed with the node's
 * `auth_backend_secret` (hs256), for a camera the caller may see. Audited as `view.live` or
 * `view.playback` in the camera's organisation.
 */
export class ViewingService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly cameras: CamerasService,
    private readonly nodes: NodesService,
  ) {}

  async play(
    p: Principal,
    rawId: string,
    body: PlayRequest,
  ): Promise<{ url: string; token: string; expires_at: string }> {
    const camera = await this.cameras.visible(p, rawId);
    const profile = body.profile ?? 'MAIN';
    const intent = body.intent ?? 'live';
    if (profile === 'SUB' && camera.sub_source === null) throw errors.badRequest('bad_profile');
    if (intent === 'live' && (body.from !== undefined || body.duration !== undefined))
      throw errors.badRequest('bad_range');
    if (intent === 'playback' && (body.from === undefined || body.duration === undefined))
      throw errors.badRequest('bad_range');
    const stream = streamName(camera.id, profile);

    const node = await this.nodes.credentials(camera.node_id);
    if (!node) throw errors.notFound();
    // Without the node's hs256 secret the plane cannot sign for it (a node on jwks, or one whose secret was never given).
    if (node.authBackendSecret === null) throw errors.conflict('viewer_secret_unset');

    const now = this.clock.now();
    const exp = Math.floor(now / 1000) + VIEWER_TOKEN_TTL_SECS;
    const token = await new SignJWT({
      typ: 'viewer',
      stream,
      protocols: intent === 'live' ? ['hls', 'ws'] : ['hls'],
      subject_kind: 'user',
      subject_name: p.name,
      camera_id: camera.id,
    })
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setSubject(p.userId)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(exp)
      .sign(new TextEncoder().encode(node.authBackendSecret));
    const url =
      intent === 'live'
        ? `${node.url}/${stream}/index.m3u8`
        : `${node.url}/${stream}/index-${body.from}-${body.duration}.m3u8`;

    await this.db.transaction().execute((trx) =>
      this.audit.record(trx, {
        actor: actorOf(p),
        orgId: camera.org_id,
        nodeId: camera.node_id,
        action: intent === 'live' ? 'view.live' : 'view.playback',
        objectType: 'camera',
        objectId: camera.id,
        objectName: camera.name,
        params: intent === 'live' ? { profile, stream } : { profile, stream, from: body.from, duration: body.duration },
      }),
    );
    return { url, token, expires_at: iso(exp * 1000) };
  }
}
