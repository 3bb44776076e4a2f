import type { PlaneApp } from '../../http/typed.js';
import { Type } from 'typebox';
import { principalOf } from '../../http/principal.js';
import { sec, Uuid, validationCodes } from '../../http/list.js';
import type { EventStreamService } from './stream.service.js';

export const EventStreamQuery = Type.Object(
  {
    org: Type.Optional(Uuid),
    last_event_id: Type.Optional(
      Type.String({ description: 'g:<n> or d<purge-day>:<n>; the Last-Event-ID header wins' }),
    ),
  },
  { additionalProperties: false },
);

const EventStreamBody = Type.String({
  description:
    'text/event-stream: `id: <cursor>` and `data: <frame JSON>` (seq, id, occurred_at, ended_at, org_id, camera_id, ' +
    'camera_name, node_id, node_name, detector, detector_title, category, severity (number), template_id, interval, confidence, ' +
    'subject_type, subject_ref, ext_id, list_values, starred, updated, deleted, reconcile_required); `: delivery=replay` before ' +
    'a replayed frame; `:` heartbeats; terminal `: resync-required`.',
});

/** Authenticated scope: any signed-in user; frames filtered by camera rights. */
export function eventStreamRoutes(app: PlaneApp, deps: { stream: EventStreamService }): void {
  app.get(
    '/api/v1/events/stream',
    {
      schema: {
        tags: ['events'],
        security: sec,
        querystring: EventStreamQuery,
        response: { 200: EventStreamBody },
        summary: 'Live event frames (SSE); resume with the stream_cursor of a feed or intake reply',
        description:
          'Replays up to 512 frames after the cursor, then live. Ends at midnight UTC and at session expiry.',
        errors: ['crossOrg', 'liveStreamCapacity'],
      },
      config: { validationCode: validationCodes({ org: 'bad_org', last_event_id: 'bad_last_event_id' }) },
    },
    async (req, reply) => {
      await deps.stream.stream(req, reply, principalOf(req), req.query);
    },
  );
}
