import type { Clock } from '../../../common/clock.js';
import { iso } from '../../../common/time.js';
import type { Db } from '../../db/database.js';
import { pgCode } from '../../db/pg-errors.js';
import { QUERY_CANCELED, StatementAbandoned } from '../../db/statement.js';
import { ApiError, errors } from '../../errors.js';
import type { Principal } from '../../http/principal.js';
import { cameraScope } from '../../rights/camera-rights.js';
import { writeScope } from '../../rights/org-scope.js';
import type { TemplatesService } from '../../templates/templates.service.js';
import type { TemplateRecord } from '../../templates/templates.types.js';
import type { TypedField } from '../../templates/template.doc.js';
import { Value } from 'typebox/value';
import { AnalyticsQueryBody, type AnalyticsResult } from './analytics.schemas.js';
import { fingerprint, normalise, type FieldRef, type NormalQuery } from './analytics.query.js';
import { analyticsStore } from './analytics.store.js';
import { bucketLabel } from './analytics.labels.js';
import { AnalyticsSlots, type AnalyticsLimits } from './analytics.gate.js';
import type { PageRead } from '../feed/read-marks.js';

/** Document 2: the catalog lists at most this many templates. */
const CATALOG_MAX = 512;
export const BATCH_MAX = 32;
const KEY_MAX = 128;

/**
 * Where a batch reads and the stream position it answers with, taken before its queries
 * (events/feed/read-marks.ts: a replica in use with a cursor it has read past, else the primary).
 */
interface BatchReads {
  read(): Promise<PageRead>;
}

/** How analytics statements run: their slots and deadlines, and the database's cancel (Database.cancel). */
export interface AnalyticsRunner {
  limits: AnalyticsLimits;
  /** `standby`: the statement runs on a replica (ReadRoute.cancel), else on the primary (Database.cancel) */
  cancel(pid: number, standby: boolean): Promise<void>;
}

/**
 * Analytics over the events (document 2 "Analytics", document 4 §11): every figure computed in
 * one SQL statement over the events table, under the camera-rights rule of the caller. A query or
 * a batch runs under one of the process's analytics slots (429 analytics_busy), each statement
 * under a deadline PostgreSQL enforces (503 analytics_deadline) and cancelled when `signal` fires
 * (the HTTP client went away): issue 25, finding 1, docs/analytics.md.
 */
