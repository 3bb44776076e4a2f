import { randomBytes } from 'node:crypto';
import type pino from 'pino';
import type { Logger } from 'pino';
import type { Clock } from '../common/clock.js';
import type { PlaneConfig } from './config/config.js';
import type { Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { DbHealth } from './db/health.js';
import { primaryReads } from './db/replicas.js';
import { LiveBus } from './live/bus.js';
import { LiveStreams } from './live/sse.js';
import type { PlaneApp } from './http/typed.js';
import { createServer } from './http/server.js';
import { closeWithin } from './http/limits.js';
import { registerRoutes } from './routes.js';
import { JobRunner, type Job } from './jobs/jobs.js';
import { SecretBox } from './crypto/secret-box.js';
import { createEvents, eventDetectors, eventFrames } from './events/index.js';
import type { AnalyticsLimits } from './events/analytics/analytics.gate.js';
import { createModuleTokens } from './module-tokens/module-tokens.module.js';
import { createTemplates } from './templates/templates.module.js';
import type { EvidenceStorage } from './evidence/evidence.storage.js';
import { createEvidence } from './evidence/evidence.module.js';
import { createAudit } from './audit/audit.module.js';
import { createAuth } from './auth/auth.module.js';
import { createOrgRemoval, createOrgs } from './orgs/orgs.module.js';
import { createGrantsReset, createRights } from './rights/rights.module.js';
import { createUsers } from './users/users.module.js';
import { createTags } from './tags/tags.module.js';
import { createUsage } from './usage/usage.module.js';
import { createNodes } from './nodes/nodes.module.js';
import { createCameras } from './cameras/cameras.module.js';
import { createPreferences } from './preferences/preferences.module.js';
import { createNotifications } from './notifications/notifications.module.js';
import { createExports } from './exports/exports.module.js';
import { createSweeper } from './sweeper/sweeper.module.js';
import { createMonitor } from './monitor/monitor.module.js';
import { createService } from './service/service.module.js';
import { createNodeOps } from './node-ops/node-ops.module.js';
import { createViewerSessions } from './viewer-sessions/viewer-sessions.module.js';
import { createLogs } from './logs/logs.module.js';
import { analyticsTemplateUse, createDashboards } from './dashboards/dashboards.module.js';
import { createSettings } from './settings/settings.module.js';
import { createConsole } from './console/console.module.js';
import { TlsService, type SecureServer } from './tls/tls.service.js';
import { claimEvidenceAtStart } from './evidence/evidence-start.js';
import type { PlaneServices } from './plane-services.js';
import { makePlaneLogger } from './logs/plane-logger.js';
import { ringOf } from '../common/log-sink.js';

export type { PlaneServices };

export interface Plane {
  app: PlaneApp;
  services: PlaneServices;
  /** Resolves once migrations, bootstrap and the key are in place and the jobs started (the process answers before). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** The plane's logger; its lines are also captured in the control-plane log ring (logs/plane-logger.ts). */
export function makeLogger(level: string, destination?: pino.DestinationStream): Logger {
  return makePlaneLogger(level, destination);
}

/**
 * `secretKey`: 32 bytes that encrypt stored node secrets; main.ts keeps it in `<data dir>/secret.key`.
 * Absent (some tests): a key for this process only, so node secrets stored now do not open after it.
 */
export async function buildApp(deps: {
  config: PlaneConfig;
  database: Database;
  clock: Clock;
  secretKey?: Uint8Array;
  logger?: Logger;
  /** the evidence storage backend; absent: the one the configuration names */
  evidenceStorage?: EvidenceStorage;
  /** the built console (dist/console); absent: the one beside this build */
  consoleRoot?: string;
  /** how long a settings edit waits for the settings lock (document 1: 10 s; tests shorten it) */
  settingsLockWaitMs?: number;
  /** analytics' slots and deadline (default: from the pool's size; tests shorten them) */
  analyticsLimits?: Partial<AnalyticsLimits>;
}): Promise<Plane> {
  const { config, database, clock } = deps;
  const log = deps.logger ?? makeLogger(config.logLevel);
  const { db, reads = primaryReads(database.db) } = database;
  const secretKey = deps.secretKey ?? randomBytes(32);
  // Before anything starts: an evidence folder that is not the plane's stops the start (issue 25).
  await claimEvidenceAtStart(config, log.child({ part: 'evidence' }));

  const health = new DbHealth(db, log.child({ part: 'db' }), { heartbeat: () => database.heartbeat() });
  const bus = new LiveBus(database, log);
  const streams = new LiveStreams(config.live, clock);

  // Each domain is built by its factory from the results of the ones before it: the order is
  // the order of the arguments, and nothing is assigned to a service after its construction.
  const auditDomain = createAudit({ db, readDb: reads.db, clock, ringSize: config.live.ringSize, streams, log });
  const { audit, ring } = auditDomain;
  const authDomain = createAuth({ db, clock, audit, log, config });
  const { auth } = authDomain;
  const orgsDomain = createOrgs({ db, clock, audit });
  const { orgs } = orgsDomain;
  const usersDomain = createUsers({ db, clock, orgs, audit, auth, grants: createGrantsReset() });
  const { users } = usersDomain;
  const tagsDomain = createTags({ db, orgs, audit });
  const { tags } = tagsDomain;
  const nodesDomain = createNodes({
    db,
    clock,
    audit,
    box: new SecretBox(secretKey),
    allowPrivateTargets: config.allowPrivateTargets,
  });
  const { nodes, nodeClient } = nodesDomain;
  const camerasDomain = createCameras({
    db,
    clock,
    audit,
    orgs,
    nodes,
    tags,
    log: log.child({ part: 'cameras' }),
    nodeTimeoutMs: config.sweeper.timeoutMs,
    nodeClient,
  });
  const { cameras, viewing } = camerasDomain;
  const preferencesDomain = createPreferences({ db, clock, cameras });
  const exportsDomain = createExports({ db, clock, config, audit, cameras, nodes, nodeClient, preferencesDomain, log });
  const rightsDomain = createRights({ db, audit, users, cameras, tags });
  const { grants } = rightsDomain;
  const moduleTokensDomain = createModuleTokens({ db, clock, orgs, audit });
  const { moduleTokens } = moduleTokensDomain;
  const templatesDomain = createTemplates({
    db,
    clock,
    orgs,
    audit,
    recentDetectors: eventDetectors(db),
    analyticsUse: analyticsTemplateUse(db),
  });
  const { templates, templateCache } = templatesDomain;
  const evidenceDomain = createEvidence({
    db,
    clock,
    config,
    orgs,
    audit,
    log: log.child({ part: 'evidence' }),
    storage: deps.evidenceStorage,
    secretKey,
  });
  const { evidence, previews, snapshots } = evidenceDomain;
  // Before the event domains: the event log writes the deliveries of new events through its outbox.
  const notifications = createNotifications({
    ...deps,
    secretKey,
    db,
    audit,
    cameras,
    tags,
    log,
    bus,
    snapshots,
    eventFrames,
  });
  const events = createEvents({
    db,
    clock,
    config,
    log: log.child({ part: 'events' }),
    audit,
    orgs,
    moduleTokens,
    templates,
    templateCache,
    streams,
    evidence,
    database,
    analyticsLimits: deps.analyticsLimits,
    outbox: notifications.outbox,
    reads,
  });
  // Last: the deletion of an organisation asks every domain that may still occupy it, then archives its event history.
  const orgRemovalDomain = createOrgRemoval({
    db,
    clock,
    audit,
    occupants: [users, cameras, tags],
    archiver: events.archive,
  });
  // Before the sweeper: it hands each sweep's report to `fleet` (its sink).
  const monitorDomain = createMonitor({
    db,
    clock,
    streams,
    cameras,
    poolStats: () => database.poolStats(),
    log: log.child({ part: 'monitor' }),
  });
  const { fleet, sampler, monitor } = monitorDomain;
  const usageDomain = createUsage({ db, readDb: reads.db, orgs, auth, evidence });
  const dashboardsDomain = createDashboards({
    db,
    clock,
    audit,
    usage: usageDomain.usage,
    users,
    analytics: events.analytics,
  });
  const sweeperDomain = createSweeper({
    db,
    clock,
    config,
    nodes,
    cameras,
    users,
    system: events.system,
    log: log.child({ part: 'sweeper' }),
    sink: fleet,
    evidence,
    nodeClient,
  });
  const { sweeper, pressure } = sweeperDomain;
  const serviceDomain = createService({ health, auth, replicas: reads });
  const consoleDomain = createConsole({ root: deps.consoleRoot, nodes, clock });
  const nodeOpsDomain = createNodeOps({ db, audit, nodes, nodeClient });
  const viewerSessionsDomain = createViewerSessions({ clock, nodes, cameras, nodeClient });
  const logsDomain = createLogs({ ring: ringOf(log), log, config, streams });
  // The certificate before the server (made with it; plain HTTP when the mode serves none) and the settings (which describe it).
  const tls = new TlsService(config.tls, clock, log.child({ part: 'tls' }));
  const https = await tls.load();
  // Before the settings: a named job whose last run failed counts in the evidence storage's failed_jobs.
  const jobs = new JobRunner(log.child({ part: 'jobs' }), clock);
  const settingsDomain = createSettings({
    db,
    config,
    audit,
    logs: logsDomain.logs,
    lockWaitMs: deps.settingsLockWaitMs,
    certificate: () => tls.certificate(),
    stats: { evidence, usage: usageDomain.usage, jobs: [events.purge, jobs, previews] },
  });
  const domains = [
    serviceDomain,
    auditDomain,
    authDomain,
    orgsDomain,
    usersDomain,
    tagsDomain,
    nodesDomain,
    camerasDomain,
    preferencesDomain,
    exportsDomain,
    rightsDomain,
    moduleTokensDomain,
    templatesDomain,
    evidenceDomain,
    orgRemovalDomain,
    sweeperDomain,
    monitorDomain,
    usageDomain,
    nodeOpsDomain,
    viewerSessionsDomain,
    logsDomain,
    dashboardsDomain,
    settingsDomain,
    notifications,
    consoleDomain,
  ];

  auth.subscribe(bus);
  moduleTokens.subscribe(bus);
  templateCache.subscribe(bus);
  ring.start(bus);
  events.startLive(bus);
  fleet.start(bus);
  auth.onNews((news) => {
    if (news.kind === 'keys_rotated') streams.endAll();
    else if (news.kind === 'user_revoked') streams.endWhere((p) => p.userId === news.user_id);
    else streams.endWhere((p) => p.sessionId === news.sid);
  });

  const app = await createServer(log, health, { trustedProxies: config.trustedProxies, http: config.http, https });
  if (https) tls.attach(app.server as unknown as SecureServer);
  registerRoutes(app, { health, auth, domains, events, moduleTokens });

  // The named background jobs of every domain; started once, when the start-up work is done.
  const jobList: Job[] = [...domains.flatMap((d) => d.jobs()), ...events.jobs(), ...tls.jobs()];
  const readyPromise = health
    .start(async () => {
      await migrate(database);
      await audit.ensurePartitions();
      await events.ensurePartitions();
      if (config.bootstrap) await users.bootstrap(config.bootstrap);
      await auth.loadKey();
      await ring.catchUp();
      await events.ring.settle();
      await fleet.load();
    })
    .then(() => {
      for (const job of jobList) jobs.start(job);
    });

  return {
    app,
    services: {
      health,
      bus,
      streams,
      ring,
      audit,
      auth,
      orgs,
      orgRemoval: orgRemovalDomain.removal,
      users,
      tags,
      nodes,
      cameras,
      viewing,
      grants,
      moduleTokens,
      templateCache,
      templates,
      evidence,
      previews,
      events,
      notifications,
      jobs,
      sweeper,
      pressure,
      logs: logsDomain.logs,
      fleet,
      sampler,
      monitor,
      usage: usageDomain.usage,
      reports: dashboardsDomain.reports,
      dashboards: dashboardsDomain.dashboards,
      settings: settingsDomain.settings,
    },
    ready: () => readyPromise,
    async close() {
      jobs.stop();
      // Another plane process takes the sweep over at once instead of after the lease runs out.
      if (health.isUp)
        await sweeper.release().catch((err: Error) => log.warn({ err: err.message }, 'sweeper lease not released'));
      health.stop();
      events.stop();
      notifications.stop();
      streams.endAll();
      await closeWithin(app, config.http.drainMs);
      await bus.close();
    },
  };
}
