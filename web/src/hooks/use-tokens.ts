import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  changeToken,
  createToken,
  deleteToken,
  listTokens,
  rotateToken,
  tokenKeys,
  type TokenChange,
} from '../api/tokens.js';

export const useTokens = () => useQuery({ queryKey: tokenKeys.all, queryFn: listTokens });

/** Create, rotate, change and delete module tokens; the list is read again after each. */
export function useTokenEdits() {
  const qc = useQueryClient();
  const onSuccess = () => qc.invalidateQueries({ queryKey: tokenKeys.all });
  return {
    create: useMutation({ mutationFn: createToken, onSuccess }),
    rotate: useMutation({ mutationFn: rotateToken, onSuccess }),
    change: useMutation({ mutationFn: (a: { id: string; body: TokenChange }) => changeToken(a.id, a.body), onSuccess }),
    remove: useMutation({ mutationFn: deleteToken, onSuccess }),
  };
}
