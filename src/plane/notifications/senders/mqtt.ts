import { randomBytes } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import type { ChannelSender, OutgoingMessage, SendResult } from './sender.js';
import { fillTopic, topicTemplateProblem } from './mqtt-topic.js';
import { ABORTED, describeError, redact, untilAborted } from './util.js';

/** An MQTT channel's stored settings (document 4 §13), the password decrypted. */
export interface MqttChannelConfig {
  /** mqtt://host[:port] or mqtts://host[:port] */
  url: string;
  /** may use {org}, {camera}, {camera_id}, {detector} */
  topic: string;
  username?: string | null;
  password?: string | null;
}

export interface MqttSenderOptions {
  /** how long a broker has to answer the connection (CONNACK) */
  connectTimeoutMs?: number;
  /** how long a broker has to acknowledge a message (PUBACK) */
  publishTimeoutMs?: number;
  /** a connection unused this long is closed */
  idleMs?: number;
  /** connections kept at most (the least recently used goes first) */
  maxConnections?: number;
}

interface Entry {
  client: Promise<MqttClient>;
  idle: NodeJS.Timeout | null;
  /** messages in flight: the idle timer waits for them */
  busy: number;
  ended: boolean;
}

/**
 * Publishes the webhook's JSON (document 4 §13) with QoS 1, retain false. Connections are kept
 * per broker and credentials (a channel's url, username, password) and reused from message to
 * message; one unused for `idleMs` is closed, and one the broker closed is opened again at the
 * next message. The client never reconnects by itself: a failure is the outbox's to retry.
 */
export class MqttSender implements ChannelSender<MqttChannelConfig> {
  private readonly pool = new Map<string, Entry>();
  private connects = 0;
  private closed = false;
  private readonly o: Required<MqttSenderOptions>;

  constructor(opts: MqttSenderOptions = {}) {
    this.o = {
      connectTimeoutMs: opts.connectTimeoutMs ?? 5_000,
      publishTimeoutMs: opts.publishTimeoutMs ?? 10_000,
      idleMs: opts.idleMs ?? 60_000,
      maxConnections: opts.maxConnections ?? 64,
    };
  }

  async send(config: MqttChannelConfig, message: OutgoingMessage, signal: AbortSignal): Promise<SendResult> {
    let where = 'the MQTT broker';
    try {
      const url = brokerUrl(config?.url);
      if (!url) return fail('the channel URL must be mqtt://host[:port] or mqtts://host[:port]');
      where = `the MQTT broker ${url.host}`;
      const problem = topicTemplateProblem(config.topic);
      if (problem) return fail(`the channel's ${problem}`);
      if (this.closed) return fail('the plane is stopping');
      if (signal.aborted) return fail('the send was cancelled');
      const key = JSON.stringify([url.href, config.username ?? null, config.password ?? null]);
      const entry = this.entry(key, url, config);
      entry.busy++;
      try {
        const client = await untilAborted(entry.client, signal);
        if (client === ABORTED) return fail('the send was cancelled');
        const acked = await untilAborted(this.publish(client, fillTopic(config.topic, message), message), signal);
        if (acked === ABORTED) return fail('the send was cancelled');
        return { ok: true, error: null };
      } catch (err) {
        void this.drop(key, entry, true); // a broken connection is not kept for the next message
        throw err;
      } finally {
        entry.busy--;
        this.touch(key, entry);
      }
    } catch (err) {
      return fail(redact(words(where, err, this.o), [config?.password], config?.username).slice(0, 1000));
    }
  }

  /** Open connections and connections made since the start (tests read them; the pool is the point). */
  figures(): { open: number; connects: number } {
    return { open: this.pool.size, connects: this.connects };
  }

