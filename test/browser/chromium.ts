import { existsSync } from 'node:fs';

/**
 * The browser the console's tests drive (playwright-core downloads none): CHROMIUM_PATH when set,
 * else Debian's Chromium (.ci/run installs it), else the Chromium that the npm package
 * @sparticuz/chromium ships (unpacked into the temporary folder on first use; it plays H.264
 * through MSE), so `npm ci && npm test` passes on a machine with Node alone.
 *
 * Kept apart from browser.ts (no playwright-core) because test/global-setup.ts calls it once before
 * any test file starts: @sparticuz/chromium takes an existing `<tmp>/chromium` as unpacked, and
 * browser files starting together were handed the file another one was still writing (seen empty,
 * issue 25's fresh machine); unpacking took 54 s on the loaded machine.
 */
export async function chromiumPath(env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (env.CHROMIUM_PATH) return env.CHROMIUM_PATH;
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  const shipped = (await import('@sparticuz/chromium')).default;
  return shipped.executablePath();
}
