/**
 * A failure's text with every form of the given secrets taken out. A server may echo what it
 * was sent (an SMTP AUTH line is base64 of the user and password; a broker's log line may quote
 * the CONNECT), and that text becomes a delivery's `last_error`, which an administrator reads
 * and the logs may carry: no secret may survive into it.
 */
export function redact(text: string, secrets: ReadonlyArray<string | null | undefined>, user?: string | null): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (!s) continue;
    forms.add(s);
    forms.add(Buffer.from(s).toString('base64'));
    forms.add(encodeURIComponent(s));
    // AUTH PLAIN sends "\0user\0password" as one base64 token.
    if (user) forms.add(Buffer.from(`\u0000${user}\u0000${s}`).toString('base64'));
  }
  let out = text;
  // The longest first, so a secret inside another form is not left half-replaced.
  for (const f of [...forms].filter((f) => f.length >= 3).sort((a, b) => b.length - a.length))
    out = out.split(f).join('[redacted]');
  return out;
}

/** A short one-line text of an error for `last_error`: its message, code and what the server answered. */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return String(err).slice(0, 500);
  const e = err as Error & { code?: string; response?: string };
  const parts = [e.message.split('\n')[0]!.trim()];
  if (e.response && !e.message.includes(e.response)) parts.push(`server said: ${e.response.trim()}`);
  return parts.join('; ').slice(0, 500);
}

export const ABORTED = Symbol('aborted');

/** The promise's value, or ABORTED as soon as the signal fires (the send goes on until its own time-outs). */
export function untilAborted<T>(p: Promise<T>, signal: AbortSignal): Promise<T | typeof ABORTED> {
  if (signal.aborted) {
    p.catch(() => undefined);
    return Promise.resolve(ABORTED);
  }
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      p.catch(() => undefined);
      resolve(ABORTED);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (err: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}
