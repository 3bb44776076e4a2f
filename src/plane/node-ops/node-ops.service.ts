import type { Db } from '../db/database.js';
import { errors } from '../errors.js';
import type { Principal } from '../http/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { NodeCall, NodesService } from '../nodes/nodes.service.js';
import { asRouteError, NODE_OPS_TIMEOUT_MS } from './route-error.js';
import { NodeCallFailure, type NodeClient, type NodeEndpoint, type NodeRollback } from '../nodes/node-client.js';
import { logLevelOf } from './log-level.js';
import type { GlobalsChange, NodeLogsArgs } from './node-ops.schemas.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const REDACTED = '[redacted]';
/** Statuses by which a node refuses a change as invalid: the caller's to fix, so a 400 (docs/node-ops.md). */
const REJECTIONS = new Set([400, 409, 422]);

/** Text of a node's refusal, without any secret the request or the plane holds, and bounded. */
function scrub(text: unknown, secrets: string[]): string {
  let s = typeof text === 'string' ? text : (JSON.stringify(text) ?? '');
  for (const secret of secrets) if (secret.length >= 4) s = s.split(secret).join(REDACTED);
  return s.slice(0, 512);
}

/**
 * The per-node routes of document 4 §9 (superadmin): each forwards one request to the node with
 * its stored write token under a 5 s time-out. Unknown node: 404; no connection or no answer in
 * time: 502 `node_unreachable`; 401/403 from the node: 502 `node_auth_failed`; an answer of the
 * wrong shape or an unexpected status: 502 `node_bad_reply`; a change the node refuses as
 * invalid (400/409/422): 400 `node_rejected` with the node's code and scrubbed detail.
 */
export class NodeOpsService {
  constructor(
    private readonly db: Db,
    private readonly audit: AuditService,
    private readonly nodes: NodesService,
    private readonly client: NodeClient,
    private readonly timeoutMs = NODE_OPS_TIMEOUT_MS,
  ) {}

  async logs(rawId: string, q: NodeLogsArgs) {
    const { level, target, q: text, after, limit } = q;
    return this.ask(await this.target(rawId), (n, o) => n.logs({ level, target, q: text, after, limit }, o));
  }

  async sessions(rawId: string) {
    return this.ask(await this.target(rawId), (n, o) => n.sessions(o));
  }

  /** A field the node leaves out is null (a node without a licence file has only `state: none` to say). */
  async license(rawId: string) {
    return this.ask(await this.target(rawId), (n, o) => n.license(o));
  }

  /** The node's configuration text (it holds the node's secrets): audited as `node.config_read`. */
  async config(p: Principal, rawId: string) {
    const node = await this.target(rawId);
    const body = await this.ask(node, (n, o) => n.config(o));
    await this.record(p, node, 'node.config_read', { epoch: body.epoch });
    return body;
  }

  /** PATCH config/globals on the node; audited as `node.update` when the node changed something. */
  async patchGlobals(p: Principal, rawId: string, change: GlobalsChange) {
    // The auth block is replaced whole: without a write token in it the node would shut the plane out.
    const newToken = change.auth?.api_write_token;
    if (change.auth !== undefined && !newToken) throw errors.badRequest('node_write_token_required');
    const node = await this.target(rawId);
    const secrets = Object.values(change.auth ?? {}).filter((v): v is string => typeof v === 'string');
    const reply = await this.change(node, change, secrets);
    // The node took a new write token: the plane keeps it, or its next call would be refused (audited by NodesService).
    if (newToken && newToken !== node.apiToken) await this.nodes.update(p, node.id, { api_token: newToken });
    if (reply.changed) {
      // What was changed, never a value of the auth block (passwords and tokens): only its field names.
      const params: Obj = { changed: Object.keys(change), epoch: reply.epoch };
      if (change.log_level !== undefined) params.log_level = change.log_level;
      if (change.cluster_id !== undefined) params.cluster_id = change.cluster_id;
      if (change.trusted_proxies !== undefined) params.trusted_proxies = change.trusted_proxies;
      if (change.auth !== undefined) params.auth_fields = Object.keys(change.auth).sort();
      await this.record(p, node, 'node.update', params);
    }
    return reply;
  }

