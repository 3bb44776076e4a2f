import { Type } from 'typebox';
import { Timestamp } from '../../common/time.js';

/** GET /api/v1/cameras/{id}/export (document 4 §14). */
export const ExportQueryString = Type.Object({
  from: { ...Timestamp, description: 'start of the recorded range, RFC 3339 (a fraction of a second is dropped)' },
  duration: Type.Integer({
    minimum: 1,
    maximum: 86_400,
    description: "length in seconds, 1 to the plane's dvr_export_max_secs (export_too_long above it)",
  }),
  stream: Type.Optional(
    Type.Union([Type.Literal('main'), Type.Literal('sub')], {
      description: 'default main; sub only where the camera has one',
    }),
  ),
  manifest: Type.Optional(
    Type.Integer({ minimum: 0, maximum: 1, description: '1: a zip of export.mp4, manifest.json and manifest.sig' }),
  ),
});
export interface ExportQuery {
  from: string;
  duration: number;
  stream?: 'main' | 'sub';
  manifest?: number;
}
export const ExportFieldCodes: Record<string, string> = {
  from: 'bad_range',
  duration: 'bad_range',
  stream: 'bad_profile',
  manifest: 'bad_request',
};

/** GET /api/v1/export-key: the public half of the plane's export key. */
export const ExportKeyReply = Type.Object({
  alg: Type.Literal('Ed25519'),
  key: Type.String({ description: 'PEM, SubjectPublicKeyInfo (-----BEGIN PUBLIC KEY-----)' }),
});
