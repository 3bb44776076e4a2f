import { createRequire } from 'node:module';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { launch, portPair, until, type Launcher } from '../start/launcher.js';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Result as AxeResult } from 'axe-core';
import { chromiumPath } from './chromium.js';

export const SHOTS = resolve('test-results/console');

export async function launchChromium(): Promise<Browser> {
  const executablePath = await chromiumPath();
  await mkdir(SHOTS, { recursive: true });
  return chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--autoplay-policy=no-user-gesture-required', '--disable-gpu', '--mute-audio'],
  });
}

/**
 * A page that records every console error and uncaught exception: `errors` must stay empty
 * (Frigate's discipline: a console error is a failed test, not noise).
 */
export async function watchedPage(context: BrowserContext): Promise<{ page: Page; errors: string[] }> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(`console: ${m.text()} (${m.location().url})`);
  });
  page.on('pageerror', (e) => errors.push(`page: ${e.message}`));
  return { page, errors };
}

/**
 * The console errors a test provokes on purpose: Chromium logs a refused fetch as "Failed to load
 * resource: ... status of <status>" at the URL; only those exact ones are taken out.
 */
export function unexpected(errors: string[], expected: Array<{ status: number; path: string }>): string[] {
  return errors.filter((e) => !expected.some((x) => e.includes(`status of ${x.status}`) && e.includes(x.path)));
}

export const shot = (page: Page, name: string) =>
  page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });

/** What `npm start` runs (plane, node, demo camera and module) in a data folder of its own, for the browser tests. */
export interface Fleet {
  base: string;
  creds: { login: string; password: string };
  moduleSecret: string;
  running: Launcher;
  /**
   * `path` opened signed in (as the superadmin unless `as` says): the login form filled in when it
   * shows (the session lives in localStorage, shared by a context's pages).
   */
  open(page: Page, path: string, as?: { login: string; password: string }): Promise<void>;
  /** A bearer session of the superadmin for API calls of the test itself. */
  session(): Promise<string>;
  /** One event sent with the demo module's token (severity warning unless `extra` says), its id; a refusal throws. */
  sendEvent(detector: string, extra?: Record<string, unknown>): Promise<string>;
  stop(): Promise<void>;
}

/** One call of the plane's API as the bearer `token`; a refusal throws with its status and body, an empty body is null. */
export async function callApi<T>(
  base: string,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<T> {
  const r = await fetch(`${base}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}

export async function startFleet(): Promise<Fleet> {
  const dataDir = await mkdtemp(join(tmpdir(), 'argus-console-'));
  const port = await portPair();
  const base = `http://127.0.0.1:${port}`;
  const running = launch(dataDir, port);
  await until('ready line', () => running.out.find((l) => l.startsWith('argus: ready.')), running);
  const creds = JSON.parse(await readFile(join(dataDir, 'bootstrap-login.json'), 'utf8')) as {
    login: string;
    password: string;
  };
  const moduleSecret = JSON.parse(await readFile(join(dataDir, 'local-fleet.json'), 'utf8')).moduleToken
    .secret as string;
  return {
    base,
    creds,
    moduleSecret,
    running,
    async open(page, path, as = creds) {
      await page.goto(`${base}${path}`);
      await page.waitForSelector('header.top, input[name=login]');
      if (await page.locator('input[name=login]').count()) {
        await page.fill('input[name=login]', as.login);
        await page.fill('input[name=password]', as.password);
        await page.click('button[type=submit]');
        await page.waitForSelector('header.top');
      }
    },
    async session() {
      const r = await fetch(`${base}/api/v1/auth/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(creds),
      });
      return ((await r.json()) as { token: string }).token;
    },
    async sendEvent(detector, extra = {}) {
      const r = await fetch(`${base}/api/v1/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${moduleSecret}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: [{ detector, occurred_at: new Date().toISOString(), severity: 2, ...extra }] }),
      });
      const body = (await r.json()) as { results: Array<{ id?: string; error?: string }> };
      if (!body.results[0]?.id) throw new Error(`event refused: ${JSON.stringify(body)}`);
      return body.results[0].id;
    },
    async stop() {
      if (running.proc.exitCode === null) {
        running.proc.kill('SIGINT');
        await running.exited;
      }
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** A rule axe-core found broken on a page, with the elements that break it. */
export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  nodes: Array<{ target: string; html: string; summary: string }>;
}

let axeSource: Promise<string> | undefined;

/**
 * What axe-core (the npm package's axe.min.js) finds on the page as it is now, at the given
 * impacts (issue 22: no serious or critical one). The source is evaluated in the page rather than
 * added as an inline <script>: the console's content policy (script-src 'self') refuses inline
 * scripts, and a context that bypassed the policy would hide what the policy itself breaks.
 */
export async function axeFindings(
  page: Page,
  impacts: readonly string[] = ['serious', 'critical'],
): Promise<AxeFinding[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(await axeSource);
  // Runs in the page (no DOM types here): window.axe over the whole document.
  const violations = await page.evaluate(async () => {
    const g = globalThis as any;
    return (await g.axe.run(g.document, { resultTypes: ['violations'] })).violations as AxeResult[];
  });
  return violations
    .filter((v) => impacts.includes(v.impact ?? ''))
    .map((v) => ({
      id: v.id,
      impact: v.impact!,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), html: n.html, summary: n.failureSummary ?? '' })),
    }));
}

/** Findings as lines a person reads: the rule, its impact and help, then each element and why. */
export function describeFindings(where: string, findings: AxeFinding[]): string {
  return findings
    .map(
      (f) =>
        `${where}: ${f.id} (${f.impact}) ${f.help}\n` +
        f.nodes
          .map((n) => `    ${n.target}\n      ${n.html}\n      ${n.summary.replace(/\n/g, '\n      ')}`)
          .join('\n'),
    )
    .join('\n');
}
