import { errors } from '../errors.js';

// C0 and C1 controls, DEL, and the Unicode line and paragraph separators.
const CONTROL_RE = /[\p{Cc}\u2028\u2029]/u;

/**
 * No login name holds a control character (users' logins are `[A-Za-z0-9._@+-]`), and a
 * failed login is audited with the name as sent: "yy\r=4+5" reached the CSV export as a new
 * row starting with a formula (issue 10, finding 2). Refused before any throttle or check.
 */
/**
 * The name a failed login is audited under when it names no user: people type their password
 * into the login field, and the audit kept it as actor_name (issue 10, finding 8).
 */
export const UNKNOWN_LOGIN = '(unknown login)';

export function refuseControlCharacters(login: string): void {
  if (CONTROL_RE.test(login)) throw errors.badRequest('bad_login');
}
