import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, openSync, closeSync, readFileSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import { setTimeout as sleep } from 'node:timers/promises';
import postgres from 'postgres';
import { freePort } from '../../node/helpers/node-process.js';
import { clusterDir, clusterUnavailable } from '../reliability/pg-cluster.js';

const run = promisify(execFile);
const BIN = process.env.ARGUS_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const asRoot = process.getuid?.() === 0;

/** pg_autoctl: beside the server binaries, or on PATH (Debian's pg-auto-failover-cli puts it in /usr/bin). */
function autoctlPath(): string | null {
  const dirs = [BIN, ...(process.env.PATH ?? '').split(delimiter), '/usr/bin'];
  return dirs.map((d) => join(d, 'pg_autoctl')).find((p) => existsSync(p)) ?? null;
}

/** Why a pg_auto_failover formation cannot be made here, or null when it can. */
export async function autoFailoverUnavailable(): Promise<string | null> {
  const cluster = await clusterUnavailable();
  if (cluster) return cluster;
  if (!autoctlPath()) return 'no pg_autoctl (Debian: apt-get install postgresql-15-auto-failover)';
  const { stdout: share } = await run(join(BIN, 'pg_config'), ['--sharedir']).catch(() => ({ stdout: '' }));
  if (!existsSync(join(share.trim(), 'extension', 'pgautofailover.control')))
    return `no pgautofailover extension for the server in ${BIN} (postgresql-15-auto-failover)`;
  return null;
}

/**
 * The monitor's failure detection, lowered from its defaults (5 s checks, 20 s before a node is
 * unhealthy, 30 s given to a lost primary to drain, 10 s of grace after the monitor starts) so
 * that a failover takes seconds, not a minute. The steps are pg_auto_failover's own.
 */
const MONITOR_SETTINGS: Record<string, number> = {
  'pgautofailover.health_check_period': 1000,
  'pgautofailover.health_check_timeout': 1000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 2000,
  'pgautofailover.primary_demote_timeout': 2000,
  'pgautofailover.startup_grace_period': 1000,
};

interface NodeState {
  nodename: string;
  nodeport: number;
  current_group_state: string;
  assigned_group_state: string;
}

/**
 * A pg_auto_failover formation of the test's own: a monitor and two data nodes (`pg_autoctl create`,
 * then `pg_autoctl run` for each as a child process in a process group of its own), on free
 * loopback ports, in a temp dir. pg_autoctl (and PostgreSQL) refuse root: as root they run as
 * `postgres`. Their config and state files go to the temp dir too (XDG_CONFIG_HOME, XDG_DATA_HOME).
 */
export class AutoFailover {
  monitorPort = 0;
  readonly nodes: Array<{ name: string; port: number }> = [];
  private dir = '';
  private readonly runs = new Map<string, ChildProcess>();
  private readonly killAll = () => this.killGroups();
  private constructor() {}

  static async create(): Promise<AutoFailover> {
    const f = new AutoFailover();
    // A worker that dies without afterAll must not leave servers behind.
    process.once('exit', f.killAll);
    try {
      await f.start();
    } catch (e) {
      await f.destroy();
      throw e;
    }
    return f;
  }

  private async start(): Promise<void> {
    this.dir = await clusterDir('argus-autofailover-');
    this.monitorPort = await freePort();
    // pg_autoctl would size shared_buffers and the rest for the whole machine (a quarter of its
    // memory each): the monitor and the first node are made here small first, and pg_autoctl takes
    // an existing cluster as it is. The second node is a pg_basebackup of the first, these included.
    await this.initdb('monitor');
    await this.autoctl(['create', 'monitor', ...this.common('monitor', this.monitorPort), '--hostname', '127.0.0.1']);
    // Its postgres would listen on every interface ('*'): loopback is enough.
    await this.autoctl(['config', 'set', '--pgdata', this.data('monitor'), 'postgresql.listen_addresses', '127.0.0.1']);
    this.runService('monitor');
    await this.tuneMonitor();
    await this.initdb('node1');
    for (const name of ['node1', 'node2']) {
      const port = await freePort();
      this.nodes.push({ name, port });
      await this.autoctl([
        'create',
        'postgres',
        ...this.common(name, port),
        '--name',
        name,
        '--hostname',
        '127.0.0.1',
        '--listen',
        '127.0.0.1',
        '--monitor',
        this.monitorUrl('autoctl_node', 'pg_auto_failover'),
      ]);
      this.runService(name);
    }
    await this.waitFor((s) => s.primary.length === 1 && s.secondary.length === 1, 90_000);
  }

