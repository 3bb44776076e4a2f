import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, BrowserContext } from 'playwright-core';
import { launchChromium, shot, startFleet, unexpected, watchedPage, type Fleet, callApi } from './browser.js';

// Dashboards in the console (issue 15, in part), in Debian's Chromium against `npm start`'s
// fleet: every kind of widget drawn, a chart point opening the feed of what it counts, a
// revision conflict shown as a choice, live refresh.

let fleet: Fleet, browser: Browser, context: BrowserContext, token: string, board: { id: string; revision: number };

const call = (method: string, path: string, body?: unknown) => callApi<any>(fleet.base, token, method, path, body);

const send = (detector: string) => fleet.sendEvent(detector);

// The suite's hook bound (300 s): startFleet's ready line alone may take its 180 s on a loaded machine.
beforeAll(async () => {
  fleet = await startFleet();
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  token = await fleet.session();
  for (const d of ['dash.door', 'dash.door', 'dash.door', 'dash.gate']) await send(d);
  board = await call('POST', '/api/v1/analytics-dashboards', {
    name: 'Entrances',
    timezone: 'UTC',
    default_period: 'last_24h',
    live_enabled: true,
    visibility: 'org',
  });
  const def = (o: Record<string, unknown>) => ({ measure: 'count_events', period: 'last_24h', ...o });
  const widgets = [
    { title: 'Events', visualization: 'kpi', inline_definition: def({}) },
    { title: 'Per hour', visualization: 'line', inline_definition: def({ bucket: 'hour', group_by: 'detector' }) },
    { title: 'By detector', visualization: 'bar', inline_definition: def({ group_by: 'detector' }) },
    { title: 'By category', visualization: 'donut', inline_definition: def({ group_by: 'category' }) },
    { title: 'Table', visualization: 'table', inline_definition: def({ group_by: 'detector' }) },
  ];
  for (const [i, w] of widgets.entries())
    await call('POST', `/api/v1/analytics-dashboards/${board.id}/widgets`, { ...w, position: i });
});

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

