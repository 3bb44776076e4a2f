import type { Db } from '../../db/database.js';
import { errors, type ApiError } from '../../errors.js';
import type { CameraScope } from '../../rights/camera-rights.js';
import { purgeStore } from './purge.store.js';

/**
 * The error for an event that is not there: 410 archived_data_expired when a purge removed it
 * and the caller would have seen it, else 404 not_found (existence is never disclosed).
 */
export async function missingEvent(db: Db, scope: CameraScope, id: string, occurredAt: Date): Promise<ApiError> {
  return (await purgeStore.wasPurged(db, scope, id, occurredAt)) ? errors.archivedDataExpired() : errors.notFound();
}
