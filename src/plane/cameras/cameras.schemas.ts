import { Type } from 'typebox';
import { Name, Nullable, NullableBody, Uuid } from '../http/list.js';

const Source = Type.String({ minLength: 1, maxLength: 2048, description: 'rtsp, rtsps, rtmp, rtmps, http, https, file or testsrc URL' });
const TagIds = Type.Array(Type.String(), { maxItems: 256, description: 'tag ids of the camera\'s organisation' });

export const Status = Type.Union([Type.Literal('live'), Type.Literal('unavailable'), Type.Literal('degraded'), Type.Literal('failing')]);
export const Profile = Type.Object({
  kind: Type.Union([Type.Literal('MAIN'), Type.Literal('SUB')]), stream: Type.String(),
  source_url: Type.String({ description: 'a password in the URL is shown as ***' }),
});

export const CameraRow = Type.Object({
  id: Uuid, org_id: Uuid, node_id: Uuid, name: Type.String(),
  main_source: Type.String(), sub_source: Nullable(Type.String()), tag_ids: Type.Array(Uuid),
  status: Status, profiles: Type.Array(Profile),
});

export const CameraCreateBody = Type.Object({
  name: Name,
  node_id: Uuid,
  org_id: Type.Optional(Uuid),
  main_source: Source,
  sub_source: Type.Optional(NullableBody(Source)),
  tag_ids: Type.Optional(TagIds),
}, { additionalProperties: false });

// The organisation of a camera is fixed at creation: its tags and grants belong to it.
export const CameraPatchBody = Type.Object({
  name: Type.Optional(Name),
  node_id: Type.Optional(Uuid),
  main_source: Type.Optional(Source),
  sub_source: Type.Optional(NullableBody(Source)),
  tag_ids: Type.Optional(TagIds),
}, { additionalProperties: false });

export interface CameraCreate { name: string; node_id: string; org_id?: string; main_source: string; sub_source?: string | null; tag_ids?: string[] }
export type CameraPatch = Partial<Omit<CameraCreate, 'org_id'>>;

export const CameraFieldCodes: Record<string, string> = {
  name: 'bad_name', node_id: 'unknown_node', main_source: 'bad_source_url', sub_source: 'bad_source_url', tag_ids: 'unknown_tag',
};
