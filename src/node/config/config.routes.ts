import { Type } from 'typebox';
import type { FastifyRequest } from 'fastify';
import type { NodeContext, NodeFastify } from '../context.js';
import { actorOf } from '../gate/levels.js';
import { principalOf } from '../gate/gate.hook.js';
import { directive } from './writer.js';
import { ChangeReply, GlobalsBody, HistoryEntrySchema, RollbackBody } from './config.schemas.js';
import type { ApplyResult } from './config.service.js';

const ConfigReply = Type.Object({
  text: Type.String(),
  version: Type.String(),
  build: Type.Record(Type.String(), Type.Unknown()),
  epoch: Type.Integer(),
  hash: Type.String(),
});

export function changeReply(r: ApplyResult): { epoch: number; hash: string; changed: boolean } {
  return { epoch: r.entry.epoch, hash: r.entry.hash, changed: r.changed };
}

export function actor(req: FastifyRequest): string {
  return actorOf(principalOf(req));
}

export function configRoutes(app: NodeFastify, ctx: NodeContext): void {
  const readConfig = async (_req: FastifyRequest, reply: { header(k: string, v: string): unknown }) => {
    // The reply holds every secret of the node: no cache may keep it.
    reply.header('cache-control', 'no-store');
    const entry = ctx.config.epoch;
    return { text: await ctx.config.currentText(), version: ctx.build.version, build: { ...ctx.build }, epoch: entry.epoch, hash: entry.hash };
  };
  app.get('/api/v1/config', { schema: { response: { 200: ConfigReply } } }, readConfig);
  // The plane reaches "its" node through the fleet path; the gate judges it as the config read it is.
  app.get('/api/v1/fleet/self/config', { schema: { response: { 200: ConfigReply } } }, readConfig);

  app.patch('/api/v1/config/globals', { schema: { body: GlobalsBody, response: { 200: ChangeReply } } }, async (req) => {
    const body = req.body;
    const result = await ctx.config.edit(actor(req), (t) => {
      if (body.log_level !== undefined) t.setDirective('log_level', [body.log_level]);
      if (body.cluster_id !== undefined) t.setDirective('cluster_id', body.cluster_id === null ? null : [body.cluster_id]);
      if (body.trusted_proxies !== undefined) t.setDirective('trusted_proxies', body.trusted_proxies);
      if (body.auth !== undefined) {
        const a = body.auth;
        const lines: string[] = [];
        for (const key of ['admin_password', 'session_secret', 'api_read_token', 'api_write_token'] as const) {
          const v = a[key];
          if (v !== undefined) lines.push(directive(key, [v]));
        }
        if (a.admin_ip_bind !== undefined) lines.push(directive('admin_ip_bind', [a.admin_ip_bind ? 'on' : 'off']));
        t.setBlock('auth', [], lines);
      }
    });
    if (body.auth !== undefined) ctx.log.warn({ actor: actor(req) }, 'auth block rewritten through the API');
    return changeReply(result);
  });

  app.get('/api/v1/config/history', { schema: { response: { 200: Type.Array(HistoryEntrySchema) } } }, async () => ctx.config.history.list());

  app.post('/api/v1/config/rollback', {
    schema: { body: RollbackBody, response: { 200: Type.Object({ epoch: Type.Integer(), hash: Type.String(), changed: Type.Boolean(), rolled_from: Type.Integer() }) } },
  }, async (req) => {
    const r = await ctx.config.rollback(req.body.epoch, actor(req));
    return { ...changeReply(r), rolled_from: r.rolled_from };
  });
}
