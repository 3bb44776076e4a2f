import { client, ok, type Reply } from './client.js';

/** An event template as GET /api/v1/templates lists it. */
export type Template = Reply<'/api/v1/templates'>['rows'][number];
/** A template document as the editor holds it (the plane validates it). */
type Doc = Record<string, unknown>;

export const templateKeys = {
  all: ['templates'] as const,
  matches: (id: string | undefined) => ['matches', id] as const,
};

export const listTemplates = () => ok(client.GET('/api/v1/templates', { params: { query: { limit: 500 } } }));
/** The detectors of the last days the template's mask matches. */
export const templateMatches = (id: string) =>
  ok(client.GET('/api/v1/templates/{id}/matches', { params: { path: { id } } }));
export const validateTemplate = (doc: Doc) => ok(client.POST('/api/v1/templates/validate', { body: { doc } }));
export const createTemplate = (name: string, doc: Doc) => ok(client.POST('/api/v1/templates', { body: { name, doc } }));
/** A template's change: name and document, or for a system template its override (document only). */
export const changeTemplate = (id: string, body: { name?: string; doc?: Doc; enabled?: boolean }) =>
  ok(client.PATCH('/api/v1/templates/{id}', { params: { path: { id } }, body }));
/** Deletes an organisation template (a system one is refused: system_template_readonly). */
export const deleteTemplate = (id: string) => ok(client.DELETE('/api/v1/templates/{id}', { params: { path: { id } } }));
