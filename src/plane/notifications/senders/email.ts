import { readFile } from 'node:fs/promises';
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { SmtpSettings } from '../../config/config.types.js';
import type { ChannelSender, OutgoingMessage, SendResult } from './sender.js';
import { htmlBody, plainBody, SNAPSHOT_CID, subjectOf } from './email-body.js';
import { ABORTED, describeError, redact, untilAborted } from './util.js';

/** An e-mail channel's stored settings (document 4 §13): who receives it; the server is the plane's. */
export interface EmailChannelConfig {
  to: string[];
}

export interface EmailSenderOptions {
  /** Bounds of one connection: connect, greeting, and silence on the socket (an idle pooled connection closes after it). */
  connectTimeoutMs?: number;
  socketTimeoutMs?: number;
}

/**
 * Sends e-mail through the plane's `[notifications.smtp]` server: one pooled transport for the
 * whole process (its connections are reused from message to message and close after a minute of
 * silence), built at the first message so that a plane without e-mail channels never connects.
 * A failure is answered in words with the password taken out; the sender never retries (the
 * outbox does).
 */
export class EmailSender implements ChannelSender<EmailChannelConfig> {
  private transport: Promise<Transporter<SMTPPool.SentMessageInfo>> | null = null;
  private closed = false;

  constructor(
    private readonly smtp: SmtpSettings | null,
    private readonly opts: EmailSenderOptions = {},
  ) {}

  async send(config: EmailChannelConfig, message: OutgoingMessage, signal: AbortSignal): Promise<SendResult> {
    const smtp = this.smtp;
    if (!smtp) return fail('no SMTP server is configured: [notifications.smtp] in plane.toml names one');
    if (this.closed) return fail('the plane is stopping');
    const to = Array.isArray(config?.to) ? config.to.filter((a) => typeof a === 'string' && a) : [];
    if (!to.length) return fail('the channel has no recipient');
    if (signal.aborted) return fail('the send was cancelled');
    try {
      const transport = await this.transporter(smtp);
      const sent = transport.sendMail({
        from: smtp.from,
        to,
        subject: subjectOf(message),
        text: plainBody(message),
        html: htmlBody(message),
        // The same delivery keeps one Message-ID across retries, so a mail system can drop a repeat.
        messageId: `<${message.dedupeKey.replace(/[^A-Za-z0-9._-]/g, '_')}@argus.notifications>`,
        headers: { 'X-Argus-Delivery': message.dedupeKey.replace(/[\r\n]/g, '') },
        attachments: message.snapshot
          ? [
              {
                filename: `snapshot.${extension(message.snapshot.contentType)}`,
                content: message.snapshot.bytes,
                contentType: message.snapshot.contentType,
                cid: SNAPSHOT_CID,
              },
            ]
          : [],
      });
      const info = await untilAborted(sent, signal);
      if (info === ABORTED) return fail('the send was cancelled');
      if (!info.accepted.length) return fail(this.words(smtp, { message: 'no recipient was accepted' }));
      return { ok: true, error: null };
    } catch (err) {
      return fail(this.words(smtp, err));
    }
  }

  /** Closes the pool (the plane's shutdown); a send afterwards fails. */
  async close(): Promise<void> {
    this.closed = true;
    const t = this.transport;
    this.transport = null;
    if (t) (await t.catch(() => null))?.close();
  }

  private transporter(smtp: SmtpSettings): Promise<Transporter<SMTPPool.SentMessageInfo>> {
    this.transport ??= build(smtp, this.opts).catch((err: unknown) => {
      this.transport = null; // a CA file fixed on disk is read again at the next message
      throw err;
    });
    return this.transport;
  }

  /** A failure in words: what failed, against which server, and what it answered; never the password. */
  private words(smtp: SmtpSettings, err: unknown): string {
    const e = (err ?? {}) as { code?: string; response?: string; message?: string; rejected?: unknown };
    const where = `${smtp.host}:${smtp.port}`;
    const said = e.response ? `: ${e.response.trim()}` : e.message ? `: ${describeError(err)}` : '';
    let text: string;
    if (e.code === 'EENVELOPE' || e.code === 'EMESSAGE')
      text = `the SMTP server ${where} refused the message${
        Array.isArray(e.rejected) && e.rejected.length ? ` for ${e.rejected.join(', ')}` : ''
      }${said}`;
    else if (e.code === 'EAUTH') text = `the SMTP server ${where} refused the login of ${smtp.user ?? '(none)'}${said}`;
    else if (e.code === 'ETIMEDOUT') text = `the SMTP server ${where} did not answer in time`;
    else if (e.code === 'ETLS' && e.response) text = `the SMTP server ${where} refused STARTTLS${said}`;
    else if (e.code === 'ETLS' || /certificate|self[- ]signed|SSL|TLS/i.test(e.message ?? ''))
      text = `TLS with the SMTP server ${where} failed${said} (a server with a private CA: tls_ca in [notifications.smtp])`;
    else if (e.code === 'ECONNECTION' || e.code === 'ESOCKET' || e.code === 'EDNS')
      text = `could not reach the SMTP server ${where}${said}`;
    else if (e.code === 'ENOENT' || e.code === 'EACCES')
      text = `the tls_ca file of [notifications.smtp] could not be read (${e.code})`;
    else text = `sending through the SMTP server ${where} failed${said}`;
    return redact(text, [smtp.password], smtp.user).slice(0, 1000);
  }
}

async function build(smtp: SmtpSettings, opts: EmailSenderOptions): Promise<Transporter<SMTPPool.SentMessageInfo>> {
  // tls_ca: the certificates trusted for this server in place of the system's (a private CA or a self-signed server).
  const ca = smtp.tlsCa ? await readFile(smtp.tlsCa, 'utf8') : undefined;
  const connect = opts.connectTimeoutMs ?? 10_000;
  return nodemailer.createTransport({
    pool: true,
    maxConnections: 2,
    maxMessages: 100,
    host: smtp.host,
    port: smtp.port,
    secure: smtp.tls === 'tls',
    requireTLS: smtp.tls === 'starttls',
    ignoreTLS: smtp.tls === 'off',
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? '' } : undefined,
    tls: { ...(ca ? { ca } : {}), minVersion: 'TLSv1.2' },
    connectionTimeout: connect,
    greetingTimeout: connect,
    dnsTimeout: connect,
    socketTimeout: opts.socketTimeoutMs ?? 60_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
}

const fail = (error: string): SendResult => ({ ok: false, error });

function extension(contentType: string): string {
  const sub = /^image\/([a-z0-9.+-]+)/i.exec(contentType)?.[1]?.toLowerCase();
  return sub === 'jpeg' ? 'jpg' : sub && /^[a-z0-9]+$/.test(sub) ? sub : 'bin';
}
