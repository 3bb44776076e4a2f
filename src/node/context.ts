import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import type { Clock } from '../common/clock.js';
import type { BuildInfo } from '../common/build-info.js';
import type { Gate } from './gate/gate.service.js';
import type { ClientAddressResolver } from './gate/client-address.js';
import type { LoginThrottle } from './gate/throttle.js';
import type { NodeMetrics } from './metrics/metrics.service.js';
import type { ConfigService } from './config/config.service.js';
import type { LicenseService } from './license/license.service.js';
import type { MediaGrants } from './grants/grants.service.js';
import type { SessionKeyRing } from './grants/session-keys.js';
import type { StreamRegistry } from './system/streams.service.js';
import type { Recordings } from './lifecycle/recordings.js';
import type { MediaContext } from './media/media.context.js';

export type NodeFastify = FastifyInstance<Server, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** The services of one running node, built once in app.ts and handed to every route module. */
export interface NodeContext {
  clock: Clock;
  log: Logger;
  build: BuildInfo;
  gate: Gate;
  addresses: ClientAddressResolver;
  throttle: LoginThrottle;
  metrics: NodeMetrics;
  config: ConfigService;
  license: LicenseService;
  grants: MediaGrants;
  sessionKeys: SessionKeyRing;
  streams: StreamRegistry;
  recordings: Recordings;
  media: MediaContext;
}
