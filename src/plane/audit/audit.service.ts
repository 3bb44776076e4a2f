import { iso } from '../../common/time.js';
import { stringify } from 'csv-stringify/sync';
import { v7 as uuidv7 } from 'uuid';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../../common/clock.js';
import { maskUrlCredentials } from '../../common/redact.js';
import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import { channels, notify } from '../live/bus.js';
import { LiveStreams } from '../live/sse.js';
import { readScope } from '../rights/org-scope.js';
import { isUuid } from '../http/list.js';
import { isAuditAction, AUDIT_ACTIONS } from './actions.js';
import { auditStore, type AuditFilter, type AuditRow } from './audit.store.js';
import { frameOf, type AuditRing, type AuditFrame } from './audit.ring.js';
import type { Job } from '../jobs/jobs.js';

export interface AuditActor {
  id: string | null;
  name: string;
  role: string;
  orgId: string | null;
  ip: string;
  userAgent: string;
}

export interface AuditEntry {
  actor: AuditActor;
  action: string;
  objectType: string;
  objectId: string | null;
  objectName: string;
  params: Record<string, unknown>;
  /** the organisation the record belongs to, when it is not the actor's (superadmin acting in org B) */
  orgId?: string | null;
  nodeId?: string | null;
  endedAt?: Date | null;
}

export interface AuditQuery {
  org?: string;
  before_ts?: string;
  before_id?: string;
  limit?: number;
  occurred_from?: string;
  occurred_to?: string;
  actor_id?: string;
  action?: string;
  object_type?: string;
  object_id?: string;
  node_id?: string;
  q?: string;
}

const DAY_MS = 86_400_000;
// A record may be closed (extended) at most twice (document 1, audit record states).
const MAX_EXTENSIONS = 2;
// Keys whose values never enter audit params, whatever a caller passes.
const SECRET_KEYS = /pass(word)?|secret|token|api_key|access_key|private/i;

export function scrubParams(params: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(params)) {
    if (SECRET_KEYS.test(k)) out[k] = '[redacted]';
    else if (v && typeof v === 'object' && !Array.isArray(v)) out[k] = scrubParams(v as Record<string, unknown>);
    // A URL's credentials (`user:pass@`, `?pwd=`) never enter the audit, even where a caller forgot to mask them.
    else if (typeof v === 'string') out[k] = maskUrlCredentials(v);
    else if (Array.isArray(v)) out[k] = v.map((i: unknown) => (typeof i === 'string' ? maskUrlCredentials(i) : i));
    else out[k] = v;
  }
  return out;
}

