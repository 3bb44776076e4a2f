import { client, ok, type Reply } from './client.js';

/** A user as GET /api/v1/users lists it. */
export type UserRow = Reply<'/api/v1/users'>['rows'][number];

export const userKeys = {
  all: ['users'] as const,
  grants: (id: string) => ['grants', id] as const,
};

export const listUsers = () => ok(client.GET('/api/v1/users', { params: { query: { limit: 500 } } }));
