/**
 * Camera sources are read by two URL parsers: the plane's and the node's checks use WHATWG URL,
 * ffmpeg uses its own (`av_url_split`: the authority ends at the first `/`, `?` or `#`, the host
 * follows its last `@`; no backslash rule, no percent-decoding, no IDNA). Where they disagree a
 * check can pass one host while ffmpeg connects to another: `http://10.0.0.1\@169.254.169.254/`
 * is 10.0.0.1 to WHATWG (a backslash ends an http authority) and 169.254.169.254 to ffmpeg
 * (issue 25, item 3). A source is accepted only in a form both read the same way; the rules are
 * on the raw text, before any parser normalises it.
 */

// `%5C` (backslash) and `%40` (`@`), also double-encoded (`%255C`): decoded by a later hop.
const ENCODED = /%(?:25)*(?:5c|40)/i;

/** Why `text` may be read differently by ffmpeg and WHATWG URL, or null when it may not. */
export function sourceAmbiguity(text: string): string | null {
  // WHATWG drops tabs and line breaks anywhere and trims the ends; ffmpeg keeps them.
  if (/[\t\n\r]/.test(text) || text !== text.trim()) return 'holds a tab, a line break or surrounding spaces';
  if (text.includes('\\')) return 'holds a backslash';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(text);
  if (!m) return 'has no scheme';
  const rest = text.slice(m[0].length);
  if (!rest.startsWith('//')) return null; // no authority (testsrc:…): nothing is connected to
  // WHATWG skips any number of slashes after an http(s) scheme; ffmpeg skips exactly two.
  if (rest.startsWith('///')) return 'has more than two slashes after the scheme';
  const afterSlashes = rest.slice(2);
  const end = afterSlashes.search(/[/?#]/);
  const authority = end < 0 ? afterSlashes : afterSlashes.slice(0, end);
  const tail = end < 0 ? '' : afterSlashes.slice(end);
  const at = authority.lastIndexOf('@');
  const host = authority.slice(at + 1);
  // WHATWG percent-decodes and maps (IDNA) a host, ffmpeg hands the bytes to the resolver.
  // (A space or control in the user part is percent-encoded by WHATWG and sent as is by ffmpeg: the same host.)
  if (host.includes('%') || /[^\u0021-\u007e]/.test(host)) return 'has an encoded, non-ASCII or blank host';
  // `@` after the authority is a host to some readers (redirect targets, relative URLs of a playlist).
  if (tail.includes('@') || ENCODED.test(tail)) return 'holds @ or an encoded @ or backslash after the host';
  return null;
}

/** The host ffmpeg connects to for `text` (its `av_url_split`), lower-cased, without brackets; null without one. */
export function ffmpegHost(text: string): string | null {
  const colon = text.indexOf(':');
  if (colon < 0) return null;
  let p = text.slice(colon + 1);
  if (p.startsWith('/')) p = p.slice(1);
  if (p.startsWith('/')) p = p.slice(1);
  const end = p.search(/[/?#]/);
  const authority = end < 0 ? p : p.slice(0, end);
  let host = authority.slice(authority.lastIndexOf('@') + 1);
  if (host.startsWith('[')) host = host.slice(1, host.indexOf(']') < 0 ? undefined : host.indexOf(']'));
  else if (host.includes(':')) host = host.slice(0, host.indexOf(':'));
  return host === '' ? null : host.toLowerCase();
}
