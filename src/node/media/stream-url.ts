/** The one stream namespace whose paths have several segments (document 3: intent `vod`). */
const VOD_PREFIX = '/vod/';

/**
 * Media routes are `/:stream/<file>`, and a route parameter stops at a slash; a `vod/...` stream
 * path has slashes. Before routing, the slashes inside such a stream path are percent-encoded, so
 * `/vod/cam1/day/index.m3u8` reaches the same routes as `/cam1/index.m3u8`, with the stream
 * `vod/cam1/day` (the router decodes parameters). Every other URL is left as it is.
 */
export function joinVodStreamPath(url: string): string {
  if (!url.startsWith(VOD_PREFIX)) return url;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const last = path.lastIndexOf('/');
  if (last < VOD_PREFIX.length) return url;
  return `/${path.slice(1, last).replaceAll('/', '%2F')}${url.slice(last)}`;
}
