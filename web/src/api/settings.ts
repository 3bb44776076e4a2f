import { answered, client, ok, type Sent } from './client.js';

/**
 * The plane's settings as GET /api/v1/settings/plane answers them (superadmin). The route's reply
 * schema (SettingsReply in src/plane/settings/) leaves each section open (`unknown`), so the
 * sections the page reads are written out here; when
 * the plane describes them, this becomes `Reply<'/api/v1/settings/plane'>`.
 */
export interface Settings {
  dvr_export_max_secs: number;
  logging: {
    minimum_level: string;
    effective_minimum_level: string;
    environment_override: boolean;
    applies_live: boolean;
    source: string;
  };
  network: {
    pending_restart: boolean;
    effective: { public_url: string };
    certificate: {
      mode: string;
      status_hint: string;
      certificate: null | { subject: string; not_after: string; days_left: number; fingerprint: string };
    };
  };
  evidence_storage: {
    pending_restart: boolean;
    rotation_blocked: boolean;
    effective: Record<string, unknown>;
    stats: {
      used_percent: number;
      capacity_bytes: number | null;
      logical_bytes: number;
      attachment_count: number;
      failed_jobs: number;
      pressure_dropped_attachments: number;
      operations: { ops_per_second: number; errors: number };
    };
  };
  /** absent from a plane older than the notifications (issue 24) */
  notifications?: NotificationsSettings;
}

/** The SMTP server as the settings show it: every key but the password, which is only `password_configured`. */
export interface SmtpShown {
  host: string;
  port: number;
  tls: 'starttls' | 'tls' | 'off';
  user: string | null;
  from: string;
  tls_ca: string | null;
  password_configured: boolean;
}

/** `[notifications]` as running and as saved (docs/settings.md, "Notifications"). */
export interface NotificationsSettings {
  effective: { channel_rate: number; smtp: SmtpShown | null };
  saved: { channel_rate: number; smtp: SmtpShown | null };
  pending_restart: boolean;
}

export type SettingsChange = Sent<'/api/v1/settings/plane', 'patch'>;

export const settingsKeys = { plane: ['settings'] as const };

/** The settings and their ETag, which a change sends back as If-Match (412 when another came first). */
export async function planeSettings(): Promise<{ body: Settings; etag: string | null }> {
  const { body, etag } = await answered(client.GET('/api/v1/settings/plane'));
  return { body: body as Settings, etag };
}

export const changeSettings = (body: SettingsChange, etag: string | null) =>
  ok(client.PATCH('/api/v1/settings/plane', { body, headers: etag ? { 'if-match': etag } : {} }));

/** A candidate evidence storage probed (written, read back, deleted) without choosing it. */
export const testStorage = (body: Sent<'/api/v1/settings/plane/evidence-storage/test', 'post'>) =>
  ok(client.POST('/api/v1/settings/plane/evidence-storage/test', { body }));
