import type { Logger } from 'pino';
import { ConfigError, type PlaneConfig } from '../config/config.js';
import { EvidenceFolderRefused, claimEvidenceFolder } from './evidence-folder.js';

/**
 * At start: the folder in use is claimed (made when missing, adopted, marked). A folder that is
 * not the plane's is a configuration problem (ConfigError: `argus-plane serve` exits 2); any
 * other failure (a permission, a full disk) is logged and left to the first write to report.
 */
export async function claimEvidenceAtStart(
  config: Pick<PlaneConfig, 'evidence' | 'dataDir'>,
  log: Pick<Logger, 'warn'>,
): Promise<void> {
  if (config.evidence.backend !== 'local') return;
  try {
    await claimEvidenceFolder(config.evidence.dir, config.dataDir, true);
  } catch (err) {
    if (err instanceof EvidenceFolderRefused) throw new ConfigError([err.reason]);
    log.warn(
      { err: (err as NodeJS.ErrnoException).code ?? (err as Error).message },
      'evidence: the folder could not be claimed at start',
    );
  }
}