  /** The node's configuration versions (its GET /api/v1/config/history), oldest first as it lists them. */
  async history(rawId: string) {
    return { rows: await this.ask(await this.target(rawId), (n, o) => n.configHistory(o)) };
  }

  /**
   * Back to a recorded version (the node's POST /api/v1/config/rollback): the earlier bytes
   * applied as a new version, with the write token in use carried across by the node (else the
   * plane, which holds only that token, would be locked out: docs/node-ops.md). An epoch the node does not know (its 404) is the caller's to fix:
   * 400 node_rejected. Audited as `node.update` when something changed.
   */
  async rollback(p: Principal, rawId: string, epoch: number): Promise<NodeRollback> {
    const node = await this.target(rawId);
    const r = await this.ask(node, (n, o) => n.rollback(epoch, o), { refused: [...REJECTIONS, 404], secrets: [] });
    if (r.changed) {
      await this.record(p, node, 'node.update', {
        changed: ['rollback'],
        rolled_back_to: epoch,
        rolled_from: r.rolled_from,
        epoch: r.epoch,
        // The key names no token: the audit redacts the value of any key that does.
        ...(r.write_token_kept ? { kept_in_use: ['api_write_token'] } : {}),
      });
    }
    return r;
  }

  /** The node's `log_level`, read from its configuration text (`info` when it has none). */
  async logging(rawId: string): Promise<{ level: string }> {
    const node = await this.target(rawId);
    const body = await this.ask(node, (n, o) => n.config(o));
    return { level: logLevelOf(body.text) };
  }

  /** Writes the node's `log_level` through PATCH config/globals; audited as `node.update` when it changed. */
  async setLogging(
    p: Principal,
    rawId: string,
    level: NonNullable<GlobalsChange['log_level']>,
  ): Promise<{ level: string }> {
    const node = await this.target(rawId);
    const reply = await this.change(node, { log_level: level }, []);
    if (reply.changed)
      await this.record(p, node, 'node.update', { changed: ['log_level'], log_level: level, epoch: reply.epoch });
    return { level };
  }

  private async target(rawId: string): Promise<NodeCall> {
    const node = await this.nodes.callTarget(rawId);
    if (!node) throw errors.notFound();
    return node;
  }

  private change(node: NodeCall, body: GlobalsChange, secrets: string[]) {
    return this.ask(node, (n, o) => n.patchGlobals(body, o), { refused: [...REJECTIONS], secrets });
  }

  /**
   * One call to the node under the routes' time-out, its failure as the route answers it
   * (`asRouteError` in route-error.ts). `refused`: the statuses by which the node refuses a change as
   * the caller's to fix, answered as 400 node_rejected. The node's URL is checked first (500
   * url_build_failed).
   */
  private async ask<T>(
    node: NodeCall,
    call: (n: NodeEndpoint, o: { timeoutMs: number }) => Promise<T>,
    change?: { refused: number[]; secrets: string[] },
  ): Promise<T> {
    const endpoint = this.client.at(node);
    try {
      return await call(endpoint, { timeoutMs: this.timeoutMs });
    } catch (err) {
      if (
        change &&
        err instanceof NodeCallFailure &&
        err.reason === 'status' &&
        change.refused.includes(err.nodeStatus!)
      )
        this.reject(node, err.nodeStatus!, err.refusal(), change.secrets);
      throw asRouteError(err);
    }
  }

  /** A change the node refused as invalid: 400 node_rejected with its code and detail, scrubbed of every secret. */
  private reject(node: NodeCall, status: number, body: unknown, secrets: string[]): never {
    const b = isObj(body) ? body : {};
    const hide = [...secrets, node.apiToken];
    throw errors.badRequest('node_rejected', {
      node_status: status,
      node_error: scrub(b.error ?? 'invalid', hide),
      ...(Array.isArray(b.problems) ? { problems: b.problems.slice(0, 32).map((x) => scrub(x, hide)) } : {}),
      ...(b.message !== undefined ? { message: scrub(b.message, hide) } : {}),
    });
  }

  private async record(p: Principal, node: NodeCall, action: string, params: Obj): Promise<void> {
    await this.db.transaction().execute((trx) =>
      this.audit.record(trx, {
        actor: actorOf(p),
        orgId: null,
        nodeId: node.id,
        action,
        objectType: 'node',
        objectId: node.id,
        objectName: node.name,
        params,
      }),
    );
  }
}
