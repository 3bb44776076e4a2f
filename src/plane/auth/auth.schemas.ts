import { Type } from 'typebox';

export const UserBrief = Type.Object({
  id: Type.String({ format: 'uuid' }),
  org_id: Type.String({ format: 'uuid' }),
  login: Type.String(),
  name: Type.String(),
  role: Type.String(),
  disabled: Type.Boolean(),
});

export const LoginBody = Type.Object(
  {
    login: Type.String({ minLength: 1, maxLength: 256 }),
    password: Type.String({ minLength: 1, maxLength: 1024 }),
  },
  { additionalProperties: false },
);

export const LoginReply = Type.Object({
  token: Type.String(),
  expires_at: Type.String({ format: 'date-time' }),
  user: UserBrief,
});

export const MeReply = Type.Object({
  user: UserBrief,
  session: Type.Object({ id: Type.String({ format: 'uuid' }), expires_at: Type.String({ format: 'date-time' }) }),
});

export const RotateQuery = Type.Object({ scope: Type.Optional(Type.String()) });
export const RotateReply = Type.Object({ kid: Type.String(), scope: Type.String() });