  private common(name: string, port: number): string[] {
    const p = this.data(name);
    return ['--pgdata', p, '--pgport', String(port), '--pgctl', join(BIN, 'pg_ctl'), '--auth', 'trust', '--no-ssl'];
  }

  private data(name: string): string {
    return join(this.dir, name);
  }

  private monitorUrl(user: string, db: string): string {
    return `postgres://${user}@127.0.0.1:${this.monitorPort}/${db}`;
  }

  url(port: number, db = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${port}/${db}`;
  }

  /** The command line as the user that may run it, with pg_autoctl's files kept in the temp dir. */
  private command(tool: string, args: string[]): [string, string[]] {
    const env = [`XDG_CONFIG_HOME=${join(this.dir, 'config')}`, `XDG_DATA_HOME=${join(this.dir, 'state')}`];
    // The local connections pg_autoctl makes go through the socket directory set in initdb().
    env.push(`PGHOST=${this.dir}`, `HOME=${this.dir}`);
    const argv = ['env', ...env, tool, ...args];
    return asRoot ? ['runuser', ['-u', 'postgres', '--', ...argv]] : [argv[0]!, argv.slice(1)];
  }

  private async autoctl(args: string[]): Promise<string> {
    const [cmd, argv] = this.command(autoctlPath()!, args);
    const { stdout } = await run(cmd, argv, { cwd: this.dir, timeout: 90_000 });
    return stdout;
  }

  private async initdb(name: string): Promise<void> {
    const [cmd, argv] = this.command(join(BIN, 'initdb'), [
      '-D',
      this.data(name),
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    await run(cmd, argv, { cwd: this.dir, timeout: 60_000 });
    // fsync off: only an OS crash would lose what a killed server wrote, and the machine does not
    // crash here. synchronous_commit stays on; pg_auto_failover sets synchronous_standby_names.
    await writeFile(
      join(this.data(name), 'postgresql.auto.conf'),
      `unix_socket_directories = '${this.dir}'\nfsync = off\nfull_page_writes = off\nshared_buffers = 32MB\n` +
        `max_connections = 60\nwork_mem = 4MB\nmaintenance_work_mem = 16MB\neffective_cache_size = 256MB\n`,
    );
    if (asRoot) await run('chown', ['-R', 'postgres:postgres', this.data(name)]);
  }

  /** `pg_autoctl run` in a process group of its own: its keeper, its postgres and their children. */
  private runService(name: string): void {
    const [cmd, argv] = this.command(autoctlPath()!, ['run', '--pgdata', this.data(name)]);
    const log = openSync(join(this.dir, `${name}.log`), 'a');
    const child = spawn(cmd, argv, { cwd: this.dir, detached: true, stdio: ['ignore', log, log] });
    closeSync(log);
    child.on('error', () => {});
    this.runs.set(name, child);
  }

  private async tuneMonitor(): Promise<void> {
    const sql = postgres(this.monitorUrl('postgres', 'pg_auto_failover'), { max: 1, onnotice: () => {} });
    try {
      for (let i = 0; ; i++) {
        const up = await sql`select 1`.then(
          () => true,
          () => false,
        );
        if (up) break;
        if (i > 300) throw new Error(`the monitor never started (${join(this.dir, 'monitor.log')})`);
        await sleep(100);
      }
      for (const [name, value] of Object.entries(MONITOR_SETTINGS))
        await sql.unsafe(`alter system set ${name} = ${value}`);
      await sql`select pg_reload_conf()`;
    } finally {
      await sql.end();
    }
  }

  /** The nodes by the state the monitor assigned and the node reached (only those where both agree). */
  async states(): Promise<Record<string, Array<{ name: string; port: number }>>> {
    const out = await this.autoctl(['show', 'state', '--pgdata', this.data('monitor'), '--json']);
    const by: Record<string, Array<{ name: string; port: number }>> = { primary: [], secondary: [] };
    for (const n of JSON.parse(out) as NodeState[]) {
      if (n.current_group_state !== n.assigned_group_state) continue;
      (by[n.current_group_state] ??= []).push({ name: n.nodename, port: n.nodeport });
    }
    return by;
  }

  /** Bounded for a hang: the monitor's own steps decide how soon. */
  async waitFor(
    done: (s: Record<string, Array<{ name: string; port: number }>>) => boolean,
    ms: number,
  ): Promise<Record<string, Array<{ name: string; port: number }>>> {
    const until = Date.now() + ms;
    for (;;) {
      const s = await this.states().catch(() => null);
      if (s && done(s)) return s;
      if (Date.now() > until) throw new Error(`pg_auto_failover: not there in ${ms} ms: ${JSON.stringify(s)}`);
      await sleep(200);
    }
  }

  /** When the monitor recorded that a node reached a state (its event log), in ms since the epoch. */
  async reachedAt(name: string, state: string, after: number): Promise<number | null> {
    const sql = postgres(this.monitorUrl('postgres', 'pg_auto_failover'), { max: 1, onnotice: () => {} });
    try {
      const [row] = await sql<Array<{ at: Date }>>`select min(eventtime) as at from pgautofailover.event
        where nodename = ${name} and reportedstate = ${state}::pgautofailover.replication_state
          and reportedstate = goalstate and eventtime > to_timestamp(${after / 1000})`;
      return row?.at ? row.at.getTime() : null;
    } finally {
      await sql.end();
    }
  }

  /**
   * A machine lost: SIGKILL of the node's pg_autoctl (its keeper) and its postgres with every
   * backend, all at once. Nothing is left to restart postgres or to talk to the monitor.
   */
  killNode(name: string): void {
    const child = this.runs.get(name);
    if (child?.pid) process.kill(-child.pid, 'SIGKILL');
    this.killPostmaster(name);
  }

  /**
   * The node's postmaster by its pid file, should it have left the group: only while that pid is
   * still a postgres of this data dir (a pid file outlives a killed server, and pids are reused).
   */
  private killPostmaster(name: string): void {
    try {
      const pid = Number(readFileSync(join(this.data(name), 'postmaster.pid'), 'utf8').split('\n')[0]);
      if (pid > 0 && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(this.data(name)))
        process.kill(pid, 'SIGKILL');
    } catch {
      // No pid file, no such process, or no /proc.
    }
  }

  /** Synchronous, as it also runs on exit. A group whose leader was reaped is gone already. */
  private killGroups(): void {
    for (const child of this.runs.values()) {
      if (!child.pid || child.exitCode !== null || child.signalCode !== null) continue;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Gone already.
      }
    }
    for (const name of ['monitor', ...this.nodes.map((n) => n.name)]) this.killPostmaster(name);
  }

  async destroy(): Promise<void> {
    process.removeListener('exit', this.killAll);
    if (!this.dir) return;
    this.killGroups();
    // SIGKILL is not instant: rm of a data dir a dying postgres still writes to can fail once.
    for (let i = 0; i < 20; i++) {
      await sleep(100);
      const ok = await rm(this.dir, { recursive: true, force: true }).then(
        () => true,
        () => false,
      );
      if (ok) return;
    }
  }
}
