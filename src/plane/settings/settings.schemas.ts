import { Type } from 'typebox';
import { SETTING_MAX } from '../config/lengths.js';

const loose = Type.Optional(Type.Unknown());
/**
 * A value of any type whose strings are at most `max` long (issue 25): the service still checks
 * the type with the documented codes (invalid_public_url for a public URL that is no string).
 */
const upTo = (max: number) => Type.Optional(Type.Unknown({ maxLength: max }));
const M = SETTING_MAX;

const Tls = Type.Object(
  {
    mode: upTo(M.word),
    cert: upTo(M.path),
    key: upTo(M.path),
    store_dir: upTo(M.path),
    acme_contact: upTo(M.email),
    acme_listen: upTo(M.listen),
    hosts: Type.Optional(Type.Unknown({ maxItems: M.hosts, items: { maxLength: M.host } })),
  },
  { additionalProperties: Type.Unknown({ maxLength: M.path }) },
);

const EvidenceStorage = Type.Object(
  {
    backend: upTo(M.word),
    dir: upTo(M.path),
    endpoint: upTo(M.endpoint),
    bucket: upTo(M.bucket),
    region: upTo(M.region),
    addressing: upTo(M.word),
    access_key: upTo(M.key),
    secret_key: upTo(M.key),
    volume_retention: upTo(M.word),
  },
  { additionalProperties: Type.Unknown({ maxLength: M.path }) },
);

/** [notifications] (document 4 §13): the password is write-only; smtp null removes the server. */
const Notifications = Type.Object(
  {
    channel_rate: loose,
    smtp: Type.Optional(
      Type.Union([
        Type.Object(
          {
            host: upTo(M.host),
            port: loose,
            tls: upTo(M.word),
            user: upTo(M.key),
            password: upTo(M.key),
            from: upTo(M.from),
            tls_ca: upTo(M.path),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
  },
  { additionalProperties: false },
);

/** PATCH body (document 1): each section optional; values checked by the service with the documented errors. */
export const SettingsPatchBody = Type.Object(
  {
    dvr_export_max_secs: loose,
    network: Type.Optional(
      Type.Union([
        Type.Object(
          {
            public_url: upTo(M.url),
            listen: upTo(M.listen),
            tls: Type.Optional(Type.Union([Tls, Type.Unknown({ not: { type: 'object' } })])),
          },
          { additionalProperties: false },
        ),
        Type.Null(),
      ]),
    ),
    log_level: upTo(M.word),
    evidence_storage: Type.Optional(Type.Union([EvidenceStorage, Type.Null()])),
    acknowledge_destructive_volume_retention: Type.Optional(Type.Boolean()),
    notifications: Type.Optional(Type.Union([Notifications, Type.Null()])),
  },
  { additionalProperties: false },
);

export const SettingsReply = Type.Object(
  {
    source: Type.Optional(Type.Unknown()),
    dvr_export_max_secs: Type.Unknown(),
    network: Type.Unknown(),
    logging: Type.Unknown(),
    evidence_storage: Type.Unknown(),
    notifications: Type.Optional(
      Type.Unknown({
        description:
          '[notifications]: effective and saved {channel_rate, smtp: {host, port, tls, user, from, tls_ca, password_configured} or null}, pending_restart',
      }),
    ),
  },
  {
    description:
      'The settings object (document 1, "Control-plane settings"); a PATCH answers the sections it touched, the others null',
  },
);

export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 128 })) });

export const StorageTestBody = Type.Object({ evidence_storage: EvidenceStorage }, { additionalProperties: false });
export const StorageTestReply = Type.Object({ ok: Type.Boolean(), rotation_blocked: Type.Boolean() });
