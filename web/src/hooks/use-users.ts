import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  changeUser,
  createTag,
  createUser,
  deleteTag,
  deleteUser,
  grants,
  listTags,
  listUsers,
  renameTag,
  setGrants,
  userKeys,
  type Grants,
} from '../api/users.js';

export const useUsers = () => useQuery({ queryKey: userKeys.all, queryFn: listUsers });

export const useTags = () => useQuery({ queryKey: userKeys.tags, queryFn: listTags });

export const useGrants = (user: string) => useQuery({ queryKey: userKeys.grants(user), queryFn: () => grants(user) });

export function useSetGrants(user: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (g: Grants) => setGrants(user, g),
    onSuccess: () => qc.invalidateQueries({ queryKey: userKeys.grants(user) }),
  });
}

/**
 * The people page's edits (users and tags): each reads both lists again when done; `handlers`
 * says success and failure to the page.
 */
export function usePeopleEdits(handlers: { onSuccess(): void; onError(err: unknown): void }) {
  const qc = useQueryClient();
  const done = {
    onSuccess: () => {
      handlers.onSuccess();
      void qc.invalidateQueries({ queryKey: userKeys.all });
      void qc.invalidateQueries({ queryKey: userKeys.tags });
    },
    onError: handlers.onError,
  };
  return {
    createUser: useMutation({ mutationFn: createUser, ...done }),
    changeUser: useMutation({
      mutationFn: (a: { id: string; body: Parameters<typeof changeUser>[1] }) => changeUser(a.id, a.body),
      ...done,
    }),
    deleteUser: useMutation({ mutationFn: deleteUser, ...done }),
    createTag: useMutation({ mutationFn: createTag, ...done }),
    renameTag: useMutation({ mutationFn: (a: { id: string; name: string }) => renameTag(a.id, a.name), ...done }),
    deleteTag: useMutation({ mutationFn: deleteTag, ...done }),
  };
}

/**
 * Sets a user's password (PATCH /api/v1/users/{id} {password}): the own one from the profile (any
 * role, document 1: the own name and password), another's by an administrator (its sessions end).
 */
export const useSetPassword = () =>
  useMutation({ mutationFn: (a: { id: string; password: string }) => changeUser(a.id, { password: a.password }) });
