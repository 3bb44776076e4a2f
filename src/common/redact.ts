/**
 * What may be logged, shown or audited of a secret-bearing string. Camera URLs often carry the
 * camera's password; request URLs may carry session tokens as query parameters.
 */
export const PASSWORD_MASK = '***';

/** `scheme://user:secret@host` -> `scheme://user:***@host`, for every URL in a free text (ffmpeg's messages). */
export function maskUrlCredentials(text: string): string {
  return text.replace(/(\/\/[^:/@\s]+):[^@/\s]*@/g, `$1:${PASSWORD_MASK}@`);
}

/** The password of one URL shown as ***; a string that is not a URL is masked as free text. */
export function maskUrlPassword(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = PASSWORD_MASK;
    return u.toString();
  } catch {
    return maskUrlCredentials(url);
  }
}

/** A request URL as it may be logged: the values of the named query parameters are replaced. */
export function redactUrlParams(url: string, params: readonly string[] = ['token']): string {
  const q = url.indexOf('?');
  if (q < 0 || params.length === 0) return url;
  const names = params.map((p) => p.replace(/[^A-Za-z0-9_-]/g, '')).join('|');
  return url.slice(0, q) + url.slice(q).replace(new RegExp(`([?&](?:${names})=)[^&#]*`, 'gi'), '$1[redacted]');
}
