import { useCallback, useEffect, useRef, useState } from 'react';
import { downloadExport, saveFile, type ExportRequest } from '../api/exports.js';
import { errorSentence } from '../api/error-words.js';

/** Where one export is, as the panel says it. */
export type ExportState =
  | { phase: 'idle' }
  /** asked; the node builds the file before its first byte */
  | { phase: 'preparing' }
  | { phase: 'receiving'; received: number; total: number | null }
  | { phase: 'saved'; name: string; bytes: number }
  | { phase: 'cancelled' }
  /** the plane's refusal (or a failed connection) as a sentence */
  | { phase: 'failed'; sentence: string };

/**
 * One export at a time from a panel: `start` downloads it (progress as it comes) and saves it
 * under the plane's file name, `cancel` aborts it (the plane stops the node's work when the
 * connection closes). A panel that goes away cancels its download.
 */
export function useExport() {
  const [state, setState] = useState<ExportState>({ phase: 'idle' });
  const running = useRef<AbortController | null>(null);
  useEffect(() => () => running.current?.abort(), []);

  const start = useCallback(async (r: ExportRequest) => {
    running.current?.abort();
    const abort = new AbortController();
    running.current = abort;
    setState({ phase: 'preparing' });
    try {
      const file = await downloadExport(
        r,
        (p) => {
          if (!abort.signal.aborted) setState({ phase: 'receiving', ...p });
        },
        abort.signal,
      );
      abort.signal.throwIfAborted();
      saveFile(file);
      setState({ phase: 'saved', name: file.name, bytes: file.blob.size });
    } catch (err) {
      if (abort.signal.aborted) setState({ phase: 'cancelled' });
      else setState({ phase: 'failed', sentence: errorSentence(err) });
    } finally {
      if (running.current === abort) running.current = null;
    }
  }, []);

  const cancel = useCallback(() => {
    running.current?.abort();
  }, []);

  const busy = state.phase === 'preparing' || state.phase === 'receiving';
  return { state, busy, start, cancel };
}
