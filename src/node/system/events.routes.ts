import { sseComment, sseFrame } from '../../common/sse.js';
import type { ServerResponse } from 'node:http';
import { EVENTS_PATH } from '../gate/levels.js';
import type { NodeFastify } from '../typed.js';
import type { StreamRegistry } from './streams.service.js';

const HEARTBEAT_MS = 15_000;

/**
 * `GET /api/v1/events`: the node's own server-sent events feed of stream state changes. The
 * first event is a snapshot so a client never has to combine a list request with the feed.
 */
export interface EventsRoutesDeps {
  registry: StreamRegistry;
}

export function eventsRoutes(app: NodeFastify, deps: EventsRoutesDeps): void {
  const { registry } = deps;
  const open = new Set<ServerResponse>();
  // preClose: the server waits for open connections, and an event stream never ends by itself.
  app.addHook('preClose', async () => {
    for (const res of open) res.end();
  });

  app.get(EVENTS_PATH, async (req, reply) => {
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    const send = (event: string, data: unknown): void => {
      res.write(sseFrame(JSON.stringify(data), { event }));
    };
    send('snapshot', { streams: registry.list() });
    const unsubscribe = registry.subscribe((e) => send('stream', e));
    const heartbeat = setInterval(() => res.write(sseComment('keep-alive')), HEARTBEAT_MS);
    heartbeat.unref();
    open.add(res);
    req.raw.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(res);
    });
  });
}
