import { Type } from 'typebox';
import { ListQuery, Nullable, NullableBody, Uuid } from '../http/list.js';

const Doc = Type.Record(Type.String(), Type.Unknown(), {
  description:
    'template document (document 4 §5): detector_match, title, list_fields, attachment_fields, detail_layout, coalesce, ' +
    'interval_timeout_secs, fields, ignore_event (system templates only); other keys are kept and listed in unknown_fields',
});

export const TemplateRow = Type.Object({
  id: Uuid,
  org_id: Nullable(Uuid),
  name: Type.String(),
  detector_match: Type.String(),
  version: Type.Integer(),
  doc: Doc,
  system: Type.Boolean(),
  enabled: Type.Boolean(),
  unknown_fields: Type.Array(Type.String()),
  updated_at: Type.String({ format: 'date-time' }),
});

// name and doc are checked by the service (their codes: bad_name, bad_doc and the document codes)
export const TemplateCreateBody = Type.Object(
  {
    name: Type.Unknown({ description: '1..128 characters after trimming' }),
    doc: Type.Unknown({ description: 'the template document; detector_match required' }),
    org_id: Type.Optional(NullableBody(Uuid)),
  },
  { additionalProperties: false },
);

export const TemplatePatchBody = Type.Object(
  {
    name: Type.Optional(Type.Unknown({ description: '1..128 characters after trimming' })),
    doc: Type.Optional(
      Type.Unknown({ description: 'replaced whole; for a system template only {title, ignore_event}' }),
    ),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const ValidateBody = Type.Object({ doc: Type.Unknown() }, { additionalProperties: false });
export const ValidateReply = Type.Object({
  valid: Type.Literal(true),
  detector_match: Type.String(),
  document_bytes: Type.Integer(),
  unknown_fields: Type.Array(Type.String()),
});

// Document 2: the list takes org, after and limit; `q` is accepted and unused (there is no name search).
export const TemplateListQuery = Type.Object(
  {
    ...ListQuery.properties,
    q: Type.Optional(Type.String({ description: 'accepted and ignored (document 2: q is unused)' })),
  },
  { additionalProperties: false },
);

export const MatchesQuery = Type.Object({ org: Type.Optional(Uuid) }, { additionalProperties: false });
export const MatchesReply = Type.Object({
  window_days: Type.Integer(),
  detectors: Type.Array(Type.String()),
  distinct: Type.Integer(),
});

export const TemplateFieldCodes: Record<string, string> = { name: 'bad_name', doc: 'bad_doc', enabled: 'bad_request' };
