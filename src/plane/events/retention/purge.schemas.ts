import { Type } from 'typebox';
// The one timestamp rule of every route (issue 25, finding 7).
import { Timestamp as Ts } from '../../../common/time.js';
import { Nullable, Uuid } from '../../http/list.js';

export const PurgeBody = Type.Object(
  {
    event_ids: Type.Optional(
      Type.Array(Uuid, {
        description: 'explicit selection, up to 1000; sorted and de-duplicated; also reaches debug rows',
      }),
    ),
    org_id: Type.Optional(Nullable(Uuid)),
    from: Type.Optional(Nullable(Ts)),
    to: Type.Optional(Nullable(Ts)),
    camera_id: Type.Optional(Nullable(Uuid)),
    detector: Type.Optional(
      Nullable(Type.String({ description: 'up to 256 characters; a trailing * is a prefix mask' })),
    ),
    severity_min: Type.Optional(
      Nullable(Type.Integer({ minimum: 0, maximum: 4, description: 'without it a filter purge leaves debug rows' })),
    ),
    starred: Type.Optional(Type.Boolean()),
    category: Type.Optional(Nullable(Type.Union([Type.Literal('camera'), Type.Literal('system')]))),
    as_of: Type.Optional(Ts),
  },
  { additionalProperties: false },
);

export const PurgeFieldCodes: Record<string, string> = {
  event_ids: 'bad_event_ids',
  from: 'bad_time_range',
  to: 'bad_time_range',
  detector: 'bad_detector',
  severity_min: 'bad_severity_min',
  category: 'bad_category',
  as_of: 'bad_as_of',
  org_id: 'bad_org',
  camera_id: 'bad_request',
  starred: 'bad_request',
};

export const PurgeSpec = Type.Object({
  event_ids: Type.Array(Uuid),
  org_id: Nullable(Uuid),
  from: Nullable(Ts),
  to: Nullable(Ts),
  camera_id: Nullable(Uuid),
  detector: Nullable(Type.String()),
  severity_min: Nullable(Type.Integer()),
  starred: Type.Boolean(),
  category: Nullable(Type.String()),
  as_of: Ts,
});

export const PurgePreview = Type.Object({
  events: Type.Integer(),
  attachments: Type.Integer(),
  attachment_bytes: Type.Integer(),
});

export const PreviewReply = Type.Object({ spec: PurgeSpec, preview: PurgePreview });

export const CleanupJob = Type.Object({
  id: Uuid,
  kind: Type.String({ description: '`events` (event purge) or `archive`' }),
  org_id: Nullable(Uuid),
  state: Type.String({ description: '`queued` or `finished`' }),
  preview: PurgePreview,
  progress: Type.Union(
    [
      Type.Object({}, { additionalProperties: false }),
      Type.Object({ events: Type.Integer(), attachments: Type.Integer() }),
    ],
    { description: 'empty while queued; {events, attachments} when finished' },
  ),
  created_at: Ts,
  finished_at: Nullable(Ts),
  last_error: Nullable(Type.String()),
});

export const JobParams = Type.Object({ id: Type.String({ description: 'uuid' }) });
