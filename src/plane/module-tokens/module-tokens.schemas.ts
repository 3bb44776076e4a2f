import { Type } from 'typebox';
import { Name, Nullable, NullableBody, Uuid } from '../http/list.js';

const RateLimit = Type.Integer({
  minimum: 1,
  maximum: 1_000_000,
  description: 'events accepted per second; null = installation default ([events] module_rate_limit_default)',
});

export const ModuleTokenRow = Type.Object({
  id: Uuid,
  org_id: Uuid,
  name: Type.String(),
  rate_limit: Nullable(Type.Integer()),
  enabled: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  last_used_at: Nullable(Type.String({ format: 'date-time' })),
});
export const ModuleTokenWithSecret = Type.Object({
  ...ModuleTokenRow.properties,
  secret: Type.String({ description: 'the bearer secret for POST /api/v1/events; shown only in this reply' }),
});

export const ModuleTokenListQuery = Type.Object(
  {
    org: Type.Optional(Uuid),
    after: Type.Optional(Uuid),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 500 })),
    q: Type.Optional(Type.String({ description: 'name substring, case-insensitive, up to 128 characters' })),
  },
  { additionalProperties: false },
);

export const ModuleTokenCreateBody = Type.Object(
  {
    name: Name,
    rate_limit: Type.Optional(NullableBody(RateLimit)),
    org_id: Type.Optional(NullableBody(Uuid)),
  },
  { additionalProperties: false },
);

export const ModuleTokenPatchBody = Type.Object(
  {
    name: Type.Optional(Name),
    rate_limit: Type.Optional(NullableBody(RateLimit)),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export interface ModuleTokenCreate {
  name: string;
  rate_limit?: number | null;
  org_id?: string | null;
}
export interface ModuleTokenPatch {
  name?: string;
  rate_limit?: number | null;
  enabled?: boolean;
}
export interface ModuleTokenListArgs {
  org?: string;
  after?: string;
  limit?: number;
  q?: string;
}

export const ModuleTokenFieldCodes: Record<string, string> = {
  name: 'bad_name',
  rate_limit: 'bad_rate_limit',
  enabled: 'bad_request',
};
