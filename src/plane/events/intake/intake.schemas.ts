import { Type, type Static } from 'typebox';
import { Uuid } from '../../http/list.js';
import { ITEM_ERRORS } from './intake.validate.js';

/** Items per intake request (document 4 §4). */
export const MAX_BATCH = 500;

export const IntakeBody = Type.Object(
  {
    events: Type.Array(Type.Unknown(), {
      minItems: 1,
      maxItems: MAX_BATCH,
      description:
        'items {detector, occurred_at, camera_id, severity, confidence, interval, ended_at, subject_type, subject_ref, ext_id, detector_title, payload, attachments}; each is checked on its own',
    }),
  },
  { additionalProperties: false },
);

export const IntakeReply = Type.Object({
  results: Type.Array(
    Type.Union([
      Type.Object({ index: Type.Integer(), id: Uuid }),
      Type.Object({
        index: Type.Integer(),
        error: Type.String({ description: `item error: ${ITEM_ERRORS.join(', ')}` }),
      }),
      Type.Object({
        index: Type.Integer(),
        ignored: Type.Literal(true, { description: 'a system template with ignore_event: not stored' }),
      }),
    ]),
  ),
  stream_cursor: Type.String({
    description: 'g:<n> (or d<purge-day>:<n>): give it to GET /api/v1/events/stream to follow on',
  }),
});

export const AttachmentReply = Type.Object({ ref: Uuid, size: Type.Integer(), content_type: Type.String() });

export const IntakeFieldCodes: Record<string, string> = { events: 'bad_events' };
export type IntakeReply = Static<typeof IntakeReply>;
