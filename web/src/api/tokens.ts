import { client, ok, type Reply, type Sent } from './client.js';

/** A module token as GET /api/v1/module-tokens lists it (never its secret). */
export type Token = Reply<'/api/v1/module-tokens'>['rows'][number];
export type TokenChange = Sent<'/api/v1/module-tokens/{id}', 'patch'>;

export const tokenKeys = { all: ['module-tokens'] as const };

export const listTokens = () => ok(client.GET('/api/v1/module-tokens'));
/** A new token; the answer holds its secret, shown once. */
export const createToken = (body: Sent<'/api/v1/module-tokens', 'post'>) =>
  ok(client.POST('/api/v1/module-tokens', { body }));
/** A new secret for the token (the old one stops working); shown once. */
export const rotateToken = (id: string) =>
  ok(client.POST('/api/v1/module-tokens/{id}/rotate', { params: { path: { id } } }));
export const changeToken = (id: string, body: TokenChange) =>
  ok(client.PATCH('/api/v1/module-tokens/{id}', { params: { path: { id } }, body }));
export const deleteToken = (id: string) =>
  ok(client.DELETE('/api/v1/module-tokens/{id}', { params: { path: { id } } }));
