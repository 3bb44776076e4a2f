/**
 * What a notification channel kind must do to deliver one message (document 4 §13). The worker
 * (notifications' delivery loop) builds one `OutgoingMessage` per delivery and hands it to the
 * sender of the channel's kind; a sender never retries by itself: the outbox decides when to try
 * again from the result.
 */
export interface OutgoingMessage {
  /** Stable across retries and plane processes; the receiver's key to drop duplicates. */
  dedupeKey: string;
  /** The webhook JSON body of §13 (dedupe_key, rule, event with card_url, snapshot_url); MQTT sends the same. */
  payload: Record<string, unknown>;
  /** For e-mail: the subject's parts. */
  summary: { severity: number; cameraName: string | null; detectorTitle: string };
  /** The event's image, when it has one: sent inline by e-mail. */
  snapshot: { bytes: Buffer; contentType: string } | null;
}

export interface SendResult {
  ok: boolean;
  /** Why it failed, in words (stored as the delivery's `last_error`); null when ok. */
  error: string | null;
  /** The receiver said the channel is gone (a webhook's 410): the channel is disabled. */
  disableChannel?: boolean;
}

/** One per channel kind; `config` is the channel's stored per-kind settings, secrets decrypted. */
export interface ChannelSender<C> {
  send(config: C, message: OutgoingMessage, signal: AbortSignal): Promise<SendResult>;
}
