import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { sec } from '../http/list.js';
import type { MonitorService } from './monitor.service.js';
import { FleetSummaryBody, PlaneEnvelope, PlaneStreamQuery } from './monitor.schemas.js';

const tags = ['monitor'];

/**
 * Superadmin scope (document 1, "Fleet and process telemetry"). The replies are JSON text kept
 * encoded in memory (once per sweep or sample); Fastify sends a string as it is, so the schema
 * documents the body without serialising it on every request.
 */
export function monitorRoutes(app: PlaneApp, deps: { monitor: MonitorService }): void {
  const json = 'application/json; charset=utf-8';

  app.get(
    '/api/v1/monitor/fleet/summary',
    {
      schema: {
        errors: [],
        tags,
        summary: 'Fleet summary of the latest sweep',
        security: sec,
        response: { 200: FleetSummaryBody },
      },
    },
    async (_req, reply) => reply.type(json).send(deps.monitor.summaryJson() as never),
  );

  app.get(
    '/api/v1/monitor/fleet/summary/stream',
    {
      schema: {
        errors: ['liveStreamCapacity'],
        tags,
        summary: 'Fleet summary, one frame per sweep (SSE; resume by Last-Event-ID only)',
        security: sec,
      },
    },
    async (req, reply) => {
      deps.monitor.summaryStream(req, reply, principalOf(req));
    },
  );

  app.get(
    '/api/v1/monitor/nodes',
    {
      schema: {
        errors: ['liveStreamCapacity'],
        tags,
        summary: 'Node telemetry frames (SSE): the current frame of each node above the resume point, then live',
        security: sec,
      },
    },
    async (req, reply) => {
      deps.monitor.nodesStream(req, reply, principalOf(req));
    },
  );

  app.get(
    '/api/v1/monitor/plane',
    {
      schema: {
        errors: [],
        tags,
        summary: 'Process samples of this plane process (the last 900, every 2 s)',
        security: sec,
        response: { 200: PlaneEnvelope },
      },
    },
    async (_req, reply) => reply.type(json).send(deps.monitor.planeJson() as never),
  );

  app.get(
    '/api/v1/monitor/plane/stream',
    {
      schema: {
        errors: ['bad_last_event_id', 'liveStreamCapacity'],
        tags,
        summary: 'Process samples (SSE; Last-Event-ID wins over last_event_id)',
        security: sec,
        querystring: PlaneStreamQuery,
      },
    },
    async (req, reply) => {
      deps.monitor.planeStream(req, reply, principalOf(req), req.query);
    },
  );
}
