import { describe, expect, it } from 'vitest';
import { parse, problems } from './parse.helpers.js';

// [database] read_url and max_read_lag_secs (document 4, section 15; docs/deployment.md, Read replicas).

const PRIMARY = 'postgres://argus@db1:5432/argus';

describe('[database] read_url', () => {
  it('absent: no replicas, the database as before', () => {
    expect(parse(`[database]\nurl = "${PRIMARY}"`).database).toEqual({
      kind: 'postgres',
      url: PRIMARY,
      source: 'plane.toml',
    });
    expect(parse('').database).toEqual({ kind: 'pglite', dir: '/srv/argus/db' });
  });

  it('one or several replicas, with the default lag of 10 s or the one given', () => {
    expect(parse(`[database]\nurl = "${PRIMARY}"\nread_url = "postgres://argus@db2/argus"`).database).toMatchObject({
      read: { url: 'postgres://argus@db2/argus', maxLagSecs: 10 },
    });
    const several = 'postgres://argus@db2:5432,db3:5433/argus';
    expect(
      parse(`[database]\nurl = "${PRIMARY}"\nread_url = "${several}"\nmax_read_lag_secs = 2.5`).database,
    ).toMatchObject({ read: { url: several, maxLagSecs: 2.5 } });
  });

  it('DATABASE_READ_URL wins over the file, as DATABASE_URL does', () => {
    const d = parse(`[database]\nurl = "${PRIMARY}"\nread_url = "postgres://argus@db2/argus"`, {
      DATABASE_READ_URL: 'postgres://argus@db9/argus',
    }).database;
    expect(d).toMatchObject({ read: { url: 'postgres://argus@db9/argus', maxLagSecs: 10 } });
    expect(parse('', { DATABASE_URL: PRIMARY, DATABASE_READ_URL: 'postgres://x@db2/argus' }).database).toMatchObject({
      source: 'DATABASE_URL',
      read: { url: 'postgres://x@db2/argus' },
    });
  });

  it('every problem is reported together, with the others of the file', () => {
    expect(
      problems(
        `dvr_export_max_secs = 1\n[database]\nurl = "${PRIMARY}"\nread_url = "mysql://db2"\nmax_read_lag_secs = 0`,
      ),
    ).toEqual([
      'dvr_export_max_secs must be an integer in 60..86400',
      '[database] max_read_lag_secs must be a number of seconds in (0, 86400]',
      'database read_url must start with postgres://',
    ]);
    expect(problems(`[database]\nurl = "${PRIMARY}"\nread_url = "postgres://db2:99999,db3/argus"`)).toHaveLength(1);
    expect(problems(`[database]\nurl = "${PRIMARY}"\nread_url = 5\nmax_read_lag_secs = "ten"`)).toEqual([
      '[database] read_url must be a string',
      '[database] max_read_lag_secs must be a number of seconds in (0, 86400]',
    ]);
  });

  it('needs a server: the embedded database has no replicas', () => {
    expect(problems('[database]\nread_url = "postgres://db2/argus"')).toEqual([
      '[database] read_url needs [database] url: the embedded database has no replicas',
    ]);
  });
});
