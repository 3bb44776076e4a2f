import { isAbsolute, resolve } from 'node:path';
import type { EvidenceLocation, PlaneConfig } from '../config/config.js';
import { errors } from '../errors.js';
import { holdsObjects, storageAt } from '../evidence/storage-operations.js';
import { at, type Edit } from './plane-toml.js';

// Rotation of the evidence storage (document 4 §10, docs/settings.md "Rotation"): what a move
// retires to [evidence_storage_retired], and whether a retired storage still blocks a move.

/** The location keys of a storage section (what [evidence_storage_retired] keeps). */
const LOCATION_KEYS = [
  'backend',
  'dir',
  'endpoint',
  'bucket',
  'region',
  'https',
  'addressing',
  'access_key',
  'secret_key',
] as const;
/** How long a listing may take before a storage counts as holding objects (unknown: the safe answer). */
const LISTING_TIMEOUT_MS = 5_000;
/** A storage's identity: two sections naming one folder or one bucket are one storage. */
const where = (l: EvidenceLocation) => (l.backend === 's3' ? `s3:${l.s3?.endpoint}/${l.s3?.bucket}` : `local:${l.dir}`);

/** Whether two locations name one storage (one folder, or one bucket of one endpoint). */
export const sameStorage = (a: EvidenceLocation, b: EvidenceLocation): boolean => where(a) === where(b);

/** A storage section of the saved file as a location (the default folder when `dir` is absent). */
export function locationOf(section: unknown, config: PlaneConfig): EvidenceLocation | null {
  if (typeof section !== 'object' || section === null) return null;
  const e = section as Record<string, unknown>;
  if (e.backend === 's3') {
    const str = (k: string) => (typeof e[k] === 'string' && e[k] ? (e[k] as string) : null);
    return {
      backend: 's3',
      dir: '',
      s3: {
        endpoint: str('endpoint') ?? '',
        bucket: str('bucket') ?? '',
        region: str('region') ?? 'us-east-1',
        https: e.https !== false,
        addressing: e.addressing === 'virtual_host' ? 'virtual_host' : 'path',
        accessKey: str('access_key'),
        secretKey: str('secret_key'),
        allowPrivateTargets: config.allowPrivateTargets,
      },
    };
  }
  const dir =
    typeof e.dir === 'string' && e.dir
      ? isAbsolute(e.dir)
        ? e.dir
        : resolve(config.dataDir, e.dir)
      : config.evidence.dir;
  return { backend: 'local', dir, s3: null };
}

/** Whether a storage holds objects; a listing that fails or takes too long counts as yes (refusing is the safe side). */
async function holds(loc: EvidenceLocation): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<boolean>((res) => {
    timer = setTimeout(() => res(true), LISTING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([holdsObjects(storageAt(loc)).catch(() => true), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * rotation_blocked (document 4 §10): the storage a previous change retired
 * ([evidence_storage_retired]) still holds objects. Until `argus-plane evidence migrate`
 * has moved them (or they are deleted) a further move is refused with 409.
 */
export async function rotationBlocked(saved: Record<string, unknown>, config: PlaneConfig): Promise<boolean> {
  const retired = locationOf(at(saved, 'evidence_storage_retired'), config);
  return retired !== null && (await holds(retired));
}

/**
 * A move retires the storages it leaves: the saved one and, when a change is already pending,
 * the one this process writes to. The one that holds objects goes to
 * [evidence_storage_retired] (the next start reads from it what the new storage lacks); when
 * none does, an earlier retired section goes; when both do, one section cannot name them and
 * the move is refused (409 event_storage_rotation_blocked).
 */
export async function retireEdits(
  saved: Record<string, unknown>,
  next: EvidenceLocation,
  config: PlaneConfig,
): Promise<Edit[]> {
  const savedSection = { backend: 'local', ...(at(saved, 'evidence_storage') as Record<string, unknown> | undefined) };
  const e = config.evidence;
  const effectiveSection: Record<string, unknown> =
    e.backend === 's3' && e.s3
      ? {
          backend: 's3',
          endpoint: e.s3.endpoint,
          bucket: e.s3.bucket,
          region: e.s3.region,
          https: e.s3.https,
          addressing: e.s3.addressing,
          ...(e.s3.accessKey && e.s3.secretKey ? { access_key: e.s3.accessKey, secret_key: e.s3.secretKey } : {}),
        }
      : { backend: 'local', dir: e.dir };
  const left = new Map<string, Record<string, unknown>>();
  for (const section of [savedSection, effectiveSection]) {
    const loc = locationOf(section, config)!;
    if (where(loc) !== where(next))
      left.set(where(loc), loc.backend === 'local' ? { backend: 'local', dir: loc.dir } : section);
  }
  const holders: Array<Record<string, unknown>> = [];
  for (const section of left.values()) if (await holds(locationOf(section, config)!)) holders.push(section);
  if (holders.length > 1) throw errors.conflict('event_storage_rotation_blocked');
  if (!holders.length) return [[['evidence_storage_retired'], undefined]];
  const keys = holders[0]!;
  return LOCATION_KEYS.map((k): Edit => [['evidence_storage_retired', k], keys[k]]);
}
