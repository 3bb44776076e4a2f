import { describe, expect, it } from 'vitest';
import { parseDatabaseHosts } from '../../../src/plane/db/hosts.js';
import { parsePlaneConfig } from '../../../src/plane/config/config.js';

describe('parseDatabaseHosts: the servers of a [database] url', () => {
  it('returns a one-server url exactly as written, whatever its form', () => {
    for (const url of [
      'postgres://postgres@127.0.0.1:5432/postgres',
      'postgresql://u:p%40ss@db.example/argus?sslmode=require',
      'postgres:///argus?host=/var/run/postgresql',
      'postgres://u@[::1]/argus',
    ])
      expect(parseDatabaseHosts(url)).toEqual([{ name: expect.any(String), url }]);
  });

  it('splits several servers into one url each, keeping credentials, database and parameters', () => {
    expect(parseDatabaseHosts('postgres://user:secret@h1:5432,h2:5433/argus?sslmode=require')).toEqual([
      { name: 'h1:5432', url: 'postgres://user:secret@h1:5432/argus?sslmode=require' },
      { name: 'h2:5433', url: 'postgres://user:secret@h2:5433/argus?sslmode=require' },
    ]);
  });

  it('gives a server without a port 5432, and reads IPv6 literals in brackets', () => {
    expect(parseDatabaseHosts('postgresql://h1,[fe80::1]:6000,10.0.0.3/argus').map((h) => h.url)).toEqual([
      'postgresql://h1:5432/argus',
      'postgresql://[fe80::1]:6000/argus',
      'postgresql://10.0.0.3:5432/argus',
    ]);
  });

  it('takes the credentials up to the last @ (an encoded password may hold none, a raw one may)', () => {
    expect(parseDatabaseHosts('postgres://u:p@ss@a:1,b:2/x').map((h) => h.url)).toEqual([
      'postgres://u:p@ss@a:1/x',
      'postgres://u:p@ss@b:2/x',
    ]);
  });

  it('refuses an empty host, a bad port and a broken bracket in a list', () => {
    for (const url of ['postgres://a:5432,/x', 'postgres://a,b:99999/x', 'postgres://a,b:p/x', 'postgres://a,[::1/x'])
      expect(() => parseDatabaseHosts(url), url).toThrow(/database url/);
  });

  it('is checked when the configuration is read', () => {
    const read = (url: string) =>
      parsePlaneConfig({ text: `[database]\nurl = "${url}"\n`, configFile: '/tmp/argus-x/plane.toml', env: {} });
    expect(read('postgres://u@h1:5432,h2:5433/argus').database).toMatchObject({
      kind: 'postgres',
      url: 'postgres://u@h1:5432,h2:5433/argus',
    });
    expect(() => read('postgres://u@h1:5432,h2:0x/argus')).toThrow(/database url: "h2:0x"/);
  });
});
