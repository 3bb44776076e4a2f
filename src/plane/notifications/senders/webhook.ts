import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { Clock } from '../../../common/clock.js';
import { guardedLookup } from '../../config/endpoint-guard.js';
import type { ChannelSender, OutgoingMessage, SendResult } from './sender.js';

export interface WebhookConfig {
  url?: string;
  secret?: string | null;
  headers?: Record<string, string>;
}

/** The signature header's value: `sha256=` and the hex HMAC-SHA256 of the body with the channel's secret. */
export function webhookSignature(secret: string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

// What of a receiver's reply is read before the connection is given back (the body is not used).
const REPLY_READ_MAX = 64 * 1024;

/**
 * Webhook channels (document 4 §13): POST of the JSON payload with `X-Argus-Signature`,
 * `X-Argus-Timestamp` (Unix seconds) and `X-Argus-Delivery` (the dedupe_key). A 2xx is success,
 * 410 disables the channel, anything else (another status, a refused or reset connection, the
 * attempt's time-out) is a failure the outbox tries again. Redirects are not followed. Unless
 * `[network] allow_private_targets`, the host's addresses are checked when the connection is
 * made (the evidence storage's guard), so a name that resolves to a metadata address later is
 * refused then too.
 */
export class WebhookSender implements ChannelSender<WebhookConfig> {
  private readonly agents: { http: http.Agent; https: https.Agent };

  constructor(
    private readonly clock: Clock,
    allowPrivateTargets: boolean,
  ) {
    const lookup = allowPrivateTargets ? undefined : guardedLookup;
    this.agents = {
      http: new http.Agent({ keepAlive: true, maxSockets: 64, ...(lookup ? { lookup } : {}) }),
      https: new https.Agent({ keepAlive: true, maxSockets: 64, ...(lookup ? { lookup } : {}) }),
    };
  }

  send(config: WebhookConfig, message: OutgoingMessage, signal: AbortSignal): Promise<SendResult> {
    const body = Buffer.from(JSON.stringify(message.payload));
    let url: URL;
    try {
      url = new URL(config.url ?? '');
    } catch {
      return Promise.resolve({ ok: false, error: 'the webhook URL is not valid' });
    }
    const headers: Record<string, string> = {
      ...(config.headers ?? {}),
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-argus-timestamp': String(Math.floor(this.clock.now() / 1000)),
      'x-argus-delivery': message.dedupeKey,
    };
    if (config.secret) headers['x-argus-signature'] = webhookSignature(config.secret, body);
    const secure = url.protocol === 'https:';
    const request = secure ? https.request : http.request;
    return new Promise<SendResult>((resolve) => {
      let settled = false;
      const done = (r: SendResult) => {
        if (settled) return;
        settled = true;
        resolve(r);
      };
      const req = request(
        url,
        { method: 'POST', headers, agent: secure ? this.agents.https : this.agents.http, signal },
        (res) => {
          const status = res.statusCode ?? 0;
          let read = 0;
          res.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > REPLY_READ_MAX) res.destroy();
          });
          const answer = () => {
            if (status >= 200 && status < 300) done({ ok: true, error: null });
            else if (status === 410) done({ ok: false, error: 'the receiver answered 410 Gone', disableChannel: true });
            else done({ ok: false, error: `the receiver answered ${status}` });
          };
          res.on('end', answer);
          res.on('close', answer);
          res.on('error', answer);
        },
      );
      req.on('error', (err: NodeJS.ErrnoException) => {
        if (signal.aborted) done({ ok: false, error: 'the receiver did not answer in time' });
        else if (err.code === 'EREFUSEDTARGET')
          done({ ok: false, error: 'the address is link-local or a metadata service' });
        else done({ ok: false, error: `the receiver could not be reached (${err.code ?? err.message})` });
      });
      req.end(body);
    });
  }

  close(): void {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }
}
