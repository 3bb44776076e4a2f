/** The public test player: it holds no data, the video behind it is protected by viewer authorization. */
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
</head>
<body>
<video id="v" controls autoplay muted playsinline></video>
<div id="msg"></div>
<script>
// The viewer token arrives as ?token= on this page and goes only to the playlist request.
var params = new URLSearchParams(location.search);
var src = 'index.m3u8' + (params.get('token') ? '?token=' + encodeURIComponent(params.get('token')) : '');
var v = document.getElementById('v');
if (v.canPlayType('application/vnd.apple.mpegurl')) { v.src = src; }
else { document.getElementById('msg').textContent = 'This browser has no native HLS; open ' + src + ' in an HLS player.'; }
v.addEventListener('error', function () { document.getElementById('msg').textContent = 'Stream unavailable.'; });
</script>
</body>
</html>
`;
}
