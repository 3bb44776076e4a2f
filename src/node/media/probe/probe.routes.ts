import { Type } from 'typebox';
import { NodeProbeReply, NodeSnapshotReply } from '../../../common/node-api.js';
import type { NodeFastify } from '../../typed.js';
import type { SourceProbe } from './probe.service.js';

/** A source as a stream's `input` takes it (config.schemas.ts): one line, at most 4096 characters. */
const ProbeBody = Type.Object(
  { url: Type.String({ minLength: 1, maxLength: 4096, pattern: '^[^\\r\\n]*$' }) },
  { additionalProperties: false },
);

/**
 * POST /api/v1/probe (document 4 §12): the source opened once, its video and audio or why not.
 * A POST, so the gate's write tier (document 3: the read token may only GET); a source that
 * cannot be read is an answer (`ok: false`), not an error of the request.
 */
export function probeRoutes(app: NodeFastify, deps: { probe: SourceProbe }): void {
  app.post('/api/v1/probe', { schema: { body: ProbeBody, response: { 200: NodeProbeReply } } }, async (req) =>
    deps.probe.probe(req.body.url),
  );
  // One frame of the source before it is saved (issue 22): the probe's rules, a JPEG out.
  app.post(
    '/api/v1/probe/snapshot',
    { schema: { body: ProbeBody, response: { 200: NodeSnapshotReply } } },
    async (req) => deps.probe.snapshot(req.body.url),
  );
}