export class AuditService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly ring: AuditRing,
    private readonly streams: LiveStreams,
    /** where audit pages read (ReadRoute.db): they may lag, their stream cursor with them */
    private readonly readDb: Db = db,
  ) {}

  /**
   * Monthly audit partitions exist a month behind and two ahead, so rows never pile up in the
   * default partition. Start-up runs it once; the job `audit.partitions` keeps it so.
   */
  async ensurePartitions(): Promise<void> {
    const now = this.clock.now();
    await auditStore.ensurePartitions(this.db, new Date(now - 31 * DAY_MS), new Date(now + 62 * DAY_MS));
  }

  partitionsJob(): Job {
    return { name: 'audit.partitions', everyMs: 6 * 3600_000, budgetMs: 30_000, run: () => this.ensurePartitions() };
  }

  /**
   * Writes one record inside the caller's transaction. Call it last in the transaction: it
   * takes the stream-order lock, which is held until commit. Answers the record's id (an export's
   * manifest names it).
   */
  async record(trx: Db, e: AuditEntry): Promise<string> {
    const occurredAt = new Date(this.clock.now());
    const row = {
      id: uuidv7({ msecs: occurredAt.getTime() }),
      occurred_at: occurredAt,
      ended_at: e.endedAt ?? null,
      org_id: e.orgId !== undefined ? e.orgId : e.actor.orgId,
      actor_id: e.actor.id,
      actor_name: e.actor.name.slice(0, 256),
      actor_role: e.actor.role,
      ip: e.actor.ip,
      user_agent: e.actor.userAgent.slice(0, 512),
      action: e.action,
      object_type: e.objectType.slice(0, 64),
      object_id: e.objectId,
      object_name: e.objectName.slice(0, 256),
      params: scrubParams(e.params),
      node_id: e.nodeId ?? null,
    };
    if (!isAuditAction(row.action)) throw new Error(`audit action outside the vocabulary: ${row.action}`);
    const seq = await auditStore.insert(trx, row);
    await notify(trx, channels.audit, JSON.stringify(frameOf({ ...row, seq }, false)));
    return row.id;
  }

  /** Closes a begun record; its `updated: true` frame reaches every stream. */
  async close(trx: Db, id: string, occurredAt: Date): Promise<boolean> {
    const row = await auditStore.close(trx, id, occurredAt, new Date(this.clock.now()), MAX_EXTENSIONS);
    if (!row) return false;
    await notify(trx, channels.audit, JSON.stringify(frameOf(row, true)));
    return true;
  }

  actions(): { rows: string[] } {
    return { rows: [...AUDIT_ACTIONS] };
  }

  private filter(p: Principal, q: AuditQuery, limit: number): AuditFilter {
    const orgId = readScope(p, q.org);
    if ((q.before_ts === undefined) !== (q.before_id === undefined)) throw errors.badRequest('bad_audit_cursor');
    const from = q.occurred_from !== undefined ? new Date(q.occurred_from) : null;
    const to = q.occurred_to !== undefined ? new Date(q.occurred_to) : null;
    if (from && to && from.getTime() > to.getTime()) throw errors.badRequest('bad_audit_range');
    if (q.action !== undefined && !isAuditAction(q.action)) throw errors.badRequest('bad_audit_action');
    if (q.object_type !== undefined && [...q.object_type].length > 64) throw errors.badRequest('bad_audit_object_type');
    let words: string[] = [];
    if (q.q !== undefined) {
      const len = [...q.q].length;
      if (len < 2 || len > 128) throw errors.badRequest('audit_search_must_be_2_to_128_chars');
      if (!from) throw errors.badRequest('audit_search_requires_explicit_range');
      const end = to ? to.getTime() : this.clock.now();
      if (end - from.getTime() > 31 * DAY_MS) throw errors.badRequest('audit_search_range_max_31_days');
      words = (q.q.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).slice(0, 16);
    }
    return {
      orgId,
      before: q.before_ts !== undefined ? { ts: new Date(q.before_ts), id: q.before_id! } : null,
      occurredFrom: from,
      occurredTo: to,
      actorId: q.actor_id ?? null,
      action: q.action ?? null,
      objectType: q.object_type ?? null,
      objectId: q.object_id ?? null,
      nodeId: q.node_id ?? null,
      words,
      // Only punctuation or spaces: no word to look for, so nothing can match (an empty page).
      matchesNothing: q.q !== undefined && !words.length,
      limit,
    };
  }

  async list(p: Principal, q: AuditQuery): Promise<{ rows: ReturnType<typeof jsonRow>[]; stream_cursor: string }> {
    const f = this.filter(p, q, q.limit ?? 100);
    // Taken before the page query: a record committed meanwhile is then delivered by the stream.
    // One transaction, so one server: the head and the page of the same replica (or both the primary's).
    const { head, rows } = await this.readDb
      .transaction()
      .execute(async (trx) => ({ head: await auditStore.headSeq(trx), rows: await auditStore.list(trx, f) }));
    return { rows: rows.map(jsonRow), stream_cursor: `g:${head}` };
  }

  /**
   * `list` as the JSON text of the reply, rendered by the database with its cursor in the
   * same statement: the hot path of GET /audit (no per-row parsing or serialising here).
   */
  async listJson(p: Principal, q: AuditQuery): Promise<string> {
    const f = this.filter(p, q, q.limit ?? 100);
    const { head, rows } = await auditStore.listJson(this.readDb, f);
    return `{"rows":${rows},"stream_cursor":"g:${head}"}`;
  }

  async get(p: Principal, id: string, occurredAt: string, org: string | undefined) {
    const orgId = readScope(p, org);
    if (!isUuid(id)) throw errors.notFound();
    const row = await auditStore.get(this.db, id.toLowerCase(), new Date(occurredAt), orgId);
    if (!row) throw errors.notFound();
    return jsonRow(row);
  }

  async exportCsv(p: Principal, q: AuditQuery): Promise<string> {
    const f = this.filter(p, q, 500);
    const rows = await auditStore.list(this.db, f);
    await this.db.transaction().execute((trx) =>
      this.record(trx, {
        actor: { id: p.userId, name: p.name, role: p.role, orgId: p.orgId, ip: p.ip, userAgent: p.userAgent },
        action: 'data.csv_export',
        objectType: 'audit',
        objectId: null,
        objectName: 'audit.csv',
        params: { rows: rows.length, filter: { ...q, limit: undefined } },
      }),
    );
    return toCsv(rows);
  }

  /** The audit SSE stream: replay from the ring after `g:<n>`, then live, filtered to the caller's scope. */
  async stream(
    req: FastifyRequest,
    reply: FastifyReply,
    p: Principal,
    q: { org?: string; last_event_id?: string },
  ): Promise<void> {
    const orgId = readScope(p, q.org);
    const resume = LiveStreams.resumePoint(req, q.last_event_id);
    const stream = this.streams.start(req, reply, p);
    const visible = (f: AuditFrame) => orgId === null || f.org_id === orgId;

    let replay: AuditFrame[] = [];
    if (resume !== undefined) {
      const m = /^g:(\d{1,15})$/.exec(resume);
      const n = m ? Number(m[1]) : NaN;
      if (Number.isFinite(n) && n > this.ring.head) await this.ring.catchUp();
      const after = Number.isFinite(n) && n <= this.ring.head ? this.ring.after(n) : null;
      if (!after) {
        stream.end('resync-required');
        return;
      }
      replay = after;
    }
    for (const f of replay) {
      if (!visible(f)) continue;
      stream.comment('delivery=replay');
      stream.send(`g:${f.seq}`, f);
    }
    const unsubscribe = this.ring.subscribe((f) => {
      if (!visible(f)) return;
      if (stream.lagging) {
        stream.end('resync-required');
        return;
      }
      stream.send(`g:${f.seq}`, f);
    });
    stream.onClose(unsubscribe);
  }
}

