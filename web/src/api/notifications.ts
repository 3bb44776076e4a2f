import { sessionToken } from './client.js';
import { readSse } from '../lib/sse.js';
import type { StreamFrame } from '../lib/live-feed.js';

/**
 * The live event stream from now on (no cursor: live only, document 2), every frame handed to
 * `onFrame`; resolves when the stream ends, rejects when it is refused. The stream carries only
 * what the user may see: the plane applies the rights.
 */
export async function followNewEvents(onFrame: (frame: StreamFrame) => void, signal: AbortSignal): Promise<void> {
  await readSse(
    '/api/v1/events/stream',
    sessionToken() ?? '',
    {
      frame: (data) => {
        let frame: unknown;
        try {
          frame = JSON.parse(data);
        } catch {
          return;
        }
        if (frame && typeof frame === 'object' && typeof (frame as StreamFrame).id === 'string')
          onFrame(frame as StreamFrame);
      },
    },
    signal,
  );
}
