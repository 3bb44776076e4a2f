/**
 * What may be logged, shown or audited of a secret-bearing string. Camera URLs often carry the
 * camera's password, in the `user:pass@` part or as a query parameter (`?password=`, `&pwd=`,
 * `&auth=`...); request URLs may carry session tokens as query parameters. One rule for the
 * plane and the node: the API and the audit mask with `***` (here), the logs with `[redacted]`
 * (log-scrub.ts, which takes its names and URL pattern from this file).
 */
export const PASSWORD_MASK = '***';

/**
 * Field and parameter names whose value is a secret: `token`, `password`, `pass`, `auth`,
 * `api_token`, `auth_backend_secret`, S3 `access_key_id` / `secret_access_key`, `authorization`...
 * A name may carry a prefix (`s3_secret_key`, `write_token`, `cam_pass`) but must end in one of
 * these words, so that `token_count` or `password_set` are left alone. `pass` and `auth` are
 * what cameras name their password and credential parameters (issue 25, item 5).
 */
export const SECRET_NAME = String.raw`(?:token|password|passwd|pwd|pass|auth|secret|api[_-]?key|apikey|access[_-]?key(?:[_-]?id)?|secret[_-]?(?:access[_-]?)?key|authorization|credentials?|signature|cookie)`;

/** `scheme://user:password@host`: group 1 up to the user, then the password, then `@`. No quote or backslash inside, so JSON text stays valid. */
export const URL_USERINFO = /(\b[A-Za-z][A-Za-z0-9+.-]*:\/\/[^\s:/@"'\\]+):[^\s@/"'\\]*@/g;

// A query (or `;` matrix) parameter named as a secret, up to the next separator. The name's
// prefix is bounded to parameter characters so that a match never spans two parameters; a colon
// ending the value before a space is ffmpeg's (`<url>: Connection refused`), not the password's.
const SECRET_PARAM = new RegExp(String.raw`([?&;][A-Za-z0-9_.-]*?${SECRET_NAME}=)(?:[^&;#\s"'\\:]|:(?!\s|$))*`, 'gi');

/** Every URL credential of a free text (ffmpeg's messages) replaced by `mask`: `user:<mask>@`, `?password=<mask>`. */
function maskCredentialsIn(text: string, mask: string): string {
  return text.replace(URL_USERINFO, `$1:${mask}@`).replace(SECRET_PARAM, `$1${mask}`);
}

/** `scheme://user:secret@host?pwd=secret` -> `scheme://user:***@host?pwd=***`, for every URL in a free text. */
export function maskUrlCredentials(text: string): string {
  return maskCredentialsIn(text, PASSWORD_MASK);
}

/**
 * One URL with its credentials shown as ***: the password of its user part and the values of
 * its secret-named query parameters. The rest of the text is left as it was written, so that a
 * masked URL sent back unchanged is recognised (cameras.service.ts keeps the stored one then).
 */
export function maskUrlPassword(url: string): string {
  let out = url;
  try {
    const u = new URL(url);
    if (u.password) {
      u.password = PASSWORD_MASK;
      out = u.toString();
    }
  } catch {
    /* not a URL: masked as free text below */
  }
  return maskUrlCredentials(out);
}

/** A request URL as it may be logged: the values of the named query parameters are replaced. */
export function redactUrlParams(url: string, params: readonly string[] = ['token']): string {
  const q = url.indexOf('?');
  if (q < 0 || params.length === 0) return url;
  const names = params.map((p) => p.replace(/[^A-Za-z0-9_-]/g, '')).join('|');
  return url.slice(0, q) + url.slice(q).replace(new RegExp(`([?&](?:${names})=)[^&#]*`, 'gi'), '$1[redacted]');
}
