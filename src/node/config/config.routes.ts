import type { Logger } from 'pino';
import type { BuildInfo } from '../../common/build-info.js';
import { principalOf } from '../auth/access.hook.js';
import { actorOf } from '../gate/levels.js';
import type { NodeFastify } from '../typed.js';
import { GlobalsBody, RollbackBody } from './config.schemas.js';
import { NodeChangeReply, NodeConfigReply, NodeHistoryReply, NodeRollbackReply } from '../../common/node-api.js';
import type { ApplyResult, ConfigService } from './config.service.js';

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
  app.get('/api/v1/config', { schema: { response: { 200: NodeConfigReply } } }, readConfig);
  // The plane reaches "its" node through the fleet path; the gate judges it as the config read it is.
  app.get('/api/v1/fleet/self/config', { schema: { response: { 200: NodeConfigReply } } }, readConfig);

  app.patch(
    '/api/v1/config/globals',
    { schema: { body: GlobalsBody, response: { 200: NodeChangeReply } } },
    async (req) => {
      const actor = actorOf(principalOf(req));
      const result = await config.setGlobals(actor, req.body);
      if (req.body.auth !== undefined) log.warn({ actor }, 'auth block rewritten through the API');
      return changeReply(result);
    },
  );

  app.get('/api/v1/config/history', { schema: { response: { 200: NodeHistoryReply } } }, async () =>
    config.history.list(),
  );

  app.post(
    '/api/v1/config/rollback',
    {
      schema: {
        body: RollbackBody,
        response: { 200: NodeRollbackReply },
      },
    },
    async (req) => {
      const r = await config.rollback(req.body.epoch, actorOf(principalOf(req)));
      return { ...changeReply(r), rolled_from: r.rolled_from, write_token_kept: r.write_token_kept };
    },
  );
}
