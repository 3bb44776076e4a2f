import { useEffect, useRef, useState } from 'react';
import type Hls from 'hls.js';
import { play as askPlay, type PlayRequest } from '../api/cameras.js';
import { errorSentence } from '../api/error-words.js';

/**
 * One HLS player: a viewer token from POST /api/v1/cameras/{id}/play, then hls.js on the node's
 * playlist with `?token=`. `active: false` (a tile scrolled out of view) stops loading and frees
 * the buffer; the back buffer is kept small so that a wall of tiles stays light.
 */
export function Player(props: {
  cameraId: string;
  request?: PlayRequest;
  active?: boolean;
  controls?: boolean;
  onPlaying?(): void;
  startAt?: number;
  /** a token already obtained (the timeline reads the same playlist) */
  source?: { url: string; token: string };
  onVideo?(v: HTMLVideoElement | null): void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const active = props.active ?? true;
  const req = JSON.stringify(props.request ?? {});

  useEffect(() => {
    if (!active || !video.current) return;
    let hls: Hls | null = null;
    let stopped = false;
    const v = video.current;
    setProblem(null);
    (async () => {
      try {
        const play = props.source ?? (await askPlay(props.cameraId, JSON.parse(req) as PlayRequest));
        if (stopped) return;
        // hls.js is loaded with the first player, not with the console (the login page and the feed
        // need none of it); its light build, about 60 KB less over the wire (issue 22): the nodes'
        // playlists have no alternate audio, subtitles or keys (src/node/media/hls).
        const { default: HlsPlayer } = await import('hls.js/light');
        if (stopped) return;
        const src = `${play.url}${play.url.includes('?') ? '&' : '?'}token=${encodeURIComponent(play.token)}`;
        const live = (JSON.parse(req) as PlayRequest).intent !== 'playback';
        if (HlsPlayer.isSupported()) {
          hls = new HlsPlayer({
            backBufferLength: live ? 4 : 30,
            maxBufferLength: live ? 8 : 30,
            liveSyncDurationCount: 2,
            enableWorker: true,
            lowLatencyMode: false,
          });
          hls.on(HlsPlayer.Events.ERROR, (_e, d) => {
            if (d.fatal) setProblem(d.response?.code === 403 ? 'Access refused by the node.' : 'Stream unavailable.');
          });
          hls.loadSource(src);
          hls.attachMedia(v);
        } else if (v.canPlayType('application/vnd.apple.mpegurl')) v.src = src;
        else {
          setProblem('This browser cannot play HLS.');
          return;
        }
        if (props.startAt !== undefined)
          v.addEventListener(
            'loadedmetadata',
            () => {
              v.currentTime = props.startAt!;
            },
            { once: true },
          );
        await v.play().catch(() => {});
      } catch (err) {
        if (!stopped) setProblem(`No video. ${errorSentence(err)}`);
      }
    })();
    return () => {
      stopped = true;
      hls?.destroy();
      v.removeAttribute('src');
      v.load();
    };
  }, [props.cameraId, req, active, props.startAt, props.source]);

  const { onVideo } = props;
  useEffect(() => {
    onVideo?.(video.current);
    return () => onVideo?.(null);
  }, [onVideo]);

  return (
    <div className="player">
      <video ref={video} muted playsInline autoPlay controls={props.controls} onPlaying={props.onPlaying} />
      {problem && <div className="problem">{problem}</div>}
    </div>
  );
}
