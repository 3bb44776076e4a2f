import { Type } from 'typebox';
import { Name, Uuid } from '../http/list.js';

export const TagRow = Type.Object({ id: Uuid, org_id: Uuid, name: Type.String() });
export const TagCreateBody = Type.Object({ name: Name, org_id: Type.Optional(Uuid) }, { additionalProperties: false });
export const TagPatchBody = Type.Object({ name: Type.Optional(Name) }, { additionalProperties: false });
export const TagFieldCodes: Record<string, string> = { name: 'bad_name' };