  /** Closes every connection (the plane's shutdown); a send afterwards fails. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.pool.entries()];
    await Promise.all(entries.map(([key, e]) => this.drop(key, e, true)));
  }

  private entry(key: string, url: URL, config: MqttChannelConfig): Entry {
    const found = this.pool.get(key);
    if (found) {
      // Most recently used last: the first is the one to close when the pool is full.
      this.pool.delete(key);
      this.pool.set(key, found);
      if (found.idle) clearTimeout(found.idle);
      found.idle = null;
      return found;
    }
    const [oldestKey, oldest] = this.pool.entries().next().value ?? [];
    if (oldestKey !== undefined && oldest && this.pool.size >= this.o.maxConnections && !oldest.busy)
      void this.drop(oldestKey, oldest);
    const entry: Entry = { client: this.connect(url, config), idle: null, busy: 0, ended: false };
    // A connection that fails or that the broker closes leaves the pool; the next message opens another.
    entry.client.then(
      (c) => c.once('close', () => void this.drop(key, entry)),
      () => void this.drop(key, entry),
    );
    this.pool.set(key, entry);
    return entry;
  }

  private connect(url: URL, config: MqttChannelConfig): Promise<MqttClient> {
    this.connects++;
    const client = mqtt.connect(url.href, {
      clientId: `argus-plane-${randomBytes(6).toString('hex')}`,
      username: config.username || undefined,
      password: config.password || undefined,
      clean: true,
      reconnectPeriod: 0,
      connectTimeout: this.o.connectTimeoutMs,
      keepalive: 60,
    });
    // Without a listener an 'error' event would throw; every failure is answered through the promises below.
    client.on('error', () => undefined);
    return new Promise<MqttClient>((resolve, reject) => {
      const give = (err: Error) => {
        clearTimeout(timer);
        client.end(true);
        reject(err);
      };
      // mqtt.js bounds the CONNACK; this bounds the TCP and TLS connect before it too.
      const timer = setTimeout(
        () => give(Object.assign(new Error('connect timeout'), { code: 'CONNECT_TIMEOUT' })),
        this.o.connectTimeoutMs,
      );
      client.once('connect', () => {
        clearTimeout(timer);
        resolve(client);
      });
      client.once('error', give);
      client.once('close', () => give(Object.assign(new Error('connection closed'), { code: 'CLOSED' })));
    });
  }

  private publish(client: MqttClient, topic: string, message: OutgoingMessage): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(Object.assign(new Error('no acknowledgement'), { code: 'PUBACK_TIMEOUT' })),
        this.o.publishTimeoutMs,
      );
      const onClose = () => {
        clearTimeout(timer);
        reject(Object.assign(new Error('connection closed'), { code: 'CLOSED' }));
      };
      client.once('close', onClose);
      client.publish(topic, JSON.stringify(message.payload), { qos: 1, retain: false }, (err) => {
        clearTimeout(timer);
        client.removeListener('close', onClose);
        if (err) reject(err);
        else resolve();
      });
    });
  }

  /** Starts the idle timer of an entry nobody is using. */
  private touch(key: string, entry: Entry): void {
    if (entry.busy || this.pool.get(key) !== entry) return;
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = setTimeout(() => void this.drop(key, entry), this.o.idleMs);
    entry.idle.unref();
  }

  /** Closes an entry's connection: waiting for its acknowledgements, or at once (`force`: a connection that failed). */
  private async drop(key: string, entry: Entry, force = false): Promise<void> {
    if (entry.idle) clearTimeout(entry.idle);
    entry.idle = null;
    if (this.pool.get(key) === entry) this.pool.delete(key);
    if (entry.ended) return;
    entry.ended = true;
    const client = await entry.client.catch(() => null);
    if (client) await new Promise<void>((r) => client.end(force, {}, () => r()));
  }
}

const fail = (error: string): SendResult => ({ ok: false, error });

function brokerUrl(v: unknown): URL | null {
  if (typeof v !== 'string') return null;
  try {
    const u = new URL(v);
    if ((u.protocol !== 'mqtt:' && u.protocol !== 'mqtts:') || !u.hostname) return null;
    // Credentials travel in username/password, never in the URL (where they would show in every error).
    u.username = '';
    u.password = '';
    return u;
  } catch {
    return null;
  }
}

/** A failure in words: what failed and against which broker. */
function words(where: string, err: unknown, o: Required<MqttSenderOptions>): string {
  const e = (err ?? {}) as { code?: string | number; message?: string };
  const secs = (ms: number) => `${Math.round(ms / 100) / 10} s`;
  if (e.code === 'CONNECT_TIMEOUT' || e.message === 'connack timeout')
    return `${where} did not answer the connection within ${secs(o.connectTimeoutMs)}`;
  if (e.code === 'PUBACK_TIMEOUT') return `${where} did not acknowledge the message within ${secs(o.publishTimeoutMs)}`;
  if (e.code === 'CLOSED') return `${where} closed the connection`;
  if (typeof e.code === 'number') return `${where} refused the connection: ${describeError(err)}`;
  if (/certificate|self[- ]signed|SSL|TLS|handshake/i.test(e.message ?? ''))
    return `TLS with ${where} failed: ${describeError(err)}`;
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'EHOSTUNREACH' || e.code === 'ECONNRESET')
    return `could not reach ${where}: ${describeError(err)}`;
  return `publishing to ${where} failed: ${describeError(err)}`;
}
