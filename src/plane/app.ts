import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import pino, { type Logger } from 'pino';
import type { Clock } from '../common/clock.js';
import type { PlaneConfig } from './config/config.js';
import type { Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { DbHealth } from './db/health.js';
import { LiveBus } from './live/bus.js';
import { LiveStreams } from './live/sse.js';
import { AuditRing } from './audit/audit.ring.js';
import { AuditService } from './audit/audit.service.js';
import { auditStore } from './audit/audit.store.js';
import { AuthService } from './auth/auth.service.js';
import { installErrorHandler } from './http/errors.handler.js';
import { installMethodRouting } from './http/routing.js';
import { installValidators } from './http/validation.js';
import { installTextGuard } from './http/safe-text.js';
import { closeWithin, serverTimeouts } from './http/limits.js';
import { trustProxyOption } from './http/trusted-proxies.js';
import { frameworkErrors } from './http/framework-errors.js';
import { redactUrlToken } from './http/query-token.js';
import { registerRoutes } from './routes.js';
import { describeErrors } from './errors.js';
import { InventoryServices } from './inventory.js';
import { JobRunner } from './jobs/jobs.js';
import { SecretBox } from './crypto/secret-box.js';
import { EventServices } from './eventing.js';
import type { EvidenceStorage } from './evidence/evidence.storage.js';
import { Sweeper } from './sweeper/sweeper.service.js';
import { EvidencePressure } from './sweeper/evidence-pressure.js';

export interface PlaneServices {
  health: DbHealth;
  bus: LiveBus;
  streams: LiveStreams;
  ring: AuditRing;
  audit: AuditService;
  auth: AuthService;
  inventory: InventoryServices;
  events: EventServices;
  jobs: JobRunner;
  sweeper: Sweeper;
  pressure: EvidencePressure;
}

export interface Plane {
  app: FastifyInstance;
  services: PlaneServices;
  /** Resolves once migrations, bootstrap and the key are in place (the process answers before). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

export const LOG_REDACT = [
  'req.headers.authorization', 'req.headers.cookie', 'password', '*.password', 'token', '*.token', 'secret', '*.secret',
  'api_token', '*.api_token', 'auth_backend_secret', '*.auth_backend_secret',
];

/** Fastify's request summary, without a session token the feed's query may carry. */
function requestForLog(req: FastifyRequest) {
  return { method: req.method, url: redactUrlToken(req.url), host: req.host, remoteAddress: req.ip, remotePort: req.socket?.remotePort };
}

export function makeLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: LOG_REDACT, censor: '[redacted]' }, serializers: { req: requestForLog } }, destination);
}

/**
 * `secretKey`: 32 bytes that encrypt stored node secrets; main.ts keeps it in `<data dir>/secret.key`.
 * Absent (some tests): a key for this process only, so node secrets stored now do not open after it.
 */
