import { describe, expect, it } from 'vitest';
import { PrimaryLocator, NoPrimaryError } from '../../../src/plane/db/primary-locator.js';
import { parseDatabaseHosts, type DatabaseHost } from '../../../src/plane/db/hosts.js';
import { freePort } from '../../node/helpers/node-process.js';

// The locator against the shared server (which takes writes) and a port where nothing listens.
// Its standby case (a server in recovery is passed over) is in failover.test.ts, which has one.
const BASE = process.env.TEST_DATABASE_URL;
if (!BASE) console.warn('primary-locator: skipped: needs TEST_DATABASE_URL');

describe.skipIf(!BASE)('PrimaryLocator', () => {
  const hostsOf = async (...live: boolean[]): Promise<DatabaseHost[]> => {
    const u = new URL(BASE!);
    const list = await Promise.all(live.map(async (on) => `${u.hostname}:${on ? u.port || '5432' : await freePort()}`));
    return parseDatabaseHosts(`postgres://${u.username}@${list.join(',')}${u.pathname}`);
  };
  const locator = (hosts: DatabaseHost[], moves: string[]) =>
    new PrimaryLocator(hosts, { connectionTimeoutMillis: 2000 }, 2000, (from, to) =>
      moves.push(`${from.name}>${to.name}`),
    );

  it('moves to the listed server that takes writes, and says so once', async () => {
    const hosts = await hostsOf(false, true);
    const moves: string[] = [];
    const l = locator(hosts, moves);
    expect(l.current).toBe(hosts[0]);
    const [a, b] = await Promise.all([l.locate(), l.locate()]);
    expect(a).toBe(hosts[1]);
    expect(b).toBe(hosts[1]);
    expect(moves).toEqual([`${hosts[0]!.name}>${hosts[1]!.name}`]);
    expect(await l.locate()).toBe(hosts[1]);
    expect(moves).toHaveLength(1);
  });

  it('stays on the current server while it takes writes, even when another does too', async () => {
    const hosts = await hostsOf(true, true);
    const moves: string[] = [];
    const l = locator(hosts, moves);
    expect(await l.locate()).toBe(hosts[0]);
    expect(moves).toEqual([]);
  });

  it('rejects with NoPrimaryError when none answers, and stays where it was', async () => {
    const hosts = await hostsOf(false, false);
    const moves: string[] = [];
    const l = locator(hosts, moves);
    await expect(l.locate()).rejects.toBeInstanceOf(NoPrimaryError);
    expect(l.current).toBe(hosts[0]);
    expect(moves).toEqual([]);
  });
});
