import { useQuery } from '@tanstack/react-query';
import { listUsers, userKeys } from '../api/users.js';

export const useUsers = () => useQuery({ queryKey: userKeys.all, queryFn: listUsers });
