import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { changeOrg, createOrg, deleteOrg, listOrgs, orgKeys, usage, type OrgChange } from '../api/orgs.js';

export const useOrgs = () => useQuery({ queryKey: orgKeys.all, queryFn: listOrgs });

export const useUsage = () => useQuery({ queryKey: orgKeys.usage, queryFn: usage });

/** Create, change and delete organisations; the list is read again after each. */
export function useOrgEdits() {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: orgKeys.all });
  return {
    create: useMutation({ mutationFn: createOrg, onSuccess }),
    change: useMutation({ mutationFn: (a: { id: string; body: OrgChange }) => changeOrg(a.id, a.body), onSuccess }),
    remove: useMutation({ mutationFn: deleteOrg, onSuccess }),
  };
}
