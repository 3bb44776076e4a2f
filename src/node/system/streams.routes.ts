import { Type } from 'typebox';
import { actorOf } from '../gate/levels.js';
import { principalOf } from '../auth/access.hook.js';
import { StreamBody, StreamParams } from '../config/config.schemas.js';
import { changeReply } from '../config/config.routes.js';
import type { NodeFastify } from '../typed.js';
import type { StreamsService } from './streams.service.js';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

const StreamRow = Type.Object({
  name: Type.String(),
  input: Nullable(Type.String()),
  dvr: Nullable(Type.Object({ storage: Type.String(), retention: Type.String() })),
  on_demand: Type.Boolean(),
  state: Type.String(),
  since_ms: Nullable(Type.Integer()),
  reason: Nullable(Type.String()),
  bitrate_kbps: Nullable(Type.Number()),
  fps: Nullable(Type.Number()),
  resolution: Nullable(Type.String()),
  codec: Nullable(Type.String()),
  video: Nullable(Type.String()),
  last_error: Nullable(Type.String()),
  last_error_ms: Nullable(Type.Integer()),
  viewers: Type.Integer(),
  recorded_bytes: Nullable(Type.Integer()),
});

export interface StreamsRoutesDeps {
  streams: StreamsService;
}

/** Streams as configuration: each change is a new configuration epoch (`via: api`). */
export function streamsRoutes(app: NodeFastify, deps: StreamsRoutesDeps): void {
  const { streams } = deps;
  app.get(
    '/api/v1/streams',
    { schema: { response: { 200: Type.Object({ rows: Type.Array(StreamRow) }) } } },
    async () => ({
      rows: streams.list(),
    }),
  );

  app.put('/api/v1/streams/:name', { schema: { params: StreamParams, body: StreamBody } }, async (req, reply) => {
    const r = await streams.put(actorOf(principalOf(req)), req.params.name, req.body);
    reply.code(r.created ? 201 : 200);
    return { ...changeReply(r.result), stream: r.stream };
  });

  app.delete('/api/v1/streams/:name', { schema: { params: StreamParams } }, async (req) => {
    return changeReply(await streams.delete(actorOf(principalOf(req)), req.params.name));
  });
}
