/**
 * The closed audit vocabulary (document 1, "Action vocabulary"): the groups named there, each
 * with the members this product writes. `GET /api/v1/audit/actions` returns exactly this list
 * and the `action` filter accepts nothing else.
 */
const crud = (group: string) => [`${group}.create`, `${group}.update`, `${group}.delete`];

export const AUDIT_ACTIONS: readonly string[] = Object.freeze([
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.keys_rotated',
  ...crud('node'),
  'node.config_read',
  'storage.update',
  ...crud('agent'),
  ...crud('agent_device'),
  ...crud('agent_rule'),
  'grant.update',
  'view.live',
  'view.playback',
  'export.dvr',
  // document 4 §14: an export through the plane (GET /api/v1/cameras/{id}/export)
  'media.export',
  'data.blob_download',
  'data.csv_export',
  'data.retention_purge',
  ...crud('org'),
  ...crud('user'),
  ...crud('tag'),
  ...crud('camera'),
  ...crud('mosaic'),
  ...crud('report'),
  ...crud('dashboard'),
  ...crud('widget'),
  ...crud('template'),
  // document 4 §13: notification rules and channels
  ...crud('notification_rule'),
  ...crud('notification_channel'),
  'token.create',
  'token.update',
  'token.rotate',
  'token.delete',
  'share.create',
  'share.delete',
  'ptz.move',
  'onvif.discover',
  'settings.update',
  'event.delete',
]);

const ACTION_SET = new Set(AUDIT_ACTIONS);
export function isAuditAction(a: string): boolean {
  return ACTION_SET.has(a);
}
