import type { AddressInfo } from 'node:net';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import type { OutgoingMessage } from '../../../../src/plane/notifications/senders/sender.js';

/** A received mail: the envelope's recipients and the raw message. */
export interface Received {
  from: string;
  to: string[];
  user: string | null;
  /** the session ran over TLS (implicit or after STARTTLS) */
  secure: boolean;
  raw: string;
}

/** A real SMTP server (smtp-server) on a free loopback port; `received` fills as mails arrive. */
export async function smtpServer(opts: SMTPServerOptions) {
  const received: Received[] = [];
  const server = new SMTPServer({
    logger: false,
    ...opts,
    onData(stream, session, done) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: (session.user as string | undefined) ?? null,
          secure: session.secure,
          raw: Buffer.concat(chunks).toString('latin1'),
        });
        done();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { server, port, received, close: () => new Promise<void>((r) => server.close(() => r())) };
}

export interface MimePart {
  headers: Record<string, string>;
  /** the decoded body (quoted-printable and base64 undone) */
  body: Buffer;
  parts: MimePart[];
}

/** A small MIME reader for the tests: headers unfolded, multiparts split, transfer encodings decoded. */
export function parseMime(raw: string): MimePart {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const rest = raw.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split('\r\n')) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.startsWith('multipart/') && boundary) {
    const pieces = rest.split(`--${boundary}`).slice(1, -1);
    return {
      headers,
      body: Buffer.alloc(0),
      parts: pieces.map((p) => parseMime(p.replace(/^\r\n/, '').replace(/\r\n$/, ''))),
    };
  }
  const enc = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const body =
    enc === 'base64'
      ? Buffer.from(rest.replace(/\s+/g, ''), 'base64')
      : enc === 'quoted-printable'
        ? Buffer.from(
            rest
              .replace(/=\r\n/g, '')
              .replace(/=([0-9A-F]{2})/gi, (_m, h: string) => String.fromCharCode(parseInt(h, 16))),
            'latin1',
          )
        : Buffer.from(rest, 'latin1');
  return { headers, body, parts: [] };
}

/** Every leaf part of a MIME tree. */
export const leaves = (p: MimePart): MimePart[] => (p.parts.length ? p.parts.flatMap(leaves) : [p]);

export const HOSTILE = '<img src=x onerror=alert(1)>';

/** A message as the worker builds it, on a camera with a hostile name. */
export function message(over: Partial<OutgoingMessage> = {}): OutgoingMessage {
  return {
    dedupeKey: 'd-0001:rule-1:chan-1',
    payload: {
      dedupe_key: 'd-0001:rule-1:chan-1',
      rule: { id: 'rule-1', name: 'Doors at night "quoted" & <b>bold</b>' },
      event: {
        id: 'ev-1',
        org_id: 'org-1',
        camera_id: 'cam-1',
        camera_name: HOSTILE,
        detector: 'motion.person',
        detector_title: 'Person <script>alert(2)</script>',
        category: 'intrusion',
        severity: 4,
        occurred_at: '2026-11-26T17:00:00.000Z',
        card_url: 'https://argus.example.org/events/ev-1',
      },
      snapshot_url: 'javascript:alert(3)',
    },
    summary: { severity: 4, cameraName: HOSTILE, detectorTitle: 'Person <script>alert(2)</script>' },
    snapshot: null,
    ...over,
  };
}

/** The plane's configuration for notification tests that mail through `smtp` (plain, no login). */
export const mailingPlane = (smtpPort: number) => ({
  publicUrl: 'https://argus.example',
  notifications: {
    channelRate: 10,
    smtp: {
      host: '127.0.0.1',
      port: smtpPort,
      tls: 'off' as const,
      user: null,
      password: null,
      from: 'Argus <alerts@argus.test>',
      tlsCa: null,
    },
  },
});
