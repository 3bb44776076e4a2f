import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { adjacentEvent, cameraEvents, closeInterval, eventCard, eventKeys, star } from '../api/events.js';
import { searchOfFilters, type FeedFilters } from '../lib/feed-url.js';

export const useEventCard = (id: string) => useQuery({ queryKey: eventKeys.card(id), queryFn: () => eventCard(id) });

/** Star and unstar; the card is read again. */
export function useStar(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (on: boolean) => star(id, on),
    onSuccess: () => qc.invalidateQueries({ queryKey: eventKeys.card(id) }),
  });
}

/** Closes the open interval now; the card is read again. */
export function useCloseInterval(id: string) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => closeInterval(id),
    onSuccess: () => qc.invalidateQueries({ queryKey: eventKeys.card(id) }),
  });
}

/**
 * The newer (`previous`) or older (`next`) event of the view from `from`, asked when the card
 * shows: null at that end of the view, so the card disables the button instead of offering a
 * step that goes nowhere.
 */
export const useAdjacentEvent = (
  filters: FeedFilters,
  from: { id: string; occurred_at: string } | undefined,
  direction: 'previous' | 'next',
) =>
  useQuery({
    queryKey: eventKeys.adjacent(searchOfFilters(filters), from?.id ?? '', direction),
    queryFn: () => adjacentEvent(filters, from!, direction),
    enabled: !!from,
  });

/** A camera's events over a window starting at `from` (unix seconds). */
export const useCameraEvents = (camera: string, from: number, seconds: number) =>
  useQuery({
    queryKey: eventKeys.ofCamera(camera, from, seconds),
    queryFn: () => cameraEvents(camera, new Date(from * 1000)),
  });
