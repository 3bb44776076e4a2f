import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ApiError } from '../../common/api-error.js';
import type { Clock } from '../../common/clock.js';
import { errors } from '../errors.js';
import { describeLicense, evaluateLicense, type LicenseStatus } from './license.js';

export const LICENSE_FILE = 'license.json';

/** Holds the licence text of `{config_dir}`; the state is evaluated on every read so dates roll over. */
export class LicenseService {
  private text: string | null = null;

  constructor(
    private readonly configDir: string,
    private readonly clock: Clock,
    private readonly buildDate: string,
    private readonly keys: string[],
  ) {}

  get path(): string {
    return join(this.configDir, LICENSE_FILE);
  }

  /** Rereads the file (start and reload): a new activation needs no restart. */
  async load(): Promise<void> {
    try {
      this.text = await readFile(this.path, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      this.text = null;
    }
  }

  status(): LicenseStatus {
    return evaluateLicense(this.text, { now: this.clock.now(), buildDate: this.buildDate, keys: this.keys });
  }

  line(): string {
    return describeLicense(this.status());
  }

  /** The 403 every media request answers while the licence refuses media, with its message; else null. */
  mediaRefusal(): ApiError | null {
    const { refusal } = this.status();
    return refusal ? errors.mediaForbidden(refusal.reason, refusal.message) : null;
  }
}
