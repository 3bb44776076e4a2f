import { NodeStreamsReply } from '../../common/node-api.js';
import { actorOf } from '../gate/levels.js';
import { principalOf } from '../auth/access.hook.js';
import { StreamBody, StreamParams } from '../config/config.schemas.js';
import { changeReply } from '../config/config.routes.js';
import type { NodeFastify } from '../typed.js';
import type { StreamsService } from './streams.service.js';

export interface StreamsRoutesDeps {
  streams: StreamsService;
}

/** Streams as configuration: each change is a new configuration epoch (`via: api`). */
export function streamsRoutes(app: NodeFastify, deps: StreamsRoutesDeps): void {
  const { streams } = deps;
  // The reply the plane's sweeper reads (src/common/node-api.ts).
  app.get('/api/v1/streams', { schema: { response: { 200: NodeStreamsReply } } }, async () => ({
    rows: streams.list(),
  }));

  app.put('/api/v1/streams/:name', { schema: { params: StreamParams, body: StreamBody } }, async (req, reply) => {
    const r = await streams.put(actorOf(principalOf(req)), req.params.name, req.body);
    reply.code(r.created ? 201 : 200);
    return { ...changeReply(r.result), stream: r.stream };
  });

  app.delete('/api/v1/streams/:name', { schema: { params: StreamParams } }, async (req) => {
    return changeReply(await streams.delete(actorOf(principalOf(req)), req.params.name));
  });
}
