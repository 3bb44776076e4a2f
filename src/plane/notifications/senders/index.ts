import type { NotificationsConfig } from '../../config/config.types.js';
import { EmailSender, type EmailChannelConfig, type EmailSenderOptions } from './email.js';
import { MqttSender, type MqttChannelConfig, type MqttSenderOptions } from './mqtt.js';
import type { ChannelSender } from './sender.js';

export type { EmailChannelConfig } from './email.js';
export type { MqttChannelConfig } from './mqtt.js';

/** The e-mail and MQTT senders of one plane process, and their shutdown. */
export interface ChannelSenders {
  email: ChannelSender<EmailChannelConfig>;
  mqtt: ChannelSender<MqttChannelConfig>;
  /** closes the SMTP pool and the broker connections (the plane's shutdown) */
  close(): Promise<void>;
}

/**
 * The e-mail and MQTT senders built once from `[notifications]` (the composition root hands
 * them to the notifications factory beside its webhook sender). `deps`: time-outs and pool
 * bounds, for tests; the defaults suit production.
 */
export function createChannelSenders(
  config: NotificationsConfig,
  deps: { email?: EmailSenderOptions; mqtt?: MqttSenderOptions } = {},
): ChannelSenders {
  const email = new EmailSender(config.smtp, deps.email);
  const mqtt = new MqttSender(deps.mqtt);
  return {
    email,
    mqtt,
    close: async () => {
      await Promise.all([email.close(), mqtt.close()]);
    },
  };
}
