import { execFile } from 'node:child_process';
import { appendFile, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { clusterDir, pgTool, startOnFreePort } from '../reliability/pg-cluster.js';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

/**
 * A primary and a streaming hot standby of the test's own, in a temp dir on free loopback ports:
 * the standby made with pg_basebackup -R (primary_conninfo), synchronous so that a commit the
 * primary acknowledged is on the standby too. PostgreSQL refuses root: as root it runs as `postgres`.
 * (clusterUnavailable in ../reliability/pg-cluster.ts says whether it can run here.)
 */
export class PgPair {
  primaryPort = 0;
  standbyPort = 0;
  private dir = '';
  private constructor() {}

  static async create(): Promise<PgPair> {
    const p = new PgPair();
    p.dir = await clusterDir('argus-pgpair-');
    await pgTool('initdb', ['-D', p.primary, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // fsync off: only an OS crash would lose what a killed server wrote, and the machine does not
    // crash here. synchronous_commit stays on: a commit waits for the standby's flush of it.
    await writeFile(
      join(p.primary, 'postgresql.auto.conf'),
      `listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\n` +
        `full_page_writes = off\nshared_buffers = 32MB\nmax_connections = 60\nwal_level = replica\n` +
        `max_wal_senders = 4\nsynchronous_standby_names = '*'\nwal_sender_timeout = 5s\n`,
    );
    if (asRoot) await run('chown', ['-R', 'postgres:postgres', p.dir]);
    p.primaryPort = await startOnFreePort(p.primary, join(p.dir, 'primary.log'));
    await pgTool('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(p.primaryPort),
      '-U',
      'postgres',
      '-D',
      p.standby,
      '-R',
      '-X',
      'stream',
      '-c',
      'fast',
      '--no-sync',
    ]);
    // Later lines win: no synchronous standby of its own once promoted (it has none, and every
    // commit would wait for one for ever), and its own port (appended by startOnFreePort).
    await appendFile(join(p.standby, 'postgresql.auto.conf'), `synchronous_standby_names = ''\nhot_standby = on\n`);
    p.standbyPort = await startOnFreePort(p.standby, join(p.dir, 'standby.log'));
    await p.waitForSyncStandby();
    return p;
  }

  get primary(): string {
    return join(this.dir, 'primary');
  }
  get standby(): string {
    return join(this.dir, 'standby');
  }
  url(port: number, db = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${port}/${db}`;
  }

  private async waitForSyncStandby(): Promise<void> {
    const sql = postgres(this.url(this.primaryPort), { max: 1, onnotice: () => {} });
    try {
      for (let i = 0; i < 200; i++) {
        const rows = await sql`select 1 from pg_stat_replication where sync_state = 'sync'`;
        if (rows.length) return;
        await sleep(50);
      }
      throw new Error('the standby never became synchronous');
    } finally {
      await sql.end();
    }
  }

  /** SIGKILL of the primary's postmaster: no shutdown, no goodbye; its backends follow it. */
  async killPrimary(): Promise<void> {
    const pid = Number((await readFile(join(this.primary, 'postmaster.pid'), 'utf8')).split('\n')[0]);
    process.kill(pid, 'SIGKILL');
  }

  /** A clean stop of the standby (pg_ctl -m fast): its sessions are ended, new ones refused. */
  async stopStandby(): Promise<void> {
    await pgTool('pg_ctl', ['-D', this.standby, '-m', 'fast', '-w', '-t', '30', 'stop']);
  }

  async promoteStandby(): Promise<void> {
    await pgTool('pg_ctl', ['-D', this.standby, '-w', '-t', '30', 'promote']);
  }

  async destroy(): Promise<void> {
    for (const data of [this.standby, this.primary])
      await pgTool('pg_ctl', ['-D', data, '-m', 'immediate', '-w', '-t', '30', 'stop']).catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
