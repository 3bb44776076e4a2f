/**
 * Headers that keep an attachment from running in the plane's origin (issue 10, finding 8): it
 * is served with the type its uploader chose, so text/html or an SVG opened from the API would
 * run script as the signed-in user. Only raster images and video stay inline; everything is
 * sandboxed by CSP.
 */
export function attachmentHeaders(contentType: string, ref: string): Record<string, string> {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  const inline = (type.startsWith('image/') && !type.includes('svg')) || type.startsWith('video/');
  return {
    'content-disposition': inline ? 'inline' : `attachment; filename="${ref.replace(/[^0-9a-zA-Z-]/g, '')}"`,
    'content-security-policy': "sandbox; default-src 'none'",
  };
}
