import { NodeSessionsReply } from '../../../common/node-api.js';
import type { NodeFastify } from '../../typed.js';
import type { ViewerSessions } from './sessions.service.js';

/** `GET /api/v1/sessions`: the live viewers of this node, for the plane's fleet-wide list. */
export interface SessionsRoutesDeps {
  sessions: ViewerSessions;
}

export function sessionsRoutes(app: NodeFastify, deps: SessionsRoutesDeps): void {
  const { sessions } = deps;
  app.get('/api/v1/sessions', { schema: { response: { 200: NodeSessionsReply } } }, async () => {
    const now = Date.now();
    return {
      rows: sessions.list().map((s) => ({
        id: s.id,
        stream: s.stream,
        protocol: s.protocol,
        client_ip: s.client_ip,
        user_agent: s.user_agent,
        sub: s.sub,
        connected_ms: Math.max(0, now - s.started_ms),
        subject_kind: s.subject_kind,
        subject_name: s.subject_name,
        camera_id: s.camera_id,
        started_at_ms: s.started_ms,
      })),
    };
  });
}
