/** hls.js, vendored from the npm package and served by the node itself: the player needs no CDN. */
export const PLAYER_SCRIPT_PATH = '/_player/hls.min.js';

export const EMBED_CSP =
  "default-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self' 'unsafe-inline'; media-src 'self' blob:; worker-src 'self' blob:; connect-src 'self'";

/**
 * The public test player. It holds no data: the video behind it is protected by viewer
 * authorization, and the viewer token arrives as `?token=` on this page and goes only to the
 * entry playlist request. hls.js plays it where Media Source Extensions exist; Safari and iOS
 * play the playlist natively.
 */
export function embedPage(stream: string): string {
  const esc = stream.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc} - Argus player</title>
<style>
html, body { margin: 0; height: 100%; background: #000; color: #ccc; font: 14px system-ui, sans-serif; }
video { width: 100%; height: 100%; object-fit: contain; }
#msg { position: absolute; top: 8px; left: 8px; }
</style>
<script src="${PLAYER_SCRIPT_PATH}"></script>
</head>
<body>
<video id="v" controls autoplay muted playsinline></video>
<div id="msg"></div>
<script>
var params = new URLSearchParams(location.search);
var token = params.get('token');
var msg = document.getElementById('msg');
var v = document.getElementById('v');
// Without a token the node may still serve (no auth_backend); a refusal is shown below.
var src = 'index.m3u8' + (token ? '?token=' + encodeURIComponent(token) : '');
{
  if (window.Hls && Hls.isSupported()) {
    var hls = new Hls({ enableWorker: false, liveSyncDurationCount: 2 });
    hls.on(Hls.Events.ERROR, function (_e, d) {
      if (d.fatal) msg.textContent = d.response && d.response.code === 403 ? (token ? 'Access refused: the viewer token is not valid for this stream.' : 'A viewer token is needed: open this page with ?token=<viewer token>.') : 'Stream unavailable (' + d.details + ').';
    });
    hls.loadSource(src);
    hls.attachMedia(v);
  } else if (v.canPlayType('application/vnd.apple.mpegurl')) {
    v.src = src;
    v.addEventListener('error', function () { msg.textContent = 'Stream unavailable.'; });
  } else {
    msg.textContent = 'This browser cannot play HLS.';
  }
}
</script>
</body>
</html>
`;
}
