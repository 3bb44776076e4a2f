import { useEffect, useRef, useState } from 'react';
import type Hls from 'hls.js';
import { play as askPlay, type PlayRequest } from '../api/cameras.js';
import { errorSentence } from '../api/error-words.js';
import { LIVE_SYNC_SEGMENTS } from '../lib/live-sync.js';
import { liveWsUrl, mediaSourceCtor, WsLive, type LiveFailure } from '../lib/ws-live.js';

/** How the player gets its video: the node's live WebSocket through MSE, or HLS. */
export type Transport = 'ws' | 'hls';

/** A live socket that dropped after playing is tried again this long after, with a new token. */
const WS_RETRY_MS = 1000;

/**
 * One player. Live intent plays the node's `live.ws` (fragmented MP4 over a WebSocket, Media
 * Source Extensions: well under a second behind the camera) and falls back to HLS by itself when
 * the browser has no MSE, cannot play the codec, the socket is refused or closes before the first
 * frame, or the picture stalls (issue 23); recordings (playback intent) are HLS. A socket that
 * drops after playing is opened again once with a new token; if that one fails before its first
 * frame the player stays on HLS until its camera or request changes. The transport in use is the
 * element's `data-transport`, its intent `data-intent` (live, playback). `active: false` (a tile
 * scrolled out of view) stops loading and frees the buffer; the back buffer is kept small so that
 * a wall of tiles stays light.
 *
 * Every mapping of media time to the source's wall clock is dispatched on the video element as an
 * `argus-wallclock` event, `{mediaTime, wallMs, via, duration?}`: from the fragments' `prft` boxes over the
 * WebSocket, from each HLS fragment's program date-time (the latency bench reads them).
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
  /** told which transport plays, each time it changes */
  onTransport?(t: Transport): void;
}) {
  const video = useRef<HTMLVideoElement>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [transport, setTransport] = useState<Transport | null>(null);
  // A new WebSocket attempt after a live socket dropped (a new token from the plane).
  const [round, setRound] = useState(0);
  const wsRefused = useRef(false);
  const active = props.active ?? true;
  const req = JSON.stringify(props.request ?? {});
  const { onTransport } = props;
  const live = props.request?.intent !== 'playback';

  // Another camera or request tries the WebSocket afresh.
  useEffect(() => {
    wsRefused.current = false;
  }, [props.cameraId, req]);

  useEffect(() => {
    if (transport) onTransport?.(transport);
  }, [transport, onTransport]);

  useEffect(() => {
    if (!active || !video.current) return;
    let stopped = false;
    let stopMedia: (() => void) | null = null;
    let retry: ReturnType<typeof setTimeout> | null = null;
    const v = video.current;
    const request = JSON.parse(req) as PlayRequest;
    setProblem(null);
    (async () => {
      try {
        const play = props.source ?? (await askPlay(props.cameraId, request));
        if (stopped) return;
        const wsUrl =
          live && !wsRefused.current && mediaSourceCtor() ? liveWsUrl(play.url, play.token, location.href) : null;
        if (wsUrl) {
          setTransport('ws');
          const ws = playWs(v, wsUrl, () => {
            // Dropped after playing: once more over the WebSocket, with a new token.
            stopMedia?.();
            stopMedia = null;
            if (!stopped) retry = setTimeout(() => setRound((r) => r + 1), WS_RETRY_MS);
          });
          stopMedia = ws.stop;
          const failure = await ws.started;
          if (stopped || failure === null) return;
          ws.stop();
          wsRefused.current = true;
        }
        setTransport('hls');
        stopMedia = await playHls(v, play, live, props.startAt, setProblem, () => stopped);
      } catch (err) {
        if (!stopped) setProblem(`No video. ${errorSentence(err)}`);
      }
    })();
    return () => {
      stopped = true;
      if (retry) clearTimeout(retry);
      stopMedia?.();
      v.removeAttribute('src');
      v.load();
    };
  }, [props.cameraId, req, live, active, props.startAt, props.source, round]);

  const { onVideo } = props;
  useEffect(() => {
    onVideo?.(video.current);
    return () => onVideo?.(null);
  }, [onVideo]);

  return (
    <div className="player" data-intent={live ? 'live' : 'playback'} data-transport={transport ?? undefined}>
      <video ref={video} muted playsInline autoPlay controls={props.controls} onPlaying={props.onPlaying} />
      {problem && <div className="problem">{problem}</div>}
    </div>
  );
}

/**
 * Live over the node's WebSocket: `started` answers null once the first frame is buffered, or the
 * failure that came first; a failure after that calls `onDropped`.
 */
function playWs(
  v: HTMLVideoElement,
  url: string,
  onDropped: (f: LiveFailure) => void,
): { started: Promise<LiveFailure | null>; stop(): void } {
  let live: WsLive | null = null;
  let playing = false;
  const started = new Promise<LiveFailure | null>((resolve) => {
    live = new WsLive({
      url,
      video: v,
      onStarted() {
        playing = true;
        resolve(null);
      },
      onFailure(f) {
        if (playing) onDropped(f);
        else resolve(f);
      },
    });
  });
  return { started, stop: () => live?.stop() };
}

/** HLS through hls.js (native HLS where MSE is missing, Safari on iPhone); answers how to stop it. */
async function playHls(
  v: HTMLVideoElement,
  play: { url: string; token: string },
  live: boolean,
  startAt: number | undefined,
  setProblem: (p: string | null) => void,
  stopped: () => boolean,
): Promise<(() => void) | null> {
  // hls.js is loaded with the first HLS player, not with the console (the login page and the feed
  // need none of it); its light build, about 60 KB less over the wire (issue 22): the nodes'
  // playlists have no alternate audio, subtitles or keys (src/node/media/hls).
  const { default: HlsPlayer } = await import('hls.js/light');
  if (stopped()) return null;
  const src = `${play.url}${play.url.includes('?') ? '&' : '?'}token=${encodeURIComponent(play.token)}`;
  let hls: Hls | null = null;
  if (HlsPlayer.isSupported()) {
    hls = new HlsPlayer({
      backBufferLength: live ? 4 : 30,
      maxBufferLength: live ? 8 : 30,
      // The live point: LIVE_SYNC_SEGMENTS segments behind the playlist's end (lib/live-sync.ts).
      liveSyncDurationCount: LIVE_SYNC_SEGMENTS,
      enableWorker: true,
      lowLatencyMode: false,
    });
    hls.on(HlsPlayer.Events.ERROR, (_e, d) => {
      if (d.fatal) setProblem(d.response?.code === 403 ? 'Access refused by the node.' : 'Stream unavailable.');
    });
    hls.on(HlsPlayer.Events.FRAG_BUFFERED, (_e, d) => {
      const f = d.frag;
      if (f.programDateTime !== null)
        v.dispatchEvent(
          new CustomEvent('argus-wallclock', {
            detail: { mediaTime: f.start, wallMs: f.programDateTime, via: 'pdt', duration: f.duration },
          }),
        );
    });
    hls.loadSource(src);
    hls.attachMedia(v);
  } else if (v.canPlayType('application/vnd.apple.mpegurl')) v.src = src;
  else {
    setProblem('This browser cannot play HLS.');
    return null;
  }
  if (startAt !== undefined)
    v.addEventListener(
      'loadedmetadata',
      () => {
        v.currentTime = startAt;
      },
      { once: true },
    );
  await v.play().catch(() => {});
  return () => hls?.destroy();
}