describe('dashboards', () => {
  it('lists by visibility; draws every widget; a bar opens the feed of what it counts', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/dashboards');
    await page.click('text=Entrances');
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}$/);
    await page.waitForSelector('[data-widget=kpi] .kpi');
    await page.waitForSelector('[data-widget=line] canvas');
    await page.waitForSelector('[data-widget=donut] path');
    await page.waitForSelector('[data-widget=table] tr');
    expect(Number((await page.textContent('[data-widget=kpi] .kpi'))!.replace(/\D/g, ''))).toBeGreaterThanOrEqual(4);
    await shot(page, 'dashboard');
    await page.locator('[data-widget=bar] .bar-row', { hasText: 'dash.door' }).click();
    await page.waitForURL(/\/feed\?from=.*&to=.*&detector=dash\.door$/);
    await page.waitForSelector('.row[data-event]');
    expect([...new Set(await page.locator('.row .what').allTextContents())]).toEqual(['dash.door']);
    expect(await page.locator('.row[data-event]').count()).toBe(3);
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it('a live dashboard counts a new event without reload', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, `/dashboards/${board.id}`);
    await page.waitForSelector('[data-widget=kpi] .kpi');
    const before = Number((await page.textContent('[data-widget=kpi] .kpi'))!.replace(/\D/g, ''));
    await send('dash.gate');
    await expect
      .poll(async () => Number((await page.textContent('[data-widget=kpi] .kpi'))!.replace(/\D/g, '')), {
        timeout: 12_000,
      })
      .toBeGreaterThan(before);
    expect(errors).toEqual([]);
    await page.close();
  }, 30_000);

  it('a revision conflict is a choice between theirs and mine, not a lost edit; widgets resize', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, `/dashboards/${board.id}`);
    await page.click('button:text("Edit")');
    await page.fill('input[name=dash-name]', 'Entrances (mine)');
    // Another administrator saves first.
    const current = await call('GET', `/api/v1/analytics-dashboards/${board.id}`);
    await call('PATCH', `/api/v1/analytics-dashboards/${board.id}`, {
      revision: current.revision,
      name: 'Entrances (theirs)',
    });
    await page.click('form.inline button:text("Save")');
    await page.waitForSelector('[role=dialog][aria-label=conflict]');
    expect(await page.textContent('[data-testid=theirs]')).toBe('Entrances (theirs)');
    expect(await page.textContent('[data-testid=mine]')).toBe('Entrances (mine)');
    await shot(page, 'dashboard-conflict');
    await page.click('button:text("Keep mine")');
    await expect.poll(() => page.textContent('.dash-head h2')).toBe('Entrances (mine)');
    expect((await call('GET', `/api/v1/analytics-dashboards/${board.id}`)).name).toBe('Entrances (mine)');
    await page.click('button:text("Edit")');
    await page.locator('[data-widget=kpi] button[aria-label=wider]').click();
    await expect.poll(() => page.getAttribute('[data-widget=kpi]', 'style')).toContain('span 2');
    expect(unexpected(errors, [{ status: 409, path: `/api/v1/analytics-dashboards/${board.id}` }])).toEqual([]);
    await page.close();
  }, 60_000);

  it('a report built over the catalog: preview, CSV, saved, added to a dashboard as a widget', async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/reports');
    await page.selectOption('select[name=group_by]', 'detector');
    await page.click('button:text("Preview")');
    await page.waitForSelector('[data-testid=preview] .bar-row');
    expect(await page.textContent('[data-testid=preview]')).toContain('dash.door');
    const [csv] = await Promise.all([page.waitForEvent('download'), page.click('form button:text("CSV")')]);
    expect(csv.suggestedFilename()).toBe('preview.csv');
    await page.fill('input[name=report-name]', 'Doors');
    await page.click('button:text("Save report")');
    await expect.poll(() => page.textContent('[role=alert]')).toBe('Saved "Doors".');
    await page.waitForSelector('tr[data-report="Doors"]');
    await page.locator('tr[data-report="Doors"] select').selectOption({ index: 1 });
    await expect.poll(() => page.textContent('[role=alert]')).toBe('Added "Doors" to the dashboard.');
    await fleet.open(page, `/dashboards/${board.id}`);
    await page.waitForSelector('.widget h4:text("Doors")');
    await page.waitForSelector('.widget:has(h4:text("Doors")) .bar-row');
    await shot(page, 'reports-added');
    expect(errors).toEqual([]);
    await page.close();
  }, 60_000);

  it("an administrator creates a dashboard for chosen people and edits a widget's definition in place", async () => {
    const { page, errors } = await watchedPage(context);
    await fleet.open(page, '/dashboards');
    await page.fill('input[name=new-dashboard]', 'Night shift');
    await page.selectOption('select[name=visibility]', 'admins');
    await page.click('form.inline button:text("Create")');
    await page.waitForURL(/\/dashboards\/[0-9a-f-]{36}$/);
    await expect.poll(() => page.textContent('.dash-head h2')).toBe('Night shift');
    // Back on the first board: the kpi's definition narrowed to one detector, in place.
    await fleet.open(page, `/dashboards/${board.id}`);
    await page.click('button:text("Edit")');
    const kpi = page.locator('[data-widget=kpi]');
    const before = Number((await kpi.locator('.kpi').textContent())!.replace(/\D/g, ''));
    await kpi
      .locator('textarea[aria-label=definition]')
      .fill(JSON.stringify({ measure: 'count_events', period: 'last_24h', filters: { detectors: ['dash.gate'] } }));
    await kpi.locator('button:text("Apply")').click();
    await expect
      .poll(async () => Number((await page.locator('[data-widget=kpi] .kpi').textContent())!.replace(/\D/g, '')))
      .toBeLessThan(before);
    // Another administrator renames the widget while this one types: both shown, mine kept.
    await page.locator('[data-widget=kpi] input[aria-label="widget title"]').fill('Gate events (mine)');
    const current = (await call('GET', `/api/v1/analytics-dashboards/${board.id}`)).widgets.find(
      (w: { visualization: string }) => w.visualization === 'kpi',
    );
    await call('PATCH', `/api/v1/analytics-widgets/${current.id}`, {
      revision: current.revision,
      title: 'Gate events (theirs)',
    });
    await page.locator('[data-widget=kpi] button:text("Apply")').click();
    await page.waitForSelector('[role=dialog][aria-label="widget conflict"]');
    expect(await page.textContent('[data-testid=widget-theirs]')).toBe('Gate events (theirs)');
    expect(await page.textContent('[data-testid=widget-mine]')).toBe('Gate events (mine)');
    await page.click('[role=dialog][aria-label="widget conflict"] button:text("Keep mine")');
    await expect.poll(() => page.textContent('[data-widget=kpi] h4')).toBe('Gate events (mine)');
    expect(unexpected(errors, [{ status: 409, path: '/api/v1/analytics-widgets/' }])).toEqual([]);
    await page.close();
  }, 60_000);
});