export class AnalyticsService {
  private readonly slots: AnalyticsSlots;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly templates: TemplatesService,
    private readonly head: BatchReads,
    private readonly runner: AnalyticsRunner,
  ) {
    this.slots = new AnalyticsSlots(runner.limits);
  }

  async catalog(p: Principal, q: { org?: string }) {
    const orgId = writeScope(p, q.org);
    const rows = (await this.templates.enabledFor(orgId))
      .sort((a, b) => Number(b.system) - Number(a.system) || a.name.localeCompare(b.name) || (a.id < b.id ? -1 : 1))
      .slice(0, CATALOG_MAX);
    return {
      templates: rows.map((t) => ({
        id: t.id,
        org_id: t.org_id,
        name: t.name,
        detector_match: t.detector_match,
        title: t.doc.title ?? null,
      })),
      fields: rows.flatMap((t) =>
        (t.doc.fields ?? []).map((f) => ({
          template_id: t.id,
          template_name: t.name,
          detector_match: t.detector_match,
          key: f.key,
          label: f.label ?? f.key,
          type: f.type,
          unit: f.unit ?? null,
          enum_values: f.enum_values ?? null,
        })),
      ),
    };
  }

  /** Checks a query without running it (a saved report's or a widget's definition): the same errors as `query`. */
  async check(p: Principal, body: AnalyticsQueryBody): Promise<void> {
    const q = normalise(body, p.orgId);
    writeScope(p, q.orgId);
    await this.fieldsOf(q);
  }

  /** One query (the route, a saved report's run, a widget): checked first, then run under a slot. */
  async query(p: Principal, body: AnalyticsQueryBody, signal?: AbortSignal): Promise<AnalyticsResult> {
    const q = normalise(body, p.orgId);
    writeScope(p, q.orgId);
    const fields = await this.fieldsOf(q);
    const release = this.slots.take(p.orgId);
    try {
      return await this.run(p, q, fields, this.runner.limits.deadlineMs, signal);
    } finally {
      release();
    }
  }

  /** Slots in use, overall or of one organisation (tests). */
  slotsInUse(orgId?: string): number {
    return this.slots.inUse(orgId);
  }

  private async run(
    p: Principal,
    q: NormalQuery,
    fields: Map<string, TypedField>,
    deadlineMs: number,
    signal?: AbortSignal,
    db: Db = this.db,
  ): Promise<AnalyticsResult> {
    const asOf = new Date(this.clock.now());
    const scope = cameraScope(p, q.orgId);
    const { cells, groups } = await analyticsStore
      .cells(db, q, scope, asOf, { deadlineMs, signal, cancel: this.runner.cancel })
      .catch((err: unknown) => {
        // A client gone away is answered like a time-out: nobody reads it, and a batch stops there.
        if (pgCode(err) === QUERY_CANCELED || err instanceof StatementAbandoned) throw errors.analyticsDeadline();
        throw err;
      });
    const labels = await this.labels(
      q,
      cells.map((c) => c.k),
      fields,
    );
    // One label per distinct bucket, not per cell: a label reads the zone's offset through Intl
    // (~12 µs), and 4,000 cells of 720 hours blocked the event loop, and every other request of
    // the process, for 50 ms.
    const bucketLabels = new Map<number, string>();
    const bucketOf = (b: Date) => {
      let label = bucketLabels.get(b.getTime());
      if (label === undefined) bucketLabels.set(b.getTime(), (label = bucketLabel(b, q.timezone)));
      return label;
    };
    return {
      query_fingerprint: fingerprint(q),
      as_of: iso(asOf.getTime()),
      from: iso(q.from.getTime()),
      to: iso(q.to.getTime()),
      timezone: q.timezone,
      measure: q.measure,
      measure_field: q.measureField,
      group_by: q.groupBy,
      group_field: q.groupField,
      bucket: q.bucket,
      points: cells.map((c) => ({
        bucket: c.b === null ? null : bucketOf(c.b),
        key: c.k,
        label: c.k === null ? null : labels(c.k),
        value: c.v,
        sample_count: c.n,
      })),
      truncated: groups > q.topLimit,
      warnings: q.warnings,
    };
  }

  /**
   * Up to 32 queries; each one's failure is reported in its result. The stream cursor is taken
   * before the first query, so the event stream from it misses nothing the results did not see.
   */
  async batch(p: Principal, body: { queries: Array<{ key: string; query: unknown }> }, signal?: AbortSignal) {
    const n = body.queries.length;
    if (n < 1 || n > BATCH_MAX || body.queries.some((x) => x.key.length < 1 || x.key.length > KEY_MAX))
      throw errors.badRequest('analytics_bad_batch');
    // One slot for the whole batch: its queries run one after another.
    const release = this.slots.take(p.orgId);
    try {
      const { db, cursor: stream_cursor } = await this.head.read();
      const started = this.clock.now();
      const asOf = iso(started);
      const results = [];
      for (const { key, query } of body.queries) {
        try {
          if (!Value.Check(AnalyticsQueryBody, query)) throw errors.badRequest('bad_request');
          const q = normalise(query, p.orgId);
          writeScope(p, q.orgId);
          const fields = await this.fieldsOf(q);
          // The batch's statements share one budget: each gets what is left of it, at most one deadline.
          const left = Math.min(
            this.runner.limits.deadlineMs,
            started + this.runner.limits.batchBudgetMs - this.clock.now(),
          );
          if (left <= 0) throw errors.analyticsDeadline();
          results.push({ key, result: await this.run(p, q, fields, left, signal, db) });
        } catch (err) {
          // The organisation rule, a lost database and a deadline fail the whole batch (document 2).
          if (!(err instanceof ApiError) || err.status === 403 || err.status >= 500) throw err;
          results.push({ key, error: err.code });
        }
      }
      return { results, as_of: asOf, stream_cursor };
    } finally {
      release();
    }
  }

  /** Each field the query names, checked against the organisation's enabled templates. */
  private async fieldsOf(q: NormalQuery): Promise<Map<string, TypedField>> {
    const refs: Array<{ ref: FieldRef; use: 'measure' | 'group' | 'filter'; op?: string; value?: unknown }> = [
      ...(q.measureField ? [{ ref: q.measureField, use: 'measure' as const }] : []),
      ...(q.groupField ? [{ ref: q.groupField, use: 'group' as const }] : []),
      ...q.filters.fields.map((c) => ({ ref: c.field, use: 'filter' as const, op: c.op, value: c.value })),
    ];
    const out = new Map<string, TypedField>();
    if (!refs.length) return out;
    const byId = new Map<string, TemplateRecord>((await this.templates.enabledFor(q.orgId)).map((t) => [t.id, t]));
    for (const r of refs) {
      const t = byId.get(r.ref.template_id);
      if (!t) {
        // Another organisation's template (or none): its fields are the organisation's own.
        const other = await this.templates.byId(r.ref.template_id);
        if (other && !other.system && other.enabled && other.org_id !== q.orgId)
          throw errors.badRequest('analytics_custom_field_requires_org');
        throw errors.badRequest('analytics_field_not_found');
      }
      const f = (t.doc.fields ?? []).find((x) => x.key === r.ref.key);
      if (!f) throw errors.badRequest('analytics_field_not_found');
      if (r.use === 'measure' && q.measure !== 'field_count' && f.type !== 'number')
        throw errors.badRequest('analytics_field_operator_type');
      if (r.use === 'filter') checkCondition(f, r.op!, r.value);
      out.set(`${t.id}/${f.key}`, f);
    }
    return out;
  }

  private async labels(
    q: NormalQuery,
    keys: Array<string | null>,
    fields: Map<string, TypedField>,
  ): Promise<(k: string) => string> {
    const ids = [...new Set(keys.filter((k): k is string => k !== null))];
    if (q.groupBy === 'camera' || q.groupBy === 'node') {
      const names = await analyticsStore.names(this.db, q.groupBy === 'camera' ? 'cameras' : 'nodes', ids);
      return (k) => names.get(k) ?? k;
    }
    if (q.groupBy === 'field') {
      const f = fields.get(`${q.groupField!.template_id}/${q.groupField!.key}`);
      const enumLabels = new Map<string, string>();
      for (const v of f?.enum_values ?? []) {
        if (v && typeof v === 'object' && typeof (v as { value?: unknown }).value === 'string') {
          const e = v as { value: string; label?: string };
          enumLabels.set(e.value, e.label ?? e.value);
        }
      }
      return (k) => enumLabels.get(k) ?? k;
    }
    return (k) => k;
  }
}

/** A field condition's operator and value against the field's type (document 2 error codes). */
function checkCondition(f: TypedField, op: string, value: unknown): void {
  const ordered = op === 'gt' || op === 'gte' || op === 'lt' || op === 'lte';
  if (ordered && f.type !== 'number') throw errors.badRequest('analytics_field_operator_type');
  if (op === 'exists' || op === 'not_exists') return;
  const want = f.type === 'number' ? 'number' : f.type === 'bool' ? 'boolean' : 'string';
  if (typeof value !== want) throw errors.badRequest('analytics_field_filter_type');
}
