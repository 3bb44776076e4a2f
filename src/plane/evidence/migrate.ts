import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import type { EvidenceStorage } from './evidence.storage.js';
import { isEvidenceKey } from './evidence-folder.js';

export type MigrateOutcome = 'moved' | 'already_there' | 'failed';
export interface MigrateReport {
  moved: number;
  already_there: number;
  failed: Array<{ key: string; reason: string }>;
  bytes: number;
}

async function digest(body: Readable): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    hash.update(chunk as Buffer);
  }
  return { size, sha256: hash.digest('hex') };
}

/** Size and checksum of an object as stored, or null when it is not there. */
async function stored(storage: EvidenceStorage, key: string): Promise<{ size: number; sha256: string } | null> {
  const o = await storage.open(key);
  return o ? digest(o.body) : null;
}

/**
 * Moves one object: copied unless the target holds the same bytes already (a run stopped after
 * the copy), then read back from the target and compared with the source by size and SHA-256;
 * only then is the source deleted. A mismatch leaves the source where it is.
 */
async function moveOne(source: EvidenceStorage, target: EvidenceStorage, key: string): Promise<MigrateOutcome> {
  const want = await stored(source, key);
  if (!want) return 'already_there'; // gone meanwhile (a purge): nothing to move
  let outcome: MigrateOutcome = 'already_there';
  const have = await stored(target, key);
  if (!have || have.size !== want.size || have.sha256 !== want.sha256) {
    const o = await source.open(key);
    if (!o) return 'already_there';
    const type = key.endsWith('.preview.jpg') ? 'image/jpeg' : 'application/octet-stream';
    if (target.putStream) await target.putStream(key, o.body, type, Number.MAX_SAFE_INTEGER);
    else {
      const chunks: Buffer[] = [];
      for await (const c of o.body) chunks.push(c as Buffer);
      await target.put(key, Buffer.concat(chunks), type);
    }
    const copied = await stored(target, key);
    if (!copied || copied.size !== want.size || copied.sha256 !== want.sha256) {
      throw new Error(
        `verification failed: ${copied ? `${copied.size} bytes, sha256 ${copied.sha256.slice(0, 12)}…` : 'missing'} in the target, ${want.size} bytes, sha256 ${want.sha256.slice(0, 12)}… in the source`,
      );
    }
    outcome = 'moved';
  }
  await source.delete(key);
  return outcome;
}

/**
 * `argus-plane evidence migrate` (document 4 §10): every object of the retired storage moved to
 * the storage in use, verified before its source is deleted. Resumable by construction: a run
 * works from the source's listing, so a stopped run is continued by running it again (objects
 * already copied are recognised by their checksum). A failed object is reported and left in
 * the source; the others go on.
 */
export async function migrateEvidence(
  source: EvidenceStorage,
  target: EvidenceStorage,
  hooks: {
    start?(total: number, bytes: number): void;
    object?(key: string, size: number, outcome: MigrateOutcome): void;
  } = {},
): Promise<MigrateReport> {
  let total = 0,
    totalBytes = 0;
  for await (const o of source.list())
    if (isEvidenceKey(o.key)) {
      total++;
      totalBytes += o.size;
    }
  hooks.start?.(total, totalBytes);
  const report: MigrateReport = { moved: 0, already_there: 0, failed: [], bytes: 0 };
  for await (const o of source.list()) {
    // Listings hold only the layout already; a storage of another kind is held to it here too.
    if (!isEvidenceKey(o.key)) continue;
    let outcome: MigrateOutcome;
    try {
      outcome = await moveOne(source, target, o.key);
      if (outcome === 'moved') {
        report.moved++;
        report.bytes += o.size;
      } else report.already_there++;
    } catch (err) {
      outcome = 'failed';
      report.failed.push({ key: o.key, reason: (err as Error).message });
    }
    hooks.object?.(o.key, o.size, outcome);
  }
  return report;
}
