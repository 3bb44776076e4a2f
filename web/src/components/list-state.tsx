import type { ReactNode } from 'react';
import { errorSentence } from '../api/error-words.js';

/** A refused read or action as a sentence (never a code), with a way to try again when there is one. */
export function ErrorBanner(props: { what: string; error: unknown; retry?: () => void }) {
  return (
    <p className="error" role="alert">
      {props.what} could not be read: {errorSentence(props.error)}{' '}
      {props.retry && (
        <button className="link" onClick={props.retry}>
          Try again
        </button>
      )}
    </p>
  );
}

/** Nothing to show, said in words. */
export function Empty(props: { children: ReactNode }) {
  return <p className="empty">{props.children}</p>;
}

/** The part of a query a list needs; TanStack Query's result has it. */
export interface ListQuery<T> {
  isPending: boolean;
  isError: boolean;
  error: unknown;
  data: T | undefined;
  refetch: () => unknown;
}

/**
 * A list read in its four states (issue 21 §4): "Loading …" while pending, the refusal as a
 * sentence with Try again, `empty` when there is no row, else the rows. `what` names the list in
 * the sentences ("The saved reports").
 */
export function ListState<T>(props: {
  what: string;
  query: ListQuery<T>;
  isEmpty: (data: T) => boolean;
  empty: ReactNode;
  children: (data: T) => ReactNode;
}) {
  const { query } = props;
  if (query.isPending) return <Empty>Loading {props.what.replace(/^The /, '').toLowerCase()}…</Empty>;
  if (query.isError || query.data === undefined)
    return <ErrorBanner what={props.what} error={query.error} retry={() => void query.refetch()} />;
  if (props.isEmpty(query.data)) return <Empty>{props.empty}</Empty>;
  return <>{props.children(query.data)}</>;
}
