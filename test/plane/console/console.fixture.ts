import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A console folder as `npm run build` lays it out, without building: index.html and one hashed asset. */
export function consoleFixture(): { root: string; asset: string } {
  const root = mkdtempSync(join(tmpdir(), 'argus-console-'));
  mkdirSync(join(root, 'assets'));
  mkdirSync(join(root, 'assets', 'sub'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><div id="root"></div>');
  writeFileSync(join(root, 'assets', 'index-AbC_12-x.js'), 'console.log(1)');
  writeFileSync(join(root, 'assets', '.hidden'), 'secret');
  writeFileSync(join(root, 'secret.txt'), 'outside the assets');
  return { root, asset: 'index-AbC_12-x.js' };
}
