import { removeOrphanTempFiles } from '../../common/atomic-file.js';
import { readFile, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { Clock } from '../../common/clock.js';
import { errors } from '../errors.js';
import { ConfigHistory, configHash, type HistoryEntry } from '../history/history.service.js';
import type { AuthSettings, NodeConfig } from './config.types.js';
import type { GlobalsChange, StreamChange } from './config.schemas.js';
import { ConfigParseError } from './grammar.js';
import { ConfigValueError, parseConfig } from './validate.js';
import { ConfigText, directive } from './writer.js';

/** Which `auth { }` credentials are set: all that stays of the block once the gate has its fingerprints. */
export type AuthPresence = { [K in Exclude<keyof AuthSettings, 'admin_ip_bind'>]: boolean } & {
  admin_ip_bind: boolean;
};

export type RuntimeConfig = Omit<NodeConfig, 'auth'> & { auth: AuthPresence };

export interface ApplyResult {
  entry: HistoryEntry;
  changed: boolean;
}

/** Called with the full configuration (secrets included) on every applied change; must not keep `auth`. */
export type ApplyListener = (next: NodeConfig, prev: RuntimeConfig | null) => void;

export interface ConfigServiceOptions {
  path: string;
  dataDir: string;
  clock: Clock;
  /** Hot application: every applied configuration reaches the subsystems through this, and only this. */
  onApply: ApplyListener;
}

const AUTH_SECRETS = ['admin_password', 'session_secret', 'api_read_token', 'api_write_token'] as const;

function presence(auth: AuthSettings): AuthPresence {
  return {
    admin_password: auth.admin_password !== undefined,
    session_secret: auth.session_secret !== undefined,
    admin_ip_bind: auth.admin_ip_bind,
    api_read_token: auth.api_read_token !== undefined,
    api_write_token: auth.api_write_token !== undefined,
  };
}

/** Parses `text` and turns a grammar or value failure into the API's 400 `invalid_config`. */
export function parseForApi(text: string, configDir: string): NodeConfig {
  try {
    return parseConfig(text, configDir).config;
  } catch (err) {
    if (err instanceof ConfigParseError) throw errors.invalidConfig([err.message]);
    if (err instanceof ConfigValueError) throw errors.invalidConfig(err.problems);
    throw err;
  }
}

/**
 * The applied configuration, its history and every change to it. Changes are serialised: each
 * one validates the whole new text, replaces the file atomically, appends a history epoch, then
 * tells the listeners (hot application). The text itself is not kept in memory: it holds every
 * secret, and the history blob of the current epoch is the source of truth for the API.
 */
export class ConfigService {
  private current: RuntimeConfig | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  readonly path: string;
  readonly configDir: string;
  readonly history: ConfigHistory;
  private readonly onApply: ApplyListener;

  constructor(o: ConfigServiceOptions) {
    this.path = o.path;
    this.configDir = dirname(o.path);
    this.history = new ConfigHistory(`${o.dataDir}/config-history`, o.clock);
    this.onApply = o.onApply;
  }

  get config(): RuntimeConfig {
    if (!this.current) throw new Error('configuration not loaded');
    return this.current;
  }

  get epoch(): HistoryEntry {
    const latest = this.history.latest();
    if (!latest) throw new Error('configuration history is empty');
    return latest;
  }

  /** Start: records the file as a `boot` epoch unless the last epoch already has these bytes. */
  async boot(text: string, config: NodeConfig): Promise<HistoryEntry> {
    // A save cut by a crash may have left its staged copy of the file beside it.
    await removeOrphanTempFiles(dirname(this.path));
    await this.history.open();
    const latest = this.history.latest();
    const entry = latest?.hash === configHash(text) ? latest : await this.history.append(text, 'system', 'boot');
    this.install(config);
    return entry;
  }

  currentText(): Promise<string> {
    return this.history.bytes(this.epoch.hash);
  }

  hasStream(name: string): boolean {
    return this.config.streams.some((s) => s.name === name);
  }

  /** `PATCH /api/v1/config/globals`: a sent `auth` replaces the whole block (what is not sent is removed). */
  setGlobals(actor: string, change: GlobalsChange): Promise<ApplyResult> {
    return this.edit(actor, (t) => {
      if (change.log_level !== undefined) t.setDirective('log_level', [change.log_level]);
      if (change.cluster_id !== undefined)
        t.setDirective('cluster_id', change.cluster_id === null ? null : [change.cluster_id]);
      if (change.trusted_proxies !== undefined) t.setDirective('trusted_proxies', change.trusted_proxies);
      if (change.auth !== undefined) {
        const a = change.auth;
        const lines: string[] = [];
        for (const key of AUTH_SECRETS) {
          const v = a[key];
          if (v !== undefined) lines.push(directive(key, [v]));
        }
        if (a.admin_ip_bind !== undefined) lines.push(directive('admin_ip_bind', [a.admin_ip_bind ? 'on' : 'off']));
        t.setBlock('auth', [], lines);
      }
    });
  }

  /** Adds or replaces the `stream <name> { }` block; `created` says whether the stream is new. */
  async setStream(actor: string, name: string, settings: StreamChange): Promise<ApplyResult & { created: boolean }> {
    const created = !this.hasStream(name);
    const lines = [directive('input', [settings.input])];
    if (settings.dvr) lines.push(directive('dvr', [settings.dvr.storage, settings.dvr.retention]));
    if (settings.on_demand) lines.push(directive('on_demand'));
    return { ...(await this.edit(actor, (t) => t.setBlock('stream', [name], lines))), created };
  }

  /** Removes the stream's block; 404 `stream_not_found` when there is none. */
  async deleteStream(actor: string, name: string): Promise<ApplyResult> {
    if (!this.hasStream(name)) throw errors.streamNotFound(name);
    return this.edit(actor, (t) => t.setBlock('stream', [name], null));
  }

  /** An API change: edit the applied text and apply the result as a new epoch. Directives are written only here. */
  private edit(actor: string, change: (text: ConfigText) => void): Promise<ApplyResult> {
    return this.serialise(async () => {
      const text = new ConfigText(await this.currentText());
      try {
        change(text);
      } catch (err) {
        if (err instanceof ConfigParseError) throw errors.invalidConfig([err.message]);
        throw err;
      }
      return this.applyNow(text.text, actor, 'api', true);
    });
  }

  /**
   * Applies an earlier version's bytes as a new epoch, except the write token: the one in use is
   * carried across (issue 25, item 6). The plane, and any other client of the API, holds only the
   * current token; a version from before a token change would lock it out (and bring back a token
   * that may have been changed because it leaked). `write_token_kept` says the bytes were changed so.
   */
  rollback(epoch: number, actor: string): Promise<ApplyResult & { rolled_from: number; write_token_kept: boolean }> {
    return this.serialise(async () => {
      const target = this.history.get(epoch);
      if (!target) throw errors.epochNotFound(epoch);
      const rolledFrom = this.epoch.epoch;
      const inUse = parseForApi(await this.currentText(), this.configDir).auth.api_write_token;
      const text = new ConfigText(await this.history.bytes(target.hash));
      const kept = inUse !== undefined && parseForApi(text.text, this.configDir).auth.api_write_token !== inUse;
      if (kept) text.setInBlock('auth', 'api_write_token', [inUse]);
      const result = await this.applyNow(text.text, actor, 'api', true);
      return { ...result, rolled_from: rolledFrom, write_token_kept: kept };
    });
  }

  /** SIGHUP: the operator edited the file by hand; an invalid file is refused and the old one stays applied. */
  reload(): Promise<ApplyResult> {
    return this.serialise(async () => this.applyNow(await readFile(this.path, 'utf8'), 'operator', 'reload', false));
  }

  private async applyNow(text: string, actor: string, via: string, writeFile: boolean): Promise<ApplyResult> {
    const next = parseForApi(text, this.configDir);
    if (configHash(text) === this.epoch.hash) return { entry: this.epoch, changed: false };
    const entry = await this.history.appendWith(
      text,
      actor,
      via,
      writeFile ? { path: this.path, mode: await this.fileMode() } : undefined,
    );
    this.install(next);
    return { entry, changed: true };
  }

  private install(next: NodeConfig): void {
    const prev = this.current;
    this.onApply(next, prev);
    this.current = { ...next, auth: presence(next.auth) };
  }

  private async fileMode(): Promise<number> {
    try {
      return (await stat(this.path)).mode & 0o777;
    } catch {
      return 0o600;
    }
  }

  private serialise<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job, job);
    this.queue = run.catch(() => undefined);
    return run;
  }
}
