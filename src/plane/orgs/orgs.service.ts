import { randomUUID } from 'node:crypto';
import type { Db } from '../db/database.js';
import { orgsStore } from './orgs.store.js';

export class OrgsService {
  constructor(private readonly db: Db) {}

  /** The organisation named `default`, created on first use (bootstrap). */
  async ensureDefault(trx: Db): Promise<string> {
    const found = await orgsStore.findByName(trx, 'default');
    if (found) return found.id;
    const id = randomUUID();
    await orgsStore.insert(trx, { id, name: 'default' });
    return id;
  }
}
