import { createServer, type Server } from 'node:http';
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyError } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Logger } from 'pino';
import { ApiError } from '../common/api-error.js';
import { BUILD, type BuildInfo } from '../common/build-info.js';
import { systemClock, type Clock } from '../common/clock.js';
import { redactUrlParams } from '../common/redact.js';
import { registerAccess } from './auth/access.hook.js';
import { Authorizer } from './auth/authorize.js';
import type { NodeConfig } from './config/config.types.js';
import { ConfigService } from './config/config.service.js';
import { configRoutes } from './config/config.routes.js';
import { errors } from './errors.js';
import { Gate } from './gate/gate.service.js';
import { ClientAddressResolver } from './gate/client-address.js';
import { LoginThrottle, type ThrottleOptions } from './gate/throttle.js';
import { authRoutes } from './gate/auth.routes.js';
import { grantsRoutes } from './grants/grants.routes.js';
import { MediaGrants } from './grants/grants.service.js';
import { SessionKeyRing } from './grants/session-keys.js';
import { LicenseService } from './license/license.service.js';
import { trustedKeys } from './license/trusted-keys.js';
import { NodeMetrics } from './metrics/metrics.service.js';
import { MetricsReport } from './metrics/report.service.js';
import { metricsRoutes } from './metrics/metrics.routes.js';
import { StreamRegistry, StreamsService } from './system/streams.service.js';
import { streamsRoutes } from './system/streams.routes.js';
import { systemRoutes } from './system/system.routes.js';
import { eventsRoutes } from './system/events.routes.js';
import { markStorage } from './system/system.service.js';
import { adminRoutes } from './admin/admin.routes.js';
import { mediaRoutes } from './media/media.routes.js';
import { Thumbnails } from './media/playback/thumbnail.js';
import { MediaService } from './media/media.service.js';
import { joinVodStreamPath } from './media/stream-url.js';
import { Recordings } from './lifecycle/recordings.js';
import { resolveFfmpeg } from './media/ffmpeg.js';
import { MediaPipeline } from './media/ingest/ingest.service.js';
import { DvrService } from './media/dvr/dvr.service.js';
import { ViewerAccess } from './media/viewer/viewer.service.js';
import { ViewerSessions } from './media/viewer/sessions.service.js';
import { Previews } from './media/hls/preview.js';
import { segmentSecs, viewerIdleMs } from './media/tuning.js';
import { sessionsRoutes } from './media/viewer/sessions.routes.js';
import { SourceProbe } from './media/probe/probe.service.js';
import { probeRoutes } from './media/probe/probe.routes.js';
import { LiveFeeds } from './media/live-ws/live-feeds.js';
import { LiveWs } from './media/live-ws/live-ws.service.js';
import { liveWsRoutes, registerWebSocket } from './media/live-ws/live-ws.routes.js';
import { ringOf } from '../common/log-sink.js';
import { makeNodeLogger } from './logs/node-logger.js';
import { logsRoutes } from './logs/logs.routes.js';
import { licenseRoutes } from './license/license.routes.js';
import type { NodeFastify } from './typed.js';

/** Logged URLs lose their `token` and `t` (ticket) query values: credentials must not end up in a log file. */
const logUrl = (url: string): string => redactUrlParams(url, ['token', 't']);

export interface BuildNodeAppOptions {
  configPath: string;
  /** The bytes `config` was parsed from: recorded as the `boot` epoch when new. */
  configText: string;
  config: NodeConfig;
  clock?: Clock;
  logger?: Logger;
  build?: BuildInfo;
  licenseKeys?: string[];
  throttle?: ThrottleOptions;
  /** Environment for media tuning and the ffmpeg lookup (tests); default process.env. */
  env?: NodeJS.ProcessEnv;
  /** The bound of a source probe (tests); default 10 s (document 4 §12). */
  probeTimeoutMs?: number;
}

export interface NodeApp {
  app: NodeFastify;
  services: NodeServices;
  /** Opens every `http` listener; returns their URLs. */
  listen(): Promise<string[]>;
  /** Gives open recordings up to 5 s, then closes listeners. Resolves with recordings that did not close. */
  stop(): Promise<number>;
}

