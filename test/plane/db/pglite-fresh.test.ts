import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../../src/plane/db/pglite.js';

/**
 * A fresh embedded cluster is created by a short-lived child process (issue 25 item 17: initdb's
 * WebAssembly memory is never given back), then opened here as an existing one.
 */
describe('the embedded database in a new folder', () => {
  const roots: string[] = [];
  afterAll(async () => {
    for (const r of roots) await rm(r, { recursive: true, force: true });
  });

  it('is created by the child, opened here, and keeps what was written across a reopen', async () => {
    const root = await mkdtemp(join(tmpdir(), 'argus-pglite-'));
    roots.push(root);
    const dir = join(root, 'db');
    const first = await openPglite(dir);
    expect(existsSync(join(dir, 'PG_VERSION'))).toBe(true);
    await sql`create table kept (v text)`.execute(first.db);
    await sql`insert into kept values ('written before the restart')`.execute(first.db);
    await first.close();

    const again = await openPglite(dir);
    try {
      const rows = await sql<{ v: string }>`select v from kept`.execute(again.db);
      expect(rows.rows).toEqual([{ v: 'written before the restart' }]);
    } finally {
      await again.close();
    }
  });
});
