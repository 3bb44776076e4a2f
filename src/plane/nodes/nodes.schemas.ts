import { Type } from 'typebox';
import { Name, Nullable, NullableBody, Uuid } from '../http/list.js';

const Url = Type.String({ minLength: 1, maxLength: 2048, description: "the node's http or https base URL" });
// Write-only secrets: bodies accept them, no reply schema has them; rows say only whether one is set.
const Secret = Type.String({ minLength: 1, maxLength: 4096, writeOnly: true });

export const NodeRow = Type.Object({
  id: Uuid,
  name: Type.String(),
  url: Type.String(),
  enabled: Type.Boolean(),
  state: Type.String({
    description:
      'unknown until the node has been polled; then reachable, unreachable, or disabled once a disabled node has been let go',
  }),
  last_seen_at: Nullable(Type.String({ format: 'date-time' })),
  version: Nullable(Type.String()),
  api_token_configured: Type.Boolean(),
  auth_backend_secret_configured: Type.Boolean(),
});

export const NodeCreateBody = Type.Object(
  {
    name: Name,
    url: Url,
    api_token: Secret,
    auth_backend_secret: Type.Optional(NullableBody(Secret)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const NodePatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    url: Type.Optional(Url),
    api_token: Type.Optional(Secret),
    auth_backend_secret: Type.Optional(NullableBody(Secret)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export interface NodeCreate {
  name: string;
  url: string;
  api_token: string;
  auth_backend_secret?: string | null;
  enabled?: boolean;
}
export type NodePatch = Partial<NodeCreate>;
export const NodeFieldCodes: Record<string, string> = {
  name: 'bad_name',
  url: 'bad_url',
  api_token: 'bad_token',
  auth_backend_secret: 'bad_token',
  enabled: 'bad_request',
};
