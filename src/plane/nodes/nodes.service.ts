import { iso } from '../../common/time.js';
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../common/clock.js';
import type { Db } from '../db/database.js';
import { FOREIGN_KEY_VIOLATION, pgCode } from '../db/pg-errors.js';
import { errors } from '../errors.js';
import { isForbiddenTarget } from './target-policy.js';
import type { Principal } from '../http/principal.js';
import { isUuid, pageOf, requireUuid, DEFAULT_LIMIT, type ListArgs } from '../http/list.js';
import type { AuditService } from '../audit/audit.service.js';
import { actorOf } from '../auth/auth.service.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { NodeCreate, NodePatch } from './nodes.schemas.js';
import { nodesStore, type ClaimedNode, type NodeRecord, type PollMark } from './nodes.store.js';

/** A node as the code that calls it needs it (per-node routes, the fleet session list). */
export interface NodeCall {
  id: string;
  name: string;
  enabled: boolean;
  url: string;
  apiToken: string;
}

const nodeRow = (n: NodeRecord) => ({
  id: n.id,
  name: n.name,
  url: n.url,
  enabled: n.enabled,
  state: n.state,
  last_seen_at: n.last_seen_at ? iso(n.last_seen_at) : null,
  version: n.version,
  api_token_configured: n.api_token_enc !== '',
  auth_backend_secret_configured: n.auth_backend_secret_enc !== null,
});

// The sealed value names its row and field: a ciphertext moved elsewhere does not open.
const context = (id: string, field: 'api_token' | 'auth_backend_secret') => `node:${id}:${field}`;

/**
 * A node's base URL: http or https, a host, no credentials (they would show in every row and
 * log line; the token travels separately), no query or fragment. Kept without a trailing slash.
 */
export function normaliseNodeUrl(text: string, allowPrivateTargets = false): string {
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw errors.badRequest('bad_url');
  }
  if (
    (u.protocol !== 'http:' && u.protocol !== 'https:') ||
    !u.hostname ||
    u.username ||
    u.password ||
    u.search ||
    u.hash
  ) {
    throw errors.badRequest('bad_url');
  }
  // Link-local and cloud-metadata addresses: the plane would send the node's token there.
  if (!allowPrivateTargets && isForbiddenTarget(u.hostname)) throw errors.badRequest('bad_url');
  return u.toString().replace(/\/+$/, '');
}

/** Streaming nodes as records (superadmin). The sweeper (src/plane/sweeper) polls them and keeps state, last_seen_at and version. */
// Node write tokens kept opened (openApiToken), a fleet of 10,000 nodes with room for rotations.
const OPENED_TOKENS_MAX = 20_000;

