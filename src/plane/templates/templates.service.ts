import { iso } from '../../common/time.js';
import { v7 as uuidv7 } from 'uuid';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import { readScope, writeScope } from '../rights/org-scope.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { OrgsService } from '../orgs/orgs.service.js';
import { checkDoc, checkSystemOverride, type TemplateDoc } from './template.doc.js';
import type { TemplateCache } from './template.cache.js';
import { templatesStore, type TemplateRecord } from './templates.store.js';

// The record type other domains use, so that they import this service and never the store.
export type { TemplateRecord } from './templates.store.js';

/** Document 2: "catalog at most 512 templates" per organisation, whatever max_event_templates says. */
export const CATALOG_MAX = 512;
export const MATCH_WINDOW_DAYS = 7;
const DAY_MS = 86_400_000;

/**
 * The hook of saved reports and widgets (their own issue): the analytics fields of a template
 * still used by one. Until reports exist nothing is in use, so analytics_template_in_use never
 * fires; the reports domain replaces this with its own lookup.
 */
export type AnalyticsUse = (db: Db, templateId: string) => Promise<Set<string>>;
export const noAnalyticsUse: AnalyticsUse = async () => new Set();

/** Detector ids of an organisation (null: all) seen since `since` that match a mask (the events domain answers). */
export type RecentDetectors = (
  orgId: string | null,
  mask: string,
  since: Date,
) => Promise<{ detectors: string[]; distinct: number }>;

export function templateJson(r: TemplateRecord) {
  return {
    id: r.id,
    org_id: r.org_id,
    name: r.name,
    detector_match: r.detector_match,
    version: r.version,
    doc: r.doc,
    system: r.system,
    enabled: r.enabled,
    unknown_fields: r.unknown_fields,
    updated_at: iso(r.updated_at),
  };
}

/** Names are 1..128 characters after trimming, without control characters. */
function checkName(raw: unknown): string {
  const name = typeof raw === 'string' ? raw.trim() : '';
  // eslint-disable-next-line no-control-regex
  if (name.length < 1 || name.length > 128 || /[\u0000-\u001f\u007f]/.test(name)) throw errors.badRequest('bad_name');
  return name;
}

/** JSON with sorted keys: a stored document comes back from jsonb with its keys reordered. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object')
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** Fields of `fields` whose definition differs between two documents (removed or changed). */
function changedFields(before: TemplateDoc, after: TemplateDoc | null): Set<string> {
  const now = new Map((after?.fields ?? []).map((f) => [f.key, canonical(f)]));
  return new Set((before.fields ?? []).filter((f) => now.get(f.key) !== canonical(f)).map((f) => f.key));
}

