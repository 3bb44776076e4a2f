import type { Db } from '../db/database.js';
import type { PlaneConfig } from '../config/config.js';
import type { AuditService } from '../audit/audit.service.js';
import type { PlaneLogService } from '../logs/logs.service.js';
import { noJobs, type DomainParts } from '../http/module.js';
import { SettingsService } from './settings.service.js';
import type { SettingsStats } from './settings.reply.js';
import { settingsRoutes } from './settings.routes.js';
import type { CertificateDescription } from '../tls/tls.types.js';

/** Control-plane settings (superadmin): after the log domain (a log level applies live through it). */
export function createSettings(deps: {
  db: Db;
  config: PlaneConfig;
  audit: AuditService;
  logs: PlaneLogService;
  /** the evidence storage's stats, read from the domains that own them */
  stats: SettingsStats;
  certificate: () => CertificateDescription;
  lockWaitMs?: number;
}): DomainParts & { settings: SettingsService } {
  const settings = new SettingsService(
    deps.db,
    deps.config,
    deps.audit,
    deps.logs,
    deps.stats,
    deps.certificate,
    deps.lockWaitMs,
  );
  return { settings, routes: { superadmin: (app) => settingsRoutes(app, { settings }) }, jobs: noJobs };
}
