import { Type } from 'typebox';
import type { Logger } from 'pino';
import type { BuildInfo } from '../../common/build-info.js';
import { principalOf } from '../auth/access.hook.js';
import { actorOf } from '../gate/levels.js';
import type { NodeFastify } from '../typed.js';
import { ChangeReply, GlobalsBody, HistoryEntrySchema, RollbackBody } from './config.schemas.js';
import type { ApplyResult, ConfigService } from './config.service.js';

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

export interface ConfigRoutesDeps {
  config: ConfigService;
  build: BuildInfo;
  log: Logger;
}

export function configRoutes(app: NodeFastify, deps: ConfigRoutesDeps): void {
  const { config, build, log } = deps;
  const readConfig = async (_req: unknown, reply: { header(k: string, v: string): unknown }) => {
    // The reply holds every secret of the node: no cache may keep it.
    reply.header('cache-control', 'no-store');
    const entry = config.epoch;
    return {
      text: await config.currentText(),
      version: build.version,
      build: { ...build },
      epoch: entry.epoch,
      hash: entry.hash,
    };
  };
  app.get('/api/v1/config', { schema: { response: { 200: ConfigReply } } }, readConfig);
  // The plane reaches "its" node through the fleet path; the gate judges it as the config read it is.
  app.get('/api/v1/fleet/self/config', { schema: { response: { 200: ConfigReply } } }, readConfig);

  app.patch(
    '/api/v1/config/globals',
    { schema: { body: GlobalsBody, response: { 200: ChangeReply } } },
    async (req) => {
      const actor = actorOf(principalOf(req));
      const result = await config.setGlobals(actor, req.body);
      if (req.body.auth !== undefined) log.warn({ actor }, 'auth block rewritten through the API');
      return changeReply(result);
    },
  );

  app.get('/api/v1/config/history', { schema: { response: { 200: Type.Array(HistoryEntrySchema) } } }, async () =>
    config.history.list(),
  );

  app.post(
    '/api/v1/config/rollback',
    {
      schema: {
        body: RollbackBody,
        response: {
          200: Type.Object({
            epoch: Type.Integer(),
            hash: Type.String(),
            changed: Type.Boolean(),
            rolled_from: Type.Integer(),
            write_token_kept: Type.Boolean(),
          }),
        },
      },
    },
    async (req) => {
      const r = await config.rollback(req.body.epoch, actorOf(principalOf(req)));
      return { ...changeReply(r), rolled_from: r.rolled_from, write_token_kept: r.write_token_kept };
    },
  );
}