export async function buildApp(deps: {
  config: PlaneConfig; database: Database; clock: Clock; secretKey?: Uint8Array; logger?: Logger;
  /** the evidence storage backend; absent: the one the configuration names */
  evidenceStorage?: EvidenceStorage;
}): Promise<Plane> {
  const { config, database, clock } = deps;
  const log = deps.logger ?? makeLogger(config.logLevel);
  const db = database.db;

  const health = new DbHealth(db, log.child({ part: 'db' }));
  const bus = new LiveBus(database, log);
  const streams = new LiveStreams(config.live, clock);
  const ring = new AuditRing(db, config.live.ringSize, log);
  const audit = new AuditService(db, clock, ring, streams);
  const auth = new AuthService(db, clock, audit, log, { sessionTtlSecs: config.sessionTtlSecs, throttle: config.loginThrottle });
  const inventory = new InventoryServices(db, clock, audit, auth, new SecretBox(deps.secretKey ?? randomBytes(32)), { allowPrivateTargets: config.allowPrivateTargets });
  const events = new EventServices(db, clock, config, audit, inventory, log.child({ part: 'events' }), streams, deps.evidenceStorage);

  const sweeper = new Sweeper(db, clock, config.sweeper, inventory.nodes, events.system, log.child({ part: 'sweeper' }));
  const pressure = new EvidencePressure(db, clock, { ...config.evidencePressure, dir: config.evidence.dir }, events.system);

  auth.subscribe(bus);
  events.templateCache.subscribe(bus);
  ring.start(bus);
  events.startLive(bus);
  auth.onNews((news) => {
    if (news.kind === 'keys_rotated') streams.endAll();
    else if (news.kind === 'user_revoked') streams.endWhere((p) => p.userId === news.user_id);
    else streams.endWhere((p) => p.sessionId === news.sid);
  });

  const app: FastifyInstance = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    trustProxy: trustProxyOption(config.trustedProxies),
    bodyLimit: 1 << 20,
    return503OnClosing: true,
    ...serverTimeouts(config.http),
    frameworkErrors,
  });
  installErrorHandler(app, health);
  installValidators(app);
  installTextGuard(app);
  // One error envelope for the whole API: every documented route answers it for its failures.
  app.addSchema({
    $id: 'ErrorEnvelope', type: 'object', required: ['error'], additionalProperties: true,
    description: 'Error envelope: `error` holds the code; some codes add fields (scope, retry_after).',
    properties: { error: { type: 'string', description: 'One of the catalogue codes', examples: describeErrors().map((e) => e.code) } },
  });
  app.addHook('onRoute', (route) => {
    if (!route.schema || (route.schema as { hide?: boolean }).hide) return;
    const response = (route.schema.response ?? {}) as Record<string, unknown>;
    if (!('default' in response)) route.schema.response = { ...response, default: { $ref: 'ErrorEnvelope#' } };
  });
  installMethodRouting(app);
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-content-type-options', 'nosniff');
    reply.removeHeader('x-powered-by');
    if (req.url.startsWith('/api/') && !String(reply.getHeader('cache-control') ?? '').includes('no-store')) reply.header('cache-control', 'no-store');
    return payload;
  });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Argus control plane', version: '1',
        description: 'Every error body is {error: code, ...}. Codes: ' + describeErrors().map((e) => `${e.status} ${e.code}`).join(', '),
      },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
      'x-error-codes': describeErrors(),
    } as any,
    refResolver: { buildLocalReference: (json, _base, _fragment, i) => String(json.$id ?? `def-${i}`) },
  });

  registerRoutes(app, { health, auth, audit, inventory, events, database });

  const ensureAuditPartitions = async () => {
    const now = clock.now();
    await auditStore.ensurePartitions(db, new Date(now - 31 * 86_400_000), new Date(now + 62 * 86_400_000));
  };
  const jobs = new JobRunner(log.child({ part: 'jobs' }), () => clock.now());
  let readyResolve!: () => void;
  const readyPromise = new Promise<void>((r) => { readyResolve = r; });
  health.onChange((up) => {
    if (!up) return;
    readyResolve();
    // Monthly audit partitions exist a month behind and two ahead, so rows never pile up in
    // the default partition.
    if (!jobs.list().length) {
      jobs.start({ name: 'audit.partitions', everyMs: 6 * 3600_000, budgetMs: 30_000, run: ensureAuditPartitions });
      jobs.start(auth.throttlePruneJob());
      jobs.start(events.partitionsJob());
      jobs.start(events.purge.backgroundJob());
      jobs.start(events.archive.backgroundJob());
      jobs.start(events.pruneJob());
      jobs.start(events.intervalTimeoutsJob());
      if (config.sweeper.enabled) {
        jobs.start(sweeper.job());
        jobs.start(pressure.job(config.sweeper.intervalMs));
      }
      jobs.start(events.searchPendingJob());
    }
  });
  health.startProbe(async () => {
    await migrate(database);
    await ensureAuditPartitions();
    await events.ensurePartitions();
    if (config.bootstrap) await inventory.users.bootstrap(config.bootstrap);
    await auth.loadKey();
    await ring.catchUp();
    await events.ring.settle();
  });

  return {
    app,
    services: { health, bus, streams, ring, audit, auth, inventory, events, jobs, sweeper, pressure },
    ready: () => readyPromise,
    async close() {
      health.stop();
      jobs.stop();
      events.ring.stop();
      streams.endAll();
      await closeWithin(app, config.http.drainMs);
      await bus.close();
    },
  };
}
