import type { FastifyRequest } from 'fastify';
import { bearerOf } from '../../common/bearer.js';
import type { NodeContext, NodeFastify } from '../context.js';
import { authorize, EVENTS_PATH, isGated, type Principal } from './levels.js';

/**
 * Per-request gate results. Kept in a WeakMap rather than a `declare module 'fastify'`
 * augmentation: augmentations are global to the compilation and the plane, built in the same
 * tree, declares its own `principal` on the same interface.
 */
interface GateResult {
  principal: Principal | null;
  address: string;
}
const results = new WeakMap<FastifyRequest, GateResult>();

export function principalOf(req: FastifyRequest): Principal | null {
  return results.get(req)?.principal ?? null;
}

export function clientAddressOf(req: FastifyRequest): string {
  return results.get(req)?.address ?? req.socket.remoteAddress ?? '';
}

function rawPath(url: string): string {
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  try { return decodeURIComponent(path); } catch { return path; }
}

/** The short-lived session token may come as `?token=` on the events feed only (EventSource cannot set headers). */
function queryToken(req: FastifyRequest): string | undefined {
  const q = req.query as Record<string, unknown> | undefined;
  const t = q?.token;
  return typeof t === 'string' && t.length > 0 ? t : undefined;
}

/**
 * The management gate: one hook in front of `/api/v1/*` and `/metrics`. The rule is taken on the
 * matched route pattern when there is one, so percent-encoding or a forwarding route cannot
 * reach the configuration text past the read-token rule.
 */
export function registerGate(app: NodeFastify, ctx: NodeContext): void {
  app.addHook('onRequest', async (req) => {
    const address = ctx.addresses.resolve(req.socket.remoteAddress, req.headers['x-forwarded-for']);
    const result: GateResult = { principal: null, address };
    results.set(req, result);
    const target = req.routeOptions.url ?? rawPath(req.url);
    if (!isGated(target) && !isGated(rawPath(req.url))) return;
    let principal: Principal | null;
    const header = bearerOf(req.headers.authorization) ?? undefined;
    if (header === undefined && target === EVENTS_PATH && req.method === 'GET') {
      principal = await ctx.gate.identify(queryToken(req), address, false);
    } else {
      principal = await ctx.gate.identify(header, address);
    }
    const refusal = authorize(principal, req.method, target);
    ctx.metrics.gateDecision(refusal ? String(refusal.status) : 'allowed');
    if (refusal) throw refusal;
    result.principal = principal;
  });
}
