import { Type } from 'typebox';
import { Name, Nullable, NullableBody, Uuid } from '../http/list.js';

const Source = Type.String({
  minLength: 1,
  maxLength: 2048,
  description: 'rtsp, rtsps, rtmp, rtmps, http, https, file or testsrc URL',
});
// The node's retention grammar (src/node/config/validate.ts): 90s, 30m, 12h, 7d.
const Recording = Type.Object(
  {
    retention: Type.String({
      pattern: '^[1-9][0-9]{0,6}[smhd]$',
      description: 'how long the node keeps the recording: 90s, 30m, 12h or 7d',
    }),
  },
  { additionalProperties: false },
);
const TagIds = Type.Array(Type.String(), { maxItems: 256, description: "tag ids of the camera's organisation" });

export const Status = Type.Union([
  Type.Literal('live'),
  Type.Literal('unavailable'),
  Type.Literal('degraded'),
  Type.Literal('failing'),
]);
export const Profile = Type.Object({
  kind: Type.Union([Type.Literal('MAIN'), Type.Literal('SUB')]),
  stream: Type.String(),
  source_url: Type.String({ description: 'a password in the URL is shown as ***' }),
});

export const CameraRow = Type.Object({
  id: Uuid,
  org_id: Uuid,
  node_id: Uuid,
  name: Type.String(),
  main_source: Type.String(),
  sub_source: Nullable(Type.String()),
  tag_ids: Type.Array(Uuid),
  status: Status,
  profiles: Type.Array(Profile),
  recording: Nullable(Recording),
});

export const CameraCreateBody = Type.Object(
  {
    name: Name,
    node_id: Uuid,
    org_id: Type.Optional(Uuid),
    main_source: Source,
    sub_source: Type.Optional(NullableBody(Source)),
    tag_ids: Type.Optional(TagIds),
    recording: Type.Optional(NullableBody(Recording)),
  },
  { additionalProperties: false },
);

// The organisation of a camera is fixed at creation: its tags and grants belong to it.
export const CameraPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    node_id: Type.Optional(Uuid),
    main_source: Type.Optional(Source),
    sub_source: Type.Optional(NullableBody(Source)),
    tag_ids: Type.Optional(TagIds),
    recording: Type.Optional(NullableBody(Recording)),
  },
  { additionalProperties: false },
);

export interface CameraCreate {
  name: string;
  node_id: string;
  org_id?: string;
  main_source: string;
  sub_source?: string | null;
  tag_ids?: string[];
  recording?: { retention: string } | null;
}
export type CameraPatch = Partial<Omit<CameraCreate, 'org_id'>>;

export const CameraFieldCodes: Record<string, string> = {
  name: 'bad_name',
  node_id: 'unknown_node',
  main_source: 'bad_source_url',
  sub_source: 'bad_source_url',
  tag_ids: 'unknown_tag',
  recording: 'bad_recording',
};

/** POST /api/v1/cameras/{id}/play (document 4 section 3); `from` and `duration` only for playback. */
export const PlayBody = Type.Object(
  {
    profile: Type.Optional(Type.Union([Type.Literal('MAIN'), Type.Literal('SUB')], { description: 'default MAIN' })),
    intent: Type.Optional(
      Type.Union([Type.Literal('live'), Type.Literal('playback')], { description: 'default live' }),
    ),
    from: Type.Optional(
      Type.Integer({ minimum: 0, description: 'playback: start of the recorded range, epoch seconds' }),
    ),
    duration: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 86_400, description: 'playback: length of the range, 1 s to 24 h' }),
    ),
  },
  { additionalProperties: false },
);
export interface PlayRequest {
  profile?: 'MAIN' | 'SUB';
  intent?: 'live' | 'playback';
  from?: number;
  duration?: number;
}
export const PlayReply = Type.Object({
  url: Type.String({ description: "the playlist on the camera's node; the player adds ?token=" }),
  token: Type.String({ description: "viewer token (JWT, hs256 with the node's auth_backend_secret)" }),
  expires_at: Type.String({ format: 'date-time' }),
});
export const PlayFieldCodes: Record<string, string> = {
  profile: 'bad_profile',
  intent: 'bad_intent',
  from: 'bad_range',
  duration: 'bad_range',
};

/** POST /api/v1/cameras/probe (document 4 §12): a source tried on a node before a camera is saved with it. */
export const ProbeBody = Type.Object(
  {
    node_id: Uuid,
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      description: 'the source to try: an rtsp, rtsps, rtmp, rtmps, http, https or testsrc URL',
    }),
  },
  { additionalProperties: false },
);
export interface ProbeRequest {
  node_id: string;
  url: string;
}
export const ProbeFieldCodes: Record<string, string> = { node_id: 'unknown_node', url: 'bad_source_url' };
