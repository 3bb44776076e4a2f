import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  changeTemplate,
  createTemplate,
  deleteTemplate,
  listTemplates,
  templateKeys,
  templateMatches,
  validateTemplate,
} from '../api/templates.js';

export const useTemplates = () => useQuery({ queryKey: templateKeys.all, queryFn: listTemplates });

export const useTemplateMatches = (id: string | undefined) =>
  useQuery({ queryKey: templateKeys.matches(id), enabled: !!id, queryFn: () => templateMatches(id!) });

export const useValidateTemplate = () => useMutation({ mutationFn: validateTemplate });

/** Create, change (name, document, override), enable or disable, delete; the list is read again after each. */
export function useTemplateEdits() {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: templateKeys.all });
  return {
    create: useMutation({
      mutationFn: (a: { name: string; doc: Record<string, unknown> }) => createTemplate(a.name, a.doc),
      onSuccess,
    }),
    change: useMutation({
      mutationFn: (a: { id: string; body: Parameters<typeof changeTemplate>[1] }) => changeTemplate(a.id, a.body),
      onSuccess,
    }),
    remove: useMutation({ mutationFn: deleteTemplate, onSuccess }),
  };
}
