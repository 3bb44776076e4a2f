import { useCallback, useEffect, useMemo, useState } from 'react';
import type { Camera } from '../../api/cameras.js';
import { errorSentence } from '../../api/error-words.js';
import { useRecording } from '../../hooks/use-cameras.js';
import type { Segment } from '../../lib/recording.js';
import { Player } from '../player.js';

/** What a tile hands the review's clock: its video (once the player has one) and what its playlist holds. */
export interface TileMedia {
  video: HTMLVideoElement | null;
  segments: Segment[];
}

/**
 * One camera of the review: its recording over the span (a playback session of the public API and
 * the segments its playlist lists, lib/recording.ts), played by the shared Player; the review's
 * clock steers the video (ReviewWall). `recorded: false` (the clock's moment is in no segment of
 * this camera) lays "No recording at this time" over it while the others play.
 */
export function ReviewTile(props: {
  camera: Camera;
  fromS: number;
  spanS: number;
  recorded: boolean;
  onMedia(cameraId: string, media: TileMedia | null): void;
  onExport(camera: Camera): void;
}) {
  const { camera, onMedia } = props;
  const recording = useRecording(camera.id, props.fromS, props.spanS);
  const segments = useMemo(() => recording.data?.segments ?? [], [recording.data]);
  const [video, setVideo] = useState<HTMLVideoElement | null>(null);
  const loaded = recording.data !== undefined;
  useEffect(() => {
    // Only a read recording is handed over: an unread one is not a gap, and the clock's last
    // look would otherwise say "No recording" over this camera until its next tick.
    if (!loaded) return;
    onMedia(camera.id, { video, segments });
    return () => onMedia(camera.id, null);
  }, [camera.id, loaded, video, segments, onMedia]);
  const gotVideo = useCallback((v: HTMLVideoElement | null) => setVideo(v), []);
  const play = recording.data?.play;

  return (
    <figure className="sync-tile" data-camera={camera.name}>
      <figcaption>
        <span className="name">{camera.name}</span>
        <button type="button" onClick={() => props.onExport(camera)}>
          Export
        </button>
      </figcaption>
      <div className="sync-video">
        {recording.isPending ? (
          <p className="empty">Reading the recording…</p>
        ) : recording.isError ? (
          <p className="error" role="alert">
            The recording could not be read: {errorSentence(recording.error)}
          </p>
        ) : play && segments.length ? (
          <Player
            cameraId={camera.id}
            request={{ intent: 'playback', from: props.fromS, duration: props.spanS }}
            source={play}
            onVideo={gotVideo}
          />
        ) : null}
        {!recording.isPending && !recording.isError && !props.recorded && (
          <p className="no-recording">No recording at this time</p>
        )}
      </div>
    </figure>
  );
}