export class NodesService {
  private readonly opened = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly audit: AuditService,
    private readonly box: SecretBox,
    /** [network] allow_private_targets: node URLs and camera sources may name link-local and metadata addresses */
    readonly allowPrivateTargets = false,
  ) {}

  async exists(db: Db, id: string): Promise<boolean> {
    return (await nodesStore.get(db, id)) !== undefined;
  }

  /** The decrypted secrets of a node, for the code that talks to it; never for a reply. */
  async credentials(
    id: string,
  ): Promise<{ url: string; apiToken: string; authBackendSecret: string | null } | undefined> {
    const n = await nodesStore.get(this.db, id);
    if (!n) return undefined;
    return {
      url: n.url,
      apiToken: this.box.open(n.api_token_enc, context(id, 'api_token')),
      authBackendSecret:
        n.auth_backend_secret_enc === null
          ? null
          : this.box.open(n.auth_backend_secret_enc, context(id, 'auth_backend_secret')),
    };
  }

  /** A node with what it takes to call it (name, URL, write token); undefined when there is none. Never for a reply. */
  async callTarget(rawId: string): Promise<NodeCall | undefined> {
    if (!isUuid(rawId)) return undefined;
    const n = await nodesStore.get(this.db, rawId.toLowerCase());
    if (!n) return undefined;
    return {
      id: n.id,
      name: n.name,
      enabled: n.enabled,
      url: n.url,
      apiToken: this.box.open(n.api_token_enc, context(n.id, 'api_token')),
    };
  }

  /**
   * The write token of a node row already read (the sweeper claims rows in bulk, the fleet's
   * session list reads four per page); never for a reply. Opened once per sealed value: a
   * rotation seals a new one. (Opening was 3% of the plane's CPU per page of sessions.)
   */
  openApiToken(id: string, sealed: string): string {
    const key = `${id}\n${sealed}`;
    let token = this.opened.get(key);
    if (token === undefined) {
      token = this.box.open(sealed, context(id, 'api_token'));
      // Bounded: a fleet's tokens, and the stale ones of rotations, dropped all at once past it.
      if (this.opened.size >= OPENED_TOKENS_MAX) this.opened.clear();
      this.opened.set(key, token);
    }
    return token;
  }

  // The sweeper's observations of the nodes (document 4 §6), stored here: the nodes table is this domain's.

  /** Claims the enabled nodes due for a poll, those no process claimed within `leaseMs`: several plane processes share the polling. */
  claimDue(now: Date, leaseMs: number): Promise<ClaimedNode[]> {
    return nodesStore.claimNodes(this.db, now, leaseMs);
  }

  /** The node stopped answering (see nodesStore.markUnreachable); undefined when a newer claim overtook this result. */
  markUnreachable(trx: Db, id: string, at: Date, claim: Date | null) {
    return nodesStore.markUnreachable(trx, id, at, claim);
  }

  /** The node answered; `was` is the start of the unreachable interval this ended, if any. */
  markReachable(trx: Db, id: string, at: Date, version: string, claim: Date | null) {
    return nodesStore.markReachable(trx, id, at, version, claim);
  }

  /** markUnreachable for a sweep's batch of nodes (one statement). */
  markUnreachableMany(trx: Db, rows: PollMark[]) {
    return nodesStore.markUnreachableMany(trx, rows);
  }

  /** markReachable for a sweep's batch of nodes (one statement). */
  markReachableMany(trx: Db, rows: Array<PollMark & { version: string }>) {
    return nodesStore.markReachableMany(trx, rows);
  }

  /**
   * The origins (scheme, host, port) of every registered node, enabled or not: where the console's
   * players fetch HLS and media (the console's content policy names them, issue 25 item 13).
   */
  async origins(): Promise<string[]> {
    const out = new Set<string>();
    for (const url of await nodesStore.urls(this.db)) {
      try {
        out.add(new URL(url).origin);
      } catch {
        /* stored URLs were checked when saved */
      }
    }
    return [...out].sort();
  }

  /** All nodes, enabled or not (the sweep report's nodes_total). */
  count(): Promise<number> {
    return nodesStore.count(this.db);
  }

  /** Disabled nodes not yet marked become `disabled`; returns them with the unreachable interval they ended. */
  markDisabled(trx: Db) {
    return nodesStore.markDisabled(trx);
  }

  async list(q: ListArgs) {
    const limit = q.limit ?? DEFAULT_LIMIT;
    return pageOf(await nodesStore.list(this.db, { after: q.after ?? null, limit }), limit, nodeRow);
  }

  async create(p: Principal, body: NodeCreate) {
    const id = randomUUID();
    const url = normaliseNodeUrl(body.url, this.allowPrivateTargets);
    const rec = {
      id,
      name: body.name,
      url,
      enabled: body.enabled ?? true,
      api_token_enc: this.box.seal(body.api_token, context(id, 'api_token')),
      auth_backend_secret_enc: body.auth_backend_secret
        ? this.box.seal(body.auth_backend_secret, context(id, 'auth_backend_secret'))
        : null,
    };
    return this.db.transaction().execute(async (trx) => {
      await nodesStore.insert(trx, rec);
      const row = nodeRow((await nodesStore.get(trx, id))!);
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: null,
        nodeId: id,
        action: 'node.create',
        objectType: 'node',
        objectId: id,
        objectName: rec.name,
        params: {
          name: rec.name,
          url,
          enabled: rec.enabled,
          auth_backend_configured: row.auth_backend_secret_configured,
        },
      });
      return row;
    });
  }

  async update(p: Principal, rawId: string, body: NodePatch) {
    const id = requireUuid(rawId);
    const url = body.url !== undefined ? normaliseNodeUrl(body.url, this.allowPrivateTargets) : undefined;
    return this.db.transaction().execute(async (trx) => {
      const before = await nodesStore.get(trx, id, { lock: true });
      if (!before) throw errors.notFound();
      const set: Parameters<typeof nodesStore.update>[2] = {};
      const changed: string[] = [];
      if (body.name !== undefined && body.name !== before.name) {
        set.name = body.name;
        changed.push('name');
      }
      if (url !== undefined && url !== before.url) {
        set.url = url;
        changed.push('url');
      }
      if (body.enabled !== undefined && body.enabled !== before.enabled) {
        set.enabled = body.enabled;
        changed.push('enabled');
      }
      // A secret sent is a secret replaced, even if equal: its plaintext is never compared.
      if (body.api_token !== undefined) {
        set.api_token_enc = this.box.seal(body.api_token, context(id, 'api_token'));
        changed.push('api_token');
      }
      if (body.auth_backend_secret !== undefined) {
        set.auth_backend_secret_enc =
          body.auth_backend_secret === null
            ? null
            : this.box.seal(body.auth_backend_secret, context(id, 'auth_backend_secret'));
        changed.push('auth_backend_secret');
      }
      if (!changed.length) return nodeRow(before);
      await nodesStore.update(trx, id, set, new Date(this.clock.now()));
      const after = (await nodesStore.get(trx, id))!;
      await this.audit.record(trx, {
        actor: actorOf(p),
        orgId: null,
        nodeId: id,
        action: 'node.update',
        objectType: 'node',
        objectId: id,
        objectName: after.name,
        params: {
          changed,
          ...(set.name !== undefined ? { name: set.name } : {}),
          ...(set.url !== undefined ? { url: set.url } : {}),
          ...(set.enabled !== undefined ? { enabled: set.enabled } : {}),
        },
      });
      return nodeRow(after);
    });
  }

  /** A node that still carries cameras stays (409 node_in_use): move or delete them first. */
  async delete(p: Principal, rawId: string): Promise<{ id: string; deleted: true }> {
    const id = requireUuid(rawId);
    try {
      return await this.db.transaction().execute(async (trx) => {
        const before = await nodesStore.get(trx, id, { lock: true });
        if (!before) throw errors.notFound();
        await nodesStore.delete(trx, id);
        await this.audit.record(trx, {
          actor: actorOf(p),
          orgId: null,
          nodeId: id,
          action: 'node.delete',
          objectType: 'node',
          objectId: id,
          objectName: before.name,
          params: {},
        });
        return { id, deleted: true as const };
      });
    } catch (err) {
      if (pgCode(err) === FOREIGN_KEY_VIOLATION) throw errors.conflict('node_in_use');
      throw err;
    }
  }
}
