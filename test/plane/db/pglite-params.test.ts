import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openPglite } from '../../../src/plane/db/pglite.js';
import type { Database } from '../../../src/plane/db/database.types.js';

/** A Date outside years 1-9999 reaches the embedded database as PostgreSQL writes it (BC, 5 digits). */
describe('dates sent to the embedded database', () => {
  let database: Database;
  beforeAll(async () => {
    database = await openPglite(null);
  });
  afterAll(async () => {
    await database.close();
  });

  it.each([
    ['a day before 0001-01-01 (ISO year 0)', '0000-12-31T00:00:00.000Z', '0001-12-31 00:00:00 BC'],
    ['ISO year -1', '-000001-06-15T12:30:00.250Z', '0002-06-15 12:30:00.25 BC'],
    ['the first instant of year 1', '0001-01-01T00:00:00.000Z', '0001-01-01 00:00:00'],
    ['the last of 9999', '9999-12-31T23:59:59.999Z', '9999-12-31 23:59:59.999'],
    ['a day past 9999', '+010000-01-01T00:00:00.000Z', '10000-01-01 00:00:00'],
  ])('%s', async (_name, iso, text) => {
    const at = new Date(iso);
    const r = await sql<{ t: string }>`select (${at}::timestamptz at time zone 'UTC')::text as t`.execute(database.db);
    expect(r.rows[0]!.t).toBe(text);
  });
});
