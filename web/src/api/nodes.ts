import { client, ok, type Reply, type Sent } from './client.js';
import type { paths } from './openapi.gen.js';

export const nodeKeys = {
  all: ['nodes'] as const,
  licence: (id: string) => ['node-licence', id] as const,
  logging: (id: string) => ['node-logging', id] as const,
  sessions: (id: string) => ['node-sessions', id] as const,
  logs: (id: string, level: string) => ['node-logs', id, level] as const,
  history: (id: string) => ['node-history', id] as const,
};

const at = (id: string) => ({ params: { path: { id } } });

export const listNodes = () => ok(client.GET('/api/v1/nodes'));

/** A node as the list gives it: its secrets only as `*_configured` flags. */
export type NodeRow = Reply<'/api/v1/nodes'>['rows'][number];
/** A node registered (superadmin): name, base URL, write token, viewer secret, enabled. */
export type NodeCreate = Sent<'/api/v1/nodes', 'post'>;
/** A change of a node: a secret sent replaces the stored one. */
export type NodeChange = Sent<'/api/v1/nodes/{id}', 'patch'>;
export const createNode = (body: NodeCreate) => ok(client.POST('/api/v1/nodes', { body }));
export const changeNode = (id: string, body: NodeChange) => ok(client.PATCH('/api/v1/nodes/{id}', { ...at(id), body }));
/** Removes a node without cameras (409 node_in_use otherwise). */
export const deleteNode = (id: string) => ok(client.DELETE('/api/v1/nodes/{id}', at(id)));
/** The node's licence as the node reports it, through the plane. */
export const nodeLicence = (id: string) => ok(client.GET('/api/v1/nodes/{id}/license', at(id)));
export const nodeLogging = (id: string) => ok(client.GET('/api/v1/nodes/{id}/logging', at(id)));
export type NodeLevel = Sent<'/api/v1/nodes/{id}/logging', 'patch'>;
export const setNodeLogging = (id: string, body: NodeLevel) =>
  ok(client.PATCH('/api/v1/nodes/{id}/logging', { ...at(id), body }));
/** The node's live viewing sessions. */
export const nodeSessions = (id: string) => ok(client.GET('/api/v1/nodes/{id}/sessions', at(id)));
/** The newest entries of the node's log ring at `level` and above. */
export type LogLevel = NonNullable<
  NonNullable<paths['/api/v1/nodes/{id}/logs']['get']['parameters']['query']>['level']
>;
export const nodeLogs = (id: string, level: LogLevel) =>
  ok(client.GET('/api/v1/nodes/{id}/logs', { params: { path: { id }, query: { level, limit: 200 } } }));
/** The node's configuration versions, oldest first. */
export const nodeHistory = (id: string) => ok(client.GET('/api/v1/nodes/{id}/config/history', at(id)));
/** Applies version `epoch` again, as a new version. */
export const rollBack = (id: string, epoch: number) =>
  ok(client.POST('/api/v1/nodes/{id}/config/rollback', { ...at(id), body: { epoch } }));
/** The node's configuration as it runs (the plane audits the read: the text holds secrets). */
export const nodeConfig = (id: string) => ok(client.GET('/api/v1/nodes/{id}/config', at(id)));
