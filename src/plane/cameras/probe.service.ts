import type { NodeProbeReply, NodeSnapshotReply } from '../../common/node-api.js';
import { errors } from '../errors.js';
import type { NodeClient, NodeEndpoint } from '../nodes/node-client.js';
import type { NodesService } from '../nodes/nodes.service.js';
import { asRouteError } from '../node-ops/route-error.js';
import { checkSourceUrl } from './cameras.service.js';
import type { ProbeRequest } from './cameras.schemas.js';

/** The node gives a probe 10 s (document 4 §12); the plane waits that and a margin for the call and the reply. */
export const PROBE_CALL_MS = 12_000;

/**
 * "Test source" before a camera is saved (document 4 §12, docs/inventory.md): the URL is held to a
 * camera source's rules here (cameras.service.ts `checkSourceUrl`: scheme, parser agreement, no
 * link-local or metadata host unless `[network] allow_private_targets`), then the chosen node
 * opens it once (`POST /api/v1/probe`) and its answer is the reply. Nothing changes, so nothing is
 * audited. A node that does not answer is 502 `node_unreachable` as on the per-node routes.
 */
export class CameraProbe {
  constructor(
    private readonly nodes: Pick<NodesService, 'callTarget' | 'allowPrivateTargets'>,
    private readonly client: NodeClient,
    private readonly timeoutMs = PROBE_CALL_MS,
  ) {}

  probe(body: ProbeRequest): Promise<NodeProbeReply> {
    return this.ask(body, (node, url) => node.probe(url, { timeoutMs: this.timeoutMs }));
  }

  /** "Snapshot" (issue 22): one frame of the source as the node reads it, under the probe's rules and bound. */
  snapshot(body: ProbeRequest): Promise<NodeSnapshotReply> {
    return this.ask(body, (node, url) => node.snapshot(url, { timeoutMs: this.timeoutMs }));
  }

  private async ask<T>(body: ProbeRequest, call: (node: NodeEndpoint, url: string) => Promise<T>): Promise<T> {
    const url = checkSourceUrl(body.url, this.nodes.allowPrivateTargets);
    // Nodes belong to the fleet, not to an organisation: any node a camera may be placed on (as camera create).
    const node = await this.nodes.callTarget(body.node_id);
    if (!node) throw errors.badRequest('unknown_node');
    try {
      return await call(this.client.at(node), url);
    } catch (err) {
      throw asRouteError(err);
    }
  }
}