export function jsonRow(r: AuditRow) {
  return {
    id: r.id,
    occurred_at: iso(r.occurred_at),
    ended_at: iso(r.ended_at),
    org_id: r.org_id,
    actor_id: r.actor_id,
    actor_name: r.actor_name,
    actor_role: r.actor_role,
    ip: r.ip,
    user_agent: r.user_agent,
    action: r.action,
    object_type: r.object_type,
    object_id: r.object_id,
    object_name: r.object_name,
    params: r.params,
    node_id: r.node_id,
  };
}

export const CSV_COLUMNS = [
  'occurred_at',
  'org_id',
  'actor_id',
  'actor_name',
  'actor_role',
  'ip',
  'action',
  'object_type',
  'object_id',
  'object_name',
  'node_id',
  'params',
] as const;

/** A cell that a spreadsheet would run as a formula gets an apostrophe in front. */
export function neutraliseFormula(cell: string): string {
  return /^\s*[=+\-@]/.test(cell) ? `'${cell}` : cell;
}

function toCsv(rows: AuditRow[]): string {
  const records = rows.map((r) => {
    const j = jsonRow(r);
    return CSV_COLUMNS.map((c) => {
      const v = c === 'params' ? JSON.stringify(j.params) : (j[c] ?? '');
      return neutraliseFormula(String(v));
    });
  });
  // A bare CR, LF or TAB left unquoted starts a new row (or cell) in a spreadsheet, where a
  // formula could follow without its apostrophe: every such field is quoted.
  return stringify([[...CSV_COLUMNS], ...records], { record_delimiter: '\r\n', quoted_match: /[\r\n\t\u2028\u2029]/ });
}
