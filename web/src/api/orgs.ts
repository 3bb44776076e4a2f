import { client, ok, type Sent } from './client.js';

export type OrgChange = Sent<'/api/v1/orgs/{id}', 'patch'>;

export const orgKeys = { all: ['orgs'] as const, usage: ['usage'] as const };

export const listOrgs = () => ok(client.GET('/api/v1/orgs', { params: { query: { limit: 500 } } }));
export const createOrg = (name: string) => ok(client.POST('/api/v1/orgs', { body: { name } }));
export const changeOrg = (id: string, body: OrgChange) =>
  ok(client.PATCH('/api/v1/orgs/{id}', { params: { path: { id } }, body }));
/** Deletes the organisation; the plane archives its event history. */
export const deleteOrg = (id: string) => ok(client.DELETE('/api/v1/orgs/{id}', { params: { path: { id } } }));

/** The caller's organisation's use against its quotas. */
export const usage = () => ok(client.GET('/api/v1/usage'));
