/**
 * Raster images and video a browser shows by itself, as exact types (issue 25, item 12). Not
 * "any image/*": SVG runs script, and an unknown subtype is not worth opening in the plane's
 * origin.
 */
const INLINE_TYPES = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'video/mp4',
  'video/webm',
  'video/ogg',
  'video/quicktime',
]);

// A whole Content-Type value: type/subtype and `; name=value` parameters of plain tokens
// (RFC 9110). No comma, no quoted string: a browser splits a header value at commas and takes
// the last type it can read, so `image/png;,text/html` is HTML to it while its first part read
// as a PNG here. Anything this does not read exactly is downloaded instead.
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const CONTENT_TYPE = new RegExp(`^[ \\t]*(${TOKEN}/${TOKEN})(?:[ \\t]*;[ \\t]*${TOKEN}=${TOKEN})*[ \\t]*$`);

/** The type of a Content-Type value when it is exactly one of INLINE_TYPES, else null. */
export function inlineType(contentType: string): string | null {
  // Only HTTP's own whitespace around it (String.trim would also take U+00A0 and line breaks).
  const m = CONTENT_TYPE.exec(contentType);
  const type = m ? m[1]!.toLowerCase() : null;
  return type !== null && INLINE_TYPES.has(type) ? type : null;
}

/**
 * Headers that keep an attachment from running in the plane's origin (issue 10, finding 8): it
 * is served with the type its uploader chose, so text/html or an SVG opened from the API would
 * run script as the signed-in user. Only the exact raster image and video types of INLINE_TYPES
 * stay inline; everything is sandboxed by CSP.
 */
export function attachmentHeaders(contentType: string, ref: string): Record<string, string> {
  return {
    'content-disposition': inlineType(contentType)
      ? 'inline'
      : `attachment; filename="${ref.replace(/[^0-9a-zA-Z-]/g, '')}"`,
    'content-security-policy': "sandbox; default-src 'none'",
  };
}
