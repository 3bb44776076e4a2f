import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { resolveInside } from '../../common/resolve-inside.js';
import { errors } from '../errors.js';
import type { TicketClaims } from '../grants/session-keys.js';
import type { StreamRegistry } from '../system/streams.service.js';
import type { DvrService } from './dvr/dvr.service.js';
import { livePlaylist, masterPlaylist, playbackPlaylist } from './hls/playlists.js';
import type { Previews } from './hls/preview.js';
import type { MediaPipeline } from './ingest/ingest.service.js';
import { EXPORT_MAX_SECS, exportMp4 } from './playback/export.js';
import type { ViewerSessions } from './viewer/sessions.service.js';
import type { ViewerAccess } from './viewer/viewer.service.js';

export const PLAYBACK_MAX_SECS = 24 * 3600;
/** How long the first playlist request of a starting or parked stream waits for a playable segment. */
const FIRST_SEGMENT_WAIT_MS = 15_000;

/** An admitted viewer (from the authorizer) and the client it fetches from. */
export interface Viewer {
  /** The ticket's claims; null when media is not protected. */
  claims: TicketClaims | null;
  /** The ticket the request presented, reused in the playlist's URLs; a new one is issued otherwise. */
  ticket: string | undefined;
  ip: string;
  userAgent: string;
}

export interface MediaServiceDeps {
  log: Logger;
  pipeline: MediaPipeline;
  dvr: DvrService;
  sessions: ViewerSessions;
  viewers: ViewerAccess;
  previews: Previews;
  streams: StreamRegistry;
  ffmpeg: string;
  /** `{data_dir}/tmp`: exports in progress. */
  tmpDir: string;
}

/**
 * What the media routes serve, once the authorizer has admitted the request: live and recorded
 * playlists (their URLs carrying the viewer's session ticket), segment files, the preview picture
 * and exports. Every playlist or segment fetch keeps the viewer's session alive.
 */
export class MediaService {
  constructor(private readonly deps: MediaServiceDeps) {}

  /** `index.m3u8` (entry, multivariant) or `live.m3u8`: waits for a starting or parked stream to serve. */
  async livePlaylist(stream: string, file: 'entry' | 'live', viewer: Viewer): Promise<string> {
    const { pipeline } = this.deps;
    const ingest = await pipeline.demand(stream, FIRST_SEGMENT_WAIT_MS);
    if (!ingest) {
      const status = pipeline.status(stream);
      throw errors.streamNotReady(stream, this.state(stream), status?.reason ?? status?.last_error);
    }
    const ticket = await this.ticketFor(viewer);
    if (file === 'entry') return masterPlaylist(ingest.status(), ticket);
    const text = await readFile(join(ingest.dir, 'index.m3u8'), 'utf8').catch(() => null);
    if (text === null) throw errors.streamNotReady(stream, this.state(stream));
    return livePlaylist(text, ticket);
  }

  /** The path of a live segment file (the route answers 404 when it is gone). */
  liveSegment(stream: string, name: string, viewer: Viewer): string {
    this.touch(viewer);
    const ingest = this.deps.pipeline.ingest(stream);
    if (!ingest) throw errors.notFound();
    return resolveInside(ingest.dir, name);
  }

  /** `index-<from>-<secs>.m3u8`: the recorded segments of the range as a VOD playlist. */
  async playbackPlaylist(stream: string, from: number, secs: number, viewer: Viewer): Promise<string> {
    if (secs < 1 || secs > PLAYBACK_MAX_SECS)
      throw errors.rangeInvalid(`duration must be 1 to ${PLAYBACK_MAX_SECS} seconds`);
    const segs = this.deps.dvr.store(stream)?.range(from * 1000, (from + secs) * 1000) ?? [];
    if (segs.length === 0) throw errors.noRecording(stream);
    return playbackPlaylist(segs, await this.ticketFor(viewer));
  }

  /** The path of the recorded segment that starts at `startMs`. */
  recordedSegment(stream: string, startMs: number, viewer: Viewer): string {
    this.touch(viewer);
    const store = this.deps.dvr.store(stream);
    const seg = store?.find(startMs);
    if (!store || !seg) throw errors.notFound();
    return store.path(seg);
  }

  /** The first picture of the newest live segment, else of the newest recorded one. */
  async preview(stream: string): Promise<Buffer> {
    const { pipeline, dvr, previews } = this.deps;
    const live = pipeline.ingest(stream)?.live;
    const store = dvr.store(stream);
    const lastRec = store?.list()[store.count - 1];
    const source = live && live.length > 0 ? live[live.length - 1].path : lastRec && store ? store.path(lastRec) : null;
    if (!source) throw errors.streamNotReady(stream, this.state(stream));
    return previews.jpeg(stream, source).catch(() => {
      throw errors.streamNotReady(stream, this.state(stream));
    });
  }

  /** The range as one MP4 file under `{data_dir}/tmp`; the caller runs `cleanup` once it is sent. */
  async export(stream: string, from: number, secs: number): Promise<{ file: string; cleanup(): Promise<void> }> {
    if (secs < 1 || secs > EXPORT_MAX_SECS)
      throw errors.rangeInvalid(`duration must be 1 to ${EXPORT_MAX_SECS} seconds`);
    const { dvr, ffmpeg, tmpDir, log } = this.deps;
    const store = dvr.store(stream);
    const segs = store?.range(from * 1000, (from + secs) * 1000) ?? [];
    if (!store || segs.length === 0) throw errors.noRecording(stream);
    try {
      return await exportMp4(
        ffmpeg,
        tmpDir,
        segs.map((s) => ({ ...s, path: store.path(s) })),
        from * 1000,
        (from + secs) * 1000,
      );
    } catch (err) {
      log.error({ err, stream }, 'export failed');
      throw errors.exportFailed();
    }
  }

  private state(stream: string): string | undefined {
    return this.deps.streams.get(stream)?.state;
  }

  private touch(viewer: Viewer): void {
    if (viewer.claims) this.deps.sessions.touch(viewer.claims, { ip: viewer.ip, userAgent: viewer.userAgent });
  }

  /** The ticket a playlist's URLs carry: the one presented, else a new one; none when media is open. */
  private async ticketFor(viewer: Viewer): Promise<string | null> {
    if (!viewer.claims) return null;
    this.touch(viewer);
    return viewer.ticket ?? this.deps.viewers.ticket(viewer.claims);
  }
}
