import { readFile } from 'node:fs/promises';
import cliProgress from 'cli-progress';
import { parsePlaneConfig } from '../config/config.js';
import { storageAt } from './storage-operations.js';
import { migrateEvidence } from './migrate.js';
import { LocalEvidenceStorage } from './evidence.storage.js';
import { EvidenceFolderRefused } from './evidence-folder.js';

/**
 * `argus-plane evidence migrate [--config FILE]`: moves the objects of [evidence_storage_retired]
 * into [evidence_storage] with a progress bar on stderr (a line every few seconds when stderr
 * is not a terminal). Exit 0 when the retired storage is empty afterwards, 1 when objects failed
 * (run it again: it resumes), 2 when there is nothing configured to move from or a folder is
 * not the plane's (issue 25: a folder without the plane's marker that holds other files is never
 * listed, so nothing in it is moved or deleted).
 */
export async function evidenceMigrateCommand(
  configFile: string,
  out: NodeJS.WriteStream = process.stderr,
): Promise<number> {
  const config = parsePlaneConfig({ text: await readFile(configFile, 'utf8'), configFile, env: process.env });
  const retired = config.evidence.retired;
  if (!retired) {
    out.write('argus-plane: no [evidence_storage_retired] in the settings: nothing to migrate\n');
    return 2;
  }
  const source = storageAt(retired, config.dataDir),
    target = storageAt(config.evidence, config.dataDir);
  // Both folders checked before the first object: the source is listed only when it is the plane's, the target receives only then.
  try {
    if (source instanceof LocalEvidenceStorage) await source.claim(false);
    if (target instanceof LocalEvidenceStorage) await target.claim(true);
  } catch (err) {
    if (!(err instanceof EvidenceFolderRefused)) throw err;
    out.write(`argus-plane: ${err.reason}; nothing moved\n`);
    return 2;
  }
  const name = (d: { backend: string; dir?: string; endpoint?: string; bucket?: string }) =>
    d.backend === 's3' ? `s3://${d.endpoint}/${d.bucket}` : d.dir;
  out.write(
    `argus-plane: moving evidence from ${name(source.describe() as never)} to ${name(target.describe() as never)}\n`,
  );
  const bar = new cliProgress.SingleBar(
    {
      stream: out,
      noTTYOutput: true,
      notTTYSchedule: 2000,
      etaBuffer: 50,
      format:
        'evidence migrate [{bar}] {percentage}% | {value}/{total} objects | {moved} moved, {failed} failed | ETA {eta_formatted}',
    },
    cliProgress.Presets.shades_classic,
  );
  let moved = 0,
    failed = 0;
  const report = await migrateEvidence(source, target, {
    start: (total) => bar.start(total, 0, { moved, failed }),
    object: (_key, _size, outcome) => {
      if (outcome === 'moved') moved++;
      if (outcome === 'failed') failed++;
      bar.increment(1, { moved, failed });
    },
  });
  bar.stop();
  out.write(
    `argus-plane: ${report.moved} moved (${report.bytes} bytes), ${report.already_there} already in place, ${report.failed.length} failed\n`,
  );
  for (const f of report.failed.slice(0, 20)) out.write(`  ${f.key}: ${f.reason}\n`);
  if (report.failed.length) {
    out.write('argus-plane: run it again to retry the failed objects\n');
    return 1;
  }
  return 0;
}
