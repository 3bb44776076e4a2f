import type { Logger } from 'pino';
import { maskUrlPassword } from '../../common/redact.js';
import type { NodesService } from '../nodes/nodes.service.js';
import type { NodeClient, NodeEndpoint, StreamSpec } from '../nodes/node-client.js';

/** What a camera asks of its node: its sources and its recording. */
export interface CameraDesire {
  id: string;
  main_source: string;
  sub_source: string | null;
  recording_retention: string | null;
}
/** A row of the node's stream list as the reconcile compares it. */
export interface ObservedStream {
  name: string;
  input?: string | null;
  dvr?: { storage: string; retention: string } | null;
  on_demand?: boolean;
}

export const mainStream = (id: string) => `${id}_main`;
export const subStream = (id: string) => `${id}_sub`;
/** Streams named like an Argus camera's; any other stream on a node is not the plane's to touch. */
const CAMERA_STREAM = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})_(main|sub)$/;

/**
 * The streams a camera wants on its node. Recording goes to the node's first storage; a node
 * with no storage gets the stream without recording (nothing to record to).
 */
export function desiredStreams(c: CameraDesire, storage: string | null): Array<[string, StreamSpec]> {
  const out: Array<[string, StreamSpec]> = [
    [
      mainStream(c.id),
      {
        input: c.main_source,
        on_demand: false,
        dvr: c.recording_retention !== null && storage !== null ? { storage, retention: c.recording_retention } : null,
      },
    ],
  ];
  if (c.sub_source !== null) out.push([subStream(c.id), { input: c.sub_source, dvr: null, on_demand: false }]);
  return out;
}

/**
 * Whether the node's stream is the one wanted. The node lists `input` with its password as ***
 * (maskUrlPassword), so the stored input is compared in that same masked form: a camera with a
 * password is not re-sent every sweep. A change of the password alone is sent by the camera
 * write itself, not found by the reconcile (docs/fleet-sweep.md, "Masked passwords").
 */
export function sameStream(want: StreamSpec, have: ObservedStream): boolean {
  const input = have.input ?? null;
  if (input !== want.input && input !== maskUrlPassword(want.input)) return false;
  if ((have.on_demand ?? false) !== want.on_demand) return false;
  const d = have.dvr ?? null;
  return d === null
    ? want.dvr === null
    : want.dvr !== null && d.storage === want.dvr.storage && d.retention === want.dvr.retention;
}

/** The repairs that make a node's stream list the inventory's: streams to put, Argus-named streams to delete. */
export function planRepairs(
  cams: CameraDesire[],
  observed: ObservedStream[],
  storage: string | null,
): { put: Array<[string, StreamSpec]>; del: string[] } {
  const want = new Map(cams.flatMap((c) => desiredStreams(c, storage)));
  const have = new Map(observed.map((s) => [s.name, s]));
  const put = [...want].filter(([name, spec]) => {
    const h = have.get(name);
    return !h || !sameStream(spec, h);
  });
  const del = observed.filter((s) => CAMERA_STREAM.test(s.name) && !want.has(s.name)).map((s) => s.name);
  return { put, del };
}

/**
 * Applies repairs to a node, a few at once; returns how many failed. A put the node took (200,
 * 201) and a delete of a stream that is gone (200, or 404: already absent) succeed; any failure
 * of the call counts, and the next sweep's reconcile tries again.
 */
export async function applyRepairs(
  node: NodeEndpoint,
  plan: { put: Array<[string, StreamSpec]>; del: string[] },
  timeoutMs: number,
): Promise<number> {
  const done = (p: Promise<unknown>) =>
    p.then(
      () => true,
      () => false,
    );
  const ops = [
    ...plan.put.map(
      ([name, spec]) =>
        () =>
          done(node.putStream(name, spec, { timeoutMs })),
    ),
    ...plan.del.map((name) => () => done(node.deleteStream(name, { timeoutMs }))),
  ];
  let failed = 0;
  let next = 0;
  const worker = async () => {
    while (next < ops.length) if (!(await ops[next++]!())) failed++;
  };
  await Promise.all(Array.from({ length: Math.min(4, ops.length) }, worker));
  return failed;
}

/**
 * Sends a camera write to its node at once (document 4 §3), after the reply: the write's reply
 * does not wait on a node that may be slow or away. Best effort: an unreachable node leaves the
 * camera `unavailable` and the sweeper's reconcile repairs the node later. The changes of one
 * camera reach its node in the order they were made (one queue per camera).
 */
export class Provisioner {
  private readonly queues = new Map<string, Promise<void>>();

  constructor(
    private readonly nodes: NodesService,
    private readonly client: NodeClient,
    private readonly timeoutMs: number,
    private readonly log: Pick<Logger, 'warn'>,
  ) {}

  /** `before`/`after`: the camera as it was and is (null: did not / no longer exist(s)). */
  cameraChanged(
    before: (CameraDesire & { node_id: string }) | null,
    after: (CameraDesire & { node_id: string }) | null,
  ): void {
    const id = (after ?? before)!.id;
    const run = (this.queues.get(id) ?? Promise.resolve()).then(() => this.send(before, after));
    this.queues.set(id, run);
    void run.finally(() => {
      if (this.queues.get(id) === run) this.queues.delete(id);
    });
  }

  /** Resolves once every change queued so far reached its node or failed (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.queues.size) await Promise.all([...this.queues.values()]);
  }

  private async send(
    before: (CameraDesire & { node_id: string }) | null,
    after: (CameraDesire & { node_id: string }) | null,
  ): Promise<void> {
    try {
      if (before && (!after || before.node_id !== after.node_id)) {
        await this.onNode(before.node_id, async (node) =>
          applyRepairs(node, { put: [], del: [mainStream(before.id), subStream(before.id)] }, this.timeoutMs),
        );
      }
      if (after) {
        await this.onNode(after.node_id, async (node) => {
          let storage: string | null = null;
          if (after.recording_retention !== null) {
            // Recording goes to the node's first storage: without its system reply the camera waits for the sweep.
            const system = await node.system({ timeoutMs: this.timeoutMs }).catch(() => null);
            if (system === null) return 1;
            storage = system.storages?.[0]?.name ?? null;
          }
          const want = desiredStreams(after, storage);
          return applyRepairs(
            node,
            { put: want, del: after.sub_source === null ? [subStream(after.id)] : [] },
            this.timeoutMs,
          );
        });
      }
    } catch (err) {
      this.log.warn(
        { camera_id: (after ?? before)?.id, err: (err as Error).message },
        'camera not provisioned on its node',
      );
    }
  }

  private async onNode(nodeId: string, fn: (node: NodeEndpoint) => Promise<number>): Promise<void> {
    const c = await this.nodes.credentials(nodeId);
    if (!c) return;
    const failed = await fn(this.client.at({ url: c.url, apiToken: c.apiToken }));
    if (failed)
      this.log.warn({ node_id: nodeId, failed }, 'node did not take every stream change; the sweep repairs it');
  }
}
