import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { appendFile, chown, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../../bench/net.js';

const run = promisify(execFile);
const BIN = process.env.ARGUS_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/**
 * Why a throwaway cluster cannot be made here, or null when it can. The shared server must never
 * be stopped (other suites run on it), so a test that stops PostgreSQL for real owns its own one.
 * PostgreSQL refuses to run as root: as root the binaries run as the `postgres` user.
 */
export async function clusterUnavailable(): Promise<string | null> {
  if (!existsSync(join(BIN, 'initdb')) || !existsSync(join(BIN, 'pg_ctl'))) return `no initdb/pg_ctl in ${BIN}`;
  if (process.getuid?.() === 0) {
    try {
      await run('id', ['-u', 'postgres']);
    } catch {
      return 'running as root and there is no postgres user to run the cluster as';
    }
    if (!existsSync('/usr/sbin/runuser') && !existsSync('/sbin/runuser')) return 'running as root without runuser';
  }
  return null;
}

/** A PostgreSQL binary, as `postgres` when the test runs as root (PostgreSQL refuses root). */
export async function pgTool(tool: string, args: string[]): Promise<string> {
  const [cmd, argv] =
    process.getuid?.() === 0
      ? ['runuser', ['-u', 'postgres', '--', join(BIN, tool), ...args]]
      : [join(BIN, tool), args];
  const { stdout } = await run(cmd as string, argv as string[], { cwd: tmpdir(), timeout: 60_000 });
  return stdout;
}

/**
 * Starts the server of `data` on a free loopback port and returns the port. A port free when
 * picked can be taken before the server binds it (another test's server or connection): then the
 * server starts again on a new one, up to five picks. Any other failure is thrown at once.
 */
export async function startOnFreePort(data: string, log: string, pickPort = freePort): Promise<number> {
  for (let pick = 1; ; pick++) {
    const port = await pickPort();
    // A later line wins in postgresql.auto.conf.
    await appendFile(join(data, 'postgresql.auto.conf'), `port = ${port}\n`);
    const logged = await stat(log).then(
      (s) => s.size,
      () => 0,
    );
    try {
      await pgTool('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '30', 'start']);
      return port;
    } catch (err) {
      const said = (await readFile(log).catch(() => Buffer.alloc(0))).subarray(logged).toString();
      if (pick >= 5 || !/could not bind|Address already in use/.test(said)) throw err;
    }
  }
}

/** A temp dir for servers of the test's own, owned by `postgres` when the test runs as root. */
export async function clusterDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (process.getuid?.() === 0) {
    const { stdout: uid } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(uid.trim()), Number(gid.trim()));
  }
  return dir;
}

/** A PostgreSQL cluster of the test's own in a temp dir, on a free loopback port. */
export class PgCluster {
  port = 0;
  private dir = '';
  private constructor() {}

  /** `pickPort` picks the ports to try (a test of the retry gives a taken one first). */
  static async create(pickPort = freePort): Promise<PgCluster> {
    const c = new PgCluster();
    c.dir = await clusterDir('argus-pg-');
    await pgTool('initdb', ['-D', c.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    // Small and quick: fsync off (only an OS crash would lose what the killed server wrote, and
    // the machine does not crash here), no socket dir in /var/run. synchronous_commit stays on: off,
    // a commit is acknowledged before its WAL is written, and an immediate stop loses it.
    await writeFile(
      join(c.data, 'postgresql.auto.conf'),
      `listen_addresses = '127.0.0.1'\nunix_socket_directories = ''\nfsync = off\n` +
        `full_page_writes = off\nshared_buffers = 32MB\nmax_connections = 60\n`,
    );
    if (process.getuid?.() === 0) await run('chown', ['-R', 'postgres:postgres', c.dir]);
    c.port = await startOnFreePort(c.data, c.log, pickPort);
    return c;
  }

  get data(): string {
    return join(this.dir, 'data');
  }
  url(db = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${db}`;
  }

  private get log(): string {
    return join(this.dir, 'log');
  }

  /** Starts it again on its own port (the tests reconnect to the URL they were given). */
  async start(): Promise<void> {
    await pgTool('pg_ctl', ['-D', this.data, '-l', this.log, '-w', '-t', '30', 'start']);
  }

  /** A real stop: `fast` ends every session (clients see 57P01 or a closed socket). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await pgTool('pg_ctl', ['-D', this.data, '-m', mode, '-w', '-t', '30', 'stop']);
  }

  async destroy(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}
