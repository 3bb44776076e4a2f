import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { maskUrlPassword } from '../../common/redact.js';
import { errors } from '../errors.js';
import { StreamBody, StreamParams } from '../config/config.schemas.js';
import { actor, changeReply } from '../config/config.routes.js';
import { directive } from '../config/writer.js';
import type { StreamSettings } from '../config/config.types.js';

/** A stream as configured, with what its ingest reports now (null where nothing is known yet). */
function row(ctx: NodeContext, s: StreamSettings) {
  const reg = ctx.streams.get(s.name);
  const st = ctx.media.pipeline.status(s.name);
  return {
    name: s.name, // Camera credentials live in input URLs; the read token may list streams but not learn passwords.
    input: s.input === undefined ? null : maskUrlPassword(s.input), dvr: s.dvr ?? null, on_demand: s.on_demand,
    state: reg?.state ?? 'offline', since_ms: reg?.since_ms ?? null,
    reason: st?.reason ?? null,
    bitrate_kbps: st?.bitrate_kbps ?? null, fps: st?.fps ?? null, resolution: st?.resolution ?? null,
    codec: st?.codec ?? null, video: st?.video ?? null,
    last_error: st?.last_error ?? null, last_error_ms: st?.last_error_ms ?? null,
    viewers: ctx.media.sessions.count(s.name),
    recorded_bytes: ctx.media.dvr.store(s.name)?.bytes ?? null,
  };
}

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

/** Streams as configuration: each change is a new configuration epoch (`via: api`). */
export function streamsRoutes(app: NodeFastify, ctx: NodeContext): void {
  app.get('/api/v1/streams', { schema: { response: { 200: Type.Object({ rows: Type.Array(StreamRow) }) } } }, async () => ({
    rows: ctx.config.config.streams.map((s) => row(ctx, s)),
  }));

  app.put('/api/v1/streams/:name', { schema: { params: StreamParams, body: StreamBody } }, async (req, reply) => {
    const { name } = req.params;
    const existed = ctx.config.config.streams.some((s) => s.name === name);
    const lines = [directive('input', [req.body.input])];
    if (req.body.dvr) lines.push(directive('dvr', [req.body.dvr.storage, req.body.dvr.retention]));
    if (req.body.on_demand) lines.push(directive('on_demand'));
    const result = await ctx.config.edit(actor(req), (t) => t.setBlock('stream', [name], lines));
    const s = ctx.config.config.streams.find((x) => x.name === name);
    reply.code(existed ? 200 : 201);
    return { ...changeReply(result), stream: s ? row(ctx, s) : null };
  });

  app.delete('/api/v1/streams/:name', { schema: { params: StreamParams } }, async (req) => {
    const { name } = req.params;
    if (!ctx.config.config.streams.some((s) => s.name === name)) throw errors.streamNotFound(name);
    return changeReply(await ctx.config.edit(actor(req), (t) => t.setBlock('stream', [name], null)));
  });
}
