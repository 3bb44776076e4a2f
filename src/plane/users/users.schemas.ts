import { Type } from 'typebox';
import { Name, Uuid } from '../http/list.js';

export const Role = Type.Union([Type.Literal('superadmin'), Type.Literal('admin'), Type.Literal('user')]);
const Login = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._@+-]+$' });
// Write-only: accepted in bodies, never part of a reply schema, so it cannot be serialised out.
const Password = Type.String({ minLength: 8, maxLength: 1024, writeOnly: true });

export const UserRow = Type.Object({
  id: Uuid,
  org_id: Uuid,
  login: Type.String(),
  name: Type.String(),
  role: Role,
  disabled: Type.Boolean(),
});

export const UserCreateBody = Type.Object(
  {
    login: Login,
    password: Password,
    name: Type.Optional(Name),
    role: Type.Optional(Role),
    org_id: Type.Optional(Uuid),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export const UserPatchBody = Type.Object(
  {
    login: Type.Optional(Login),
    password: Type.Optional(Password),
    name: Type.Optional(Name),
    role: Type.Optional(Role),
    org_id: Type.Optional(Uuid),
    disabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

export type UserRole = 'superadmin' | 'admin' | 'user';
export interface UserCreate {
  login: string;
  password: string;
  name?: string;
  role?: UserRole;
  org_id?: string;
  disabled?: boolean;
}
export type UserPatch = Partial<UserCreate>;

export const UserFieldCodes: Record<string, string> = {
  login: 'bad_login',
  password: 'bad_password',
  name: 'bad_name',
  role: 'bad_role',
  disabled: 'bad_request',
};
