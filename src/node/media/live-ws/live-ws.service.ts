import { randomUUID } from 'node:crypto';
import { errors } from '../../errors.js';
import type { StreamRegistry } from '../../system/streams.service.js';
import type { MediaPipeline } from '../ingest/ingest.service.js';
import type { Viewer } from '../media.service.js';
import type { ViewerSessions } from '../viewer/sessions.service.js';
import { LIVE_WS_PROTOCOL } from '../viewer/viewer.service.js';
import type { LiveFeeds, LiveViewerSocket } from './live-feeds.js';

/** As index.m3u8: how long a viewer of a starting or parked stream waits for it to serve. */
const FIRST_SEGMENT_WAIT_MS = 15_000;

export interface LiveWsDeps {
  feeds: LiveFeeds;
  pipeline: Pick<MediaPipeline, 'demand' | 'status'>;
  sessions: Pick<ViewerSessions, 'open'>;
  streams: Pick<StreamRegistry, 'get'>;
}

/**
 * Live over WebSocket (document 4 section 14): what the route asks once the access hook has
 * admitted the viewer. The stream must serve before the upgrade; then the viewer is attached to
 * the stream's feed and is a session of protocol `ws` for as long as its socket is open.
 */
export class LiveWs {
  constructor(private readonly deps: LiveWsDeps) {}

  /** Before the upgrade: the stream serves (a parked on-demand stream is started), else 503 as index.m3u8 answers. */
  async ready(stream: string): Promise<void> {
    const { pipeline, streams } = this.deps;
    const ingest = await pipeline.demand(stream, FIRST_SEGMENT_WAIT_MS);
    if (ingest) return;
    const status = pipeline.status(stream);
    throw errors.streamNotReady(stream, streams.get(stream)?.state, status?.reason ?? status?.last_error);
  }

  /** An upgraded viewer: attached to the stream's feed and listed as a session. Returns its leave. */
  join(stream: string, socket: LiveViewerSocket, viewer: Viewer): () => void {
    const c = viewer.claims;
    const closeSession = this.deps.sessions.open({
      // A session of its own, not the ticket's: an HLS session of the same ticket is another viewer.
      id: randomUUID(),
      stream,
      protocol: LIVE_WS_PROTOCOL,
      client_ip: viewer.ip,
      user_agent: viewer.userAgent,
      sub: c?.sub ?? '',
      subject_kind: c?.subject_kind ?? null,
      subject_name: c?.subject_name ?? null,
      camera_id: c?.camera_id ?? null,
    });
    this.deps.feeds.add(stream, socket);
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.deps.feeds.remove(stream, socket);
      closeSession();
    };
  }
}
