import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Database } from './database.js';

// Arbitrary constant: every plane process takes this advisory lock before migrating, so two
// processes starting together apply each file exactly once.
const MIGRATION_LOCK = 724_201_001;

/** The .sql files live in the source tree; found from either src/ (tests) or dist/src/ (built). */
export function migrationsDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return join(dir, 'src', 'plane', 'db', 'migrations');
    dir = dirname(dir);
  }
  throw new Error('package root not found');
}

export interface MigrationResult {
  applied: string[];
}

export async function migrate(database: Database, dir = migrationsDir()): Promise<MigrationResult> {
  const files = (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
  const applied: string[] = [];
  await database.withSession(async (s) => {
    await s.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await s.exec(`create table if not exists schema_migrations (
        version integer primary key, name text not null, applied_at timestamptz not null default now())`);
      const done = new Set(
        (await s.query<{ version: number }>('select version from schema_migrations')).map((r) => Number(r.version)),
      );
      for (const file of files) {
        const version = Number(file.slice(0, 4));
        if (done.has(version)) continue;
        const text = await readFile(join(dir, file), 'utf8');
        await s.exec('begin');
        try {
          await s.exec(text);
          await s.query('insert into schema_migrations (version, name) values ($1, $2)', [version, file]);
          await s.exec('commit');
        } catch (err) {
          await s.exec('rollback').catch(() => {});
          throw new Error(`migration ${file} failed: ${(err as Error).message}`, { cause: err });
        }
        applied.push(file);
      }
    } finally {
      await s.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    }
  });
  return { applied };
}
