import { Type } from 'typebox';
import type { NodeContext, NodeFastify } from '../context.js';
import { errors } from '../errors.js';
import { StreamBody, StreamParams } from '../config/config.schemas.js';
import { actor, changeReply } from '../config/config.routes.js';
import { directive } from '../config/writer.js';
import type { StreamSettings } from '../config/config.types.js';

/** Camera credentials live in input URLs; the read token may list streams but not learn passwords. */
export function redactInput(input: string | undefined): string | null {
  if (input === undefined) return null;
  try {
    const u = new URL(input);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return input.replace(/\/\/([^:/@]+):[^@/]*@/, '//$1:***@');
  }
}

function row(s: StreamSettings, state: string) {
  return { name: s.name, input: redactInput(s.input), dvr: s.dvr ?? null, on_demand: s.on_demand, state };
}

const StreamRow = Type.Object({
  name: Type.String(),
  input: Type.Union([Type.String(), Type.Null()]),
  dvr: Type.Union([Type.Object({ storage: Type.String(), retention: Type.String() }), Type.Null()]),
  on_demand: Type.Boolean(),
  state: Type.String(),
});

/** Streams as configuration: each change is a new configuration epoch (`via: api`). */
export function streamsRoutes(app: NodeFastify, ctx: NodeContext): void {
  app.get('/api/v1/streams', { schema: { response: { 200: Type.Object({ rows: Type.Array(StreamRow) }) } } }, async () => ({
    rows: ctx.config.config.streams.map((s) => row(s, ctx.streams.get(s.name)?.state ?? 'offline')),
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
    return { ...changeReply(result), stream: s ? row(s, ctx.streams.get(name)?.state ?? 'offline') : null };
  });

  app.delete('/api/v1/streams/:name', { schema: { params: StreamParams } }, async (req) => {
    const { name } = req.params;
    if (!ctx.config.config.streams.some((s) => s.name === name)) throw errors.streamNotFound(name);
    return changeReply(await ctx.config.edit(actor(req), (t) => t.setBlock('stream', [name], null)));
  });
}
