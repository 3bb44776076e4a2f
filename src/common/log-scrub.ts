import { SECRET_NAME, URL_USERINFO } from './redact.js';

/**
 * Credential-like values removed from log text before it is written anywhere (stdout, the log
 * ring, the API). Pino's `redact` paths only reach structured fields with known names; this pass
 * also reaches free text: an error message quoting a URL, a camera source, a header echoed back.
 * The replacement never holds a quote or a backslash, so a JSON log line stays valid JSON.
 */
export const SCRUBBED = '[redacted]';

// The names of secrets and the `user:password@` pattern are redact.ts's: one rule for what the
// API and the audit mask (`***`) and what the logs scrub, on the plane and on the node.

// name, then `=` or `:` (in JSON possibly `":"` or, inside an escaped JSON string, `\":\"`), then the value:
// an escaped-quoted value, a quoted value, or a bare one up to a separator.
const NAMED_VALUE = new RegExp(
  String.raw`(${SECRET_NAME})(\\?"?\s*[:=]\s*)(?:\\"((?:[^"\\]|\\[^"])*)\\"|"((?:[^"\\]|\\.)*)"|([^\s"'&,;{}[\]\\)]+))`,
  'gi',
);
// `Bearer <token>` / `Basic <credentials>` anywhere (an echoed Authorization header). The value
// must look like a credential (a digit or symbol in it, or 16 letters), so that prose about the
// header ("accepts Authorization: Bearer with the read token") stays readable.
const AUTH_SCHEME = /\b(Bearer|Basic|Token)(\s+)(?:(?=[A-Za-z]*[0-9._~+/=-])[A-Za-z0-9._~+/=-]{4,}|[A-Za-z]{16,})/gi;
const SCHEME_WORD = /^(?:Bearer|Basic|Token)$/i;
// A JWT (the plane's session and viewer tokens) wherever it appears on its own.
const JWT = /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]+/g;
// The node's media ticket parameter `t=` (too short a name for the general rule: `port`, `text`).
const TICKET_PARAM = /([?&]t=)[^\s&#"'\\]+/g;
const JSON_LITERAL = /^(?:null|true|false|-?\d+(?:\.\d+)?)$/;
// An AWS-style S3 access key id.
const S3_ACCESS_KEY = /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/g;

// One scan that every rule above needs to match: most log lines (a request summary, a poll
// result) hold none of these words and leave after it (bench/plane/log-ring.ts).
const HINT =
  /token|pass|pwd|auth|secret|key|authoriz|credential|signature|cookie|bearer|basic|:\/\/|eyJ|AKIA|ASIA|[?&]t=/i;

/** `text` with every credential-like value replaced by `[redacted]`. Idempotent. */
export function scrubSecrets(text: string): string {
  if (!HINT.test(text)) return text;
  return text
    .replace(URL_USERINFO, `$1:${SCRUBBED}@`)
    .replace(AUTH_SCHEME, `$1$2${SCRUBBED}`)
    .replace(
      NAMED_VALUE,
      (_all: string, name: string, sep: string, escaped?: string, quoted?: string, bare?: string) => {
        if (escaped !== undefined) return `${name}${sep}\\"${SCRUBBED}\\"`;
        if (quoted !== undefined) return `${name}${sep}"${SCRUBBED}"`;
        // a JSON literal (`"token": null`, a count) is no secret, and replacing it would break the line
        if (sep.includes('"') && JSON_LITERAL.test(bare!)) return _all;
        // `Authorization: Bearer <token>`: the scheme word is no secret; the token after it was scrubbed above
        if (SCHEME_WORD.test(bare!)) return _all;
        return `${name}${sep}${SCRUBBED}`;
      },
    )
    .replace(TICKET_PARAM, `$1${SCRUBBED}`)
    .replace(JWT, SCRUBBED)
    .replace(S3_ACCESS_KEY, SCRUBBED);
}
