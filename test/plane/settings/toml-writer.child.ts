// A child process for plane-toml.kill.process.test.ts: edits plane.toml in place in a loop with
// the settings' own editor and writer (each round a new dvr_export_max_secs), until it is killed.
import { readFile } from 'node:fs/promises';
import { applyEdits, writePlaneToml } from '../../../src/plane/settings/plane-toml.js';

const file = process.argv[2]!;
for (let i = 0; ; i++) {
  const text = await readFile(file, 'utf8');
  await writePlaneToml(
    file,
    applyEdits(text, [
      [['dvr_export_max_secs'], 60 + (i % 80000)],
      [['logging', 'minimum_level'], ['debug', 'info', 'warn', 'error'][i % 4]],
    ]),
  );
  if (i === 0) process.stdout.write('writing\n');
}
