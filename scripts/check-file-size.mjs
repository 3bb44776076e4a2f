// Guard rail (issue 9): no source file passes 400 lines, so each stays readable in one sitting.
// Lists every file over the limit and exits 1 when there is one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const MAX_LINES = 400;
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const FOLDERS = ['src', 'test', 'bench', 'scripts', 'web'];
const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs|sh)$/;
const SKIP = new Set(['node_modules', 'dist', 'data']);
// Generated files (web/src/api/openapi.gen.ts) are read by the compiler, not by people.
const GENERATED = /\.gen\.ts$/;

function* files(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  for (const e of entries) {
    if (SKIP.has(e.name)) continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* files(path);
    else if (SOURCE.test(e.name) && !GENERATED.test(e.name)) yield path;
  }
}

const over = [];
for (const folder of FOLDERS) {
  for (const path of files(join(ROOT, folder))) {
    const text = readFileSync(path, 'utf8');
    const lines = text.length === 0 ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) over.push({ path: relative(ROOT, path), lines });
  }
}
over.sort((a, b) => b.lines - a.lines);
for (const f of over) console.log(`${f.path}: ${f.lines} lines (limit ${MAX_LINES})`);
if (over.length) {
  console.log(`${over.length} file(s) over ${MAX_LINES} lines`);
  process.exit(1);
}
console.log(`file size: every source file has at most ${MAX_LINES} lines`);