/** The composed services the program entry (main.ts) and tests reach; routes get their own small deps. */
export interface NodeServices {
  log: Logger;
  gate: Gate;
  license: LicenseService;
  config: ConfigService;
  recordings: Recordings;
}

export async function buildNodeApp(opts: BuildNodeAppOptions): Promise<NodeApp> {
  const clock = opts.clock ?? systemClock;
  const build = opts.build ?? BUILD;
  const log = opts.logger ?? makeNodeLogger(opts.config.log_level);
  // The node's log ring (document 4 section 9): fed by the logger when makeNodeLogger built it.
  const logRing = ringOf(log);
  const env = opts.env ?? process.env;
  const ffmpeg = resolveFfmpeg(env);
  log.debug({ ffmpeg: ffmpeg.path, source: ffmpeg.source }, 'ffmpeg located');
  // data_dir is read once: a change applies at the next restart, like the listeners.
  const dataDir = opts.config.data_dir;
  const tmpDir = join(dataDir, 'tmp');

  // State and the services over it, each built once from what is built before it.
  const gate = new Gate(clock, opts.config.auth);
  const addresses = new ClientAddressResolver();
  const throttle = new LoginThrottle(clock, opts.throttle);
  const metrics = new NodeMetrics();
  const grants = new MediaGrants(clock);
  const sessionKeys = new SessionKeyRing(clock);
  const registry = new StreamRegistry(() => clock.now());
  const recordings = new Recordings();
  const idleMs = viewerIdleMs(env);
  // Media runs on the wall clock (ffmpeg stamps segments with it); the injected clock is for credentials.
  const sessions = new ViewerSessions(Date.now, idleMs);
  const dvr = new DvrService(log, Date.now);
  // Live over WebSocket: each ingest run's fMP4 reaches the stream's broadcaster (document 4 section 14).
  const liveFeeds = new LiveFeeds(log);
  const pipeline = new MediaPipeline({
    log,
    now: Date.now,
    registry,
    recordings,
    dvr,
    liveRoot: join(dataDir, 'live'),
    ffmpeg: ffmpeg.path,
    segmentSecs: segmentSecs(env),
    viewers: (s) => sessions.count(s),
    parkAfterMs: idleMs,
    onFmp4: (stream, out, run) => liveFeeds.source(stream, out, run),
  });
  const viewers = new ViewerAccess(clock, grants, sessionKeys);
  const previews = new Previews(ffmpeg.path);
  const probe = new SourceProbe({ ffmpeg: ffmpeg.path, log, timeoutMs: opts.probeTimeoutMs });
  const license = new LicenseService(
    dirname(opts.configPath),
    clock,
    build.build_date,
    opts.licenseKeys ?? trustedKeys(build.profile),
  );

  let mediaSync: Promise<void> = Promise.resolve();
  const config = new ConfigService({
    path: opts.configPath,
    dataDir,
    clock,
    // Hot application: every applied configuration reaches each subsystem here, and only here.
    onApply: (next, prev) => {
      gate.configure(next.auth);
      addresses.configure(next.trusted_proxies);
      sessionKeys.configure(next.session_keys?.secret);
      registry.sync(next.streams);
      // Serialised: a quick second epoch must not overtake the first on its way to the pipeline.
      mediaSync = mediaSync
        .then(() => pipeline.sync(next.streams, next.storages))
        .catch((err: unknown) => log.error({ err }, 'media pipeline sync failed'));
      log.level = next.log_level;
      if (prev && JSON.stringify(prev.listen) !== JSON.stringify(next.listen))
        log.warn('http listeners changed: they take effect at the next restart');
      if (prev && prev.data_dir !== next.data_dir) log.warn('data_dir changed: it takes effect at the next restart');
      if (prev) for (const s of next.storages) void markStorage(s);
    },
  });
  const access = new Authorizer({ gate, license, config, viewers, metrics });
  const media = new MediaService({
    log,
    pipeline,
    dvr,
    sessions,
    viewers,
    previews,
    streams: registry,
    ffmpeg: ffmpeg.path,
    tmpDir,
  });
  const liveWs = new LiveWs({ feeds: liveFeeds, pipeline, sessions, streams: registry });
  const streams = new StreamsService({ config, registry, pipeline, sessions, dvr });
  const report = new MetricsReport({
    build,
    metrics,
    registry,
    config,
    license,
    gate,
    sessionKeys,
    recordings,
    sessions,
    dvr,
    pipeline,
  });

  // Marked before the pipeline creates stream folders in them: only an empty storage is marked.
  await Promise.all(opts.config.storages.map(markStorage));
  await rm(tmpDir, { recursive: true, force: true });
  await config.boot(opts.configText, opts.config);
  await license.load();
  await mediaSync;

  const app: NodeFastify = Fastify({
    loggerInstance: log as FastifyBaseLogger,
    // Request lines are logged by the onResponse hook below, with `token` query values redacted.
    logController: new LogController({ disableRequestLogging: true }),
    trustProxy: false,
    bodyLimit: 256 * 1024,
    return503OnClosing: true,
    // Multi-segment `vod/` stream paths reach the one-segment media routes (the log shows them encoded).
    rewriteUrl: (req) => joinVodStreamPath(req.url ?? '/'),
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  // Every body of this API is JSON, whatever the client calls it; anything else is a 400.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch {
      done(errors.invalidRequest('body is not JSON'), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | ApiError, req, reply) => {
    let e: ApiError;
    if (err instanceof ApiError) e = err;
    else if (err.validation) e = errors.invalidRequest(err.message);
    else if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = errors.payloadTooLarge(req.routeOptions.bodyLimit ?? 0);
    else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500)
      e = new ApiError(err.statusCode, 'invalid_request', { message: err.message });
    else {
      req.log.error({ err, url: logUrl(req.url) }, 'request failed');
      e = err.code === 'ENOSPC' || err.code === 'EDQUOT' ? new ApiError(507, 'storage_full') : errors.internal();
    }
    reply.code(e.status).headers(e.headers).send(e.body());
  });
  app.setNotFoundHandler((_req, reply) => {
    const e = errors.notFound();
    reply.code(e.status).send(e.body());
  });
  app.addHook('onResponse', async (req, reply) => {
    metrics.response(reply.statusCode);
    req.log.debug(
      { method: req.method, url: logUrl(req.url), status: reply.statusCode, ms: Math.round(reply.elapsedTime) },
      'request',
    );
  });

  await registerWebSocket(app);
  registerAccess(app, { addresses, access });
  authRoutes(app, { gate, throttle, metrics, log });
  grantsRoutes(app, { gate, config, grants, sessionKeys, metrics, log });
  configRoutes(app, { config, build, log });
  streamsRoutes(app, { streams });
  systemRoutes(app, { build, license, config, registry, dvr });
  eventsRoutes(app, { registry });
  sessionsRoutes(app, { sessions });
  metricsRoutes(app, { report });
  adminRoutes(app);
  mediaRoutes(app, { media, thumbnails: new Thumbnails({ ffmpeg: ffmpeg.path, store: (s) => dvr.store(s) }) });
  probeRoutes(app, { probe });
  // Live over WebSocket (its own module: the upgrade passes the same access hook as index.m3u8).
  liveWsRoutes(app, { live: liveWs });
  logsRoutes(app, { ring: logRing });
  licenseRoutes(app, { license, buildDate: build.build_date });

  const extra: Server[] = [];
  return {
    app,
    services: { log, gate, license, config, recordings },
    async listen() {
      const [first, ...rest] = opts.config.listen;
      const urls = [await app.listen({ host: first.host, port: first.port })];
      for (const l of rest) {
        // Fastify owns one server; further `http` lines share its routing (and so its gate).
        const server = createServer((req, res) => app.routing(req, res));
        // WebSocket upgrades (live.ws) are taken by the one server the websocket plugin listens on.
        server.on('upgrade', (req, socket, head) => app.server.emit('upgrade', req, socket, head));
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(l.port, l.host, () => resolve());
        });
        extra.push(server);
        urls.push(`http://${l.host.includes(':') ? `[${l.host}]` : l.host}:${l.port}`);
      }
      return urls;
    },
    async stop() {
      const unclosed = await recordings.closeAll();
      if (unclosed > 0) log.warn({ unclosed }, 'recordings did not close within the stop grace');
      await pipeline.close();
      liveFeeds.close();
      await Promise.all(
        extra.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
      await app.close();
      return unclosed;
    },
  };
}
