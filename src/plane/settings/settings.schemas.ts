import { Type } from 'typebox';

const loose = Type.Optional(Type.Unknown());

/** PATCH body (document 1): each section optional; values checked by the service with the documented errors. */
export const SettingsPatchBody = Type.Object({
  dvr_export_max_secs: loose,
  network: Type.Optional(Type.Union([Type.Object({ public_url: loose, listen: loose, tls: loose }, { additionalProperties: false }), Type.Null()])),
  log_level: loose,
  evidence_storage: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  acknowledge_destructive_volume_retention: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const SettingsReply = Type.Object({
  source: Type.Optional(Type.Unknown()),
  dvr_export_max_secs: Type.Unknown(),
  network: Type.Unknown(),
  logging: Type.Unknown(),
  evidence_storage: Type.Unknown(),
}, { description: 'The settings object (document 1, "Control-plane settings"); a PATCH answers the sections it touched, the others null' });

export const IfMatchHeaders = Type.Object({ 'if-match': Type.Optional(Type.String({ maxLength: 128 })) });

export const StorageTestBody = Type.Object({ evidence_storage: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: false });
export const StorageTestReply = Type.Object({ ok: Type.Boolean(), rotation_blocked: Type.Boolean() });