/** Event templates (document 2, Templates): administrators; system templates shipped by migration. */
export class TemplatesService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly orgs: OrgsService,
    private readonly audit: AuditService,
    private readonly cache: TemplateCache,
    private readonly recent: RecentDetectors,
    private readonly analyticsUse: AnalyticsUse = noAnalyticsUse,
  ) {}

  async list(p: Principal, q: ListArgs) {
    const orgId = readScope(p, q.org);
    const limit = q.limit ?? DEFAULT_LIMIT;
    return pageOf(await templatesStore.list(this.db, { orgId, after: q.after ?? null, limit }), limit, templateJson);
  }

  validate(body: { doc: unknown }) {
    const c = checkDoc(body.doc, { system: false });
    return {
      valid: true as const,
      detector_match: c.doc.detector_match,
      document_bytes: c.document_bytes,
      unknown_fields: c.unknown_fields,
    };
  }

  async create(p: Principal, body: { name: unknown; doc: unknown; org_id?: string | null }) {
    const orgId = writeScope(p, body.org_id);
    const name = checkName(body.name);
    const c = checkDoc(body.doc, { system: false });
    const row = await this.db.transaction().execute(async (trx) => {
      const limits = await this.orgs.lockLimits(trx, orgId);
      if (!limits) throw errors.badRequest('unknown_org');
      const count = await templatesStore.countInOrg(trx, orgId);
      if (count >= CATALOG_MAX || (limits.max_event_templates !== null && count >= limits.max_event_templates)) {
        throw errors.quotaReached('max_event_templates_reached');
      }
      if (await templatesStore.nameTaken(trx, orgId, name)) throw errors.alreadyExists();
      const t = await templatesStore.insert(
        trx,
        {
          id: uuidv7(),
          org_id: orgId,
          name,
          detector_match: c.doc.detector_match,
          doc: c.doc,
          system: false,
          enabled: true,
          unknown_fields: c.unknown_fields,
        },
        new Date(this.clock.now()),
      );
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId,
        action: 'template.create',
        objectType: 'template',
        objectId: t.id,
        objectName: name,
        params: { name, detector_match: t.detector_match, org_id: orgId },
      });
      await templatesStore.announce(trx, orgId);
      return t;
    });
    this.cache.drop(orgId);
    return templateJson(row);
  }

  /** A system template is visible to any administrator, an organisation's only to its administrators. */
  private visible(p: Principal, t: TemplateRecord | undefined): TemplateRecord {
    if (!t || (!t.system && p.role !== 'superadmin' && t.org_id !== p.orgId)) throw errors.notFound();
    return t;
  }

  /** The enabled templates that apply to an organisation's events: its own and the system ones (analytics catalog and fields). */
  enabledFor(orgId: string): Promise<TemplateRecord[]> {
    return templatesStore.forIntake(this.db, orgId);
  }

  /** The template a card names, from the cache (dropped by every change, here or in another process). */
  async byId(id: string): Promise<TemplateRecord | undefined> {
    return this.cache.byId(id);
  }

  async get(p: Principal, rawId: string) {
    return templateJson(this.visible(p, await templatesStore.get(this.db, requireUuid(rawId))));
  }

  async update(p: Principal, rawId: string, body: { name?: unknown; doc?: unknown; enabled?: boolean }) {
    const id = requireUuid(rawId);
    const row = await this.db.transaction().execute(async (trx) => {
      const before = this.visible(p, await templatesStore.get(trx, id, { lock: true }));
      let next: { name: string; doc: TemplateDoc; detector_match: string; enabled: boolean; unknown_fields: string[] };
      if (before.system) {
        if (p.role !== 'superadmin') throw errors.systemTemplateSuperadminOnly();
        if (body.enabled !== undefined || (body.name !== undefined && body.name !== before.name))
          throw errors.badRequest('system_template_fields_readonly');
        const override = checkSystemOverride(body.doc);
        next = {
          name: before.name,
          doc: { ...before.doc, ...override },
          detector_match: before.detector_match,
          enabled: before.enabled,
          unknown_fields: before.unknown_fields,
        };
      } else {
        const name = body.name === undefined ? before.name : checkName(body.name);
        const c = body.doc === undefined ? null : checkDoc(body.doc, { system: false });
        if (c) {
          const changed = changedFields(before.doc, c.doc);
          const used = changed.size ? await this.analyticsUse(trx, id) : new Set<string>();
          if ([...changed].some((k) => used.has(k))) throw errors.analyticsTemplateInUse();
        }
        if (
          name.toLowerCase() !== before.name.toLowerCase() &&
          (await templatesStore.nameTaken(trx, before.org_id, name, id))
        )
          throw errors.alreadyExists();
        next = {
          name,
          doc: c?.doc ?? before.doc,
          detector_match: c?.doc.detector_match ?? before.detector_match,
          enabled: body.enabled ?? before.enabled,
          unknown_fields: c?.unknown_fields ?? before.unknown_fields,
        };
      }
      const t = await templatesStore.update(trx, id, next, new Date(this.clock.now()));
      const changed = (['name', 'doc', 'enabled'] as const).filter((k) => body[k] !== undefined);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'template.update',
        objectType: 'template',
        objectId: id,
        objectName: t.name,
        params: { changed, version: t.version, system: t.system, detector_match: t.detector_match },
      });
      await templatesStore.announce(trx, before.org_id);
      return t;
    });
    this.cache.drop(row.org_id ?? '*');
    return templateJson(row);
  }

  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    const orgId = await this.db.transaction().execute(async (trx) => {
      const before = this.visible(p, await templatesStore.get(trx, id, { lock: true }));
      if (before.system) throw errors.systemTemplateReadonly();
      if ((await this.analyticsUse(trx, id)).size) throw errors.analyticsTemplateInUse();
      await templatesStore.delete(trx, id);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: before.org_id,
        action: 'template.delete',
        objectType: 'template',
        objectId: id,
        objectName: before.name,
        params: { detector_match: before.detector_match },
      });
      await templatesStore.announce(trx, before.org_id);
      return before.org_id!;
    });
    this.cache.drop(orgId);
    return { id, deleted: true as const };
  }

  /**
   * Detector ids seen in the last 7 days that the template's mask matches: of the template's
   * organisation, or for a system template of the caller's (a superadmin: `org`, or all).
   */
  async matches(p: Principal, rawId: string, q: { org?: string }) {
    const t = this.visible(p, await templatesStore.get(this.db, requireUuid(rawId)));
    let orgId = readScope(p, q.org);
    if (!t.system) {
      if (orgId !== null && orgId !== t.org_id) throw errors.crossOrg();
      orgId = t.org_id;
    }
    const r = await this.recent(orgId, t.detector_match, new Date(this.clock.now() - MATCH_WINDOW_DAYS * DAY_MS));
    return { window_days: MATCH_WINDOW_DAYS, detectors: r.detectors, distinct: r.distinct };
  }
}
