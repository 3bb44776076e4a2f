import { client, ok, type Reply, type Sent } from './client.js';

/** A user as GET /api/v1/users lists it. */
export type UserRow = Reply<'/api/v1/users'>['rows'][number];
export type Tag = Reply<'/api/v1/tags'>['rows'][number];
/** A role a new user may be given. */
export type Role = NonNullable<Sent<'/api/v1/users', 'post'>['role']>;
export type Grants = Sent<'/api/v1/users/{id}/grants', 'put'>;

export const userKeys = {
  all: ['users'] as const,
  tags: ['tags'] as const,
  grants: (id: string) => ['grants', id] as const,
};

export const listUsers = () => ok(client.GET('/api/v1/users', { params: { query: { limit: 500 } } }));
export const createUser = (body: Sent<'/api/v1/users', 'post'>) => ok(client.POST('/api/v1/users', { body }));
export const changeUser = (id: string, body: Sent<'/api/v1/users/{id}', 'patch'>) =>
  ok(client.PATCH('/api/v1/users/{id}', { params: { path: { id } }, body }));
export const deleteUser = (id: string) => ok(client.DELETE('/api/v1/users/{id}', { params: { path: { id } } }));

/** The cameras and tags an operator may see (document 1), read and replaced as a whole. */
export const grants = (id: string) => ok(client.GET('/api/v1/users/{id}/grants', { params: { path: { id } } }));
export const setGrants = (id: string, body: Grants) =>
  ok(client.PUT('/api/v1/users/{id}/grants', { params: { path: { id } }, body }));

export const listTags = () => ok(client.GET('/api/v1/tags', { params: { query: { limit: 500 } } }));
export const createTag = (name: string) => ok(client.POST('/api/v1/tags', { body: { name } }));
export const renameTag = (id: string, name: string) =>
  ok(client.PATCH('/api/v1/tags/{id}', { params: { path: { id } }, body: { name } }));
export const deleteTag = (id: string) => ok(client.DELETE('/api/v1/tags/{id}', { params: { path: { id } } }));
