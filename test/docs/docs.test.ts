import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

// Issue 21 §5: the docs go stale silently. A path or document named in README.md, docs/ or a source
// comment must exist, and every folder of src/plane/ must be on the map (docs/architecture.md).

const ROOT = join(import.meta.dirname, '..', '..');
const read = (rel: string) => readFileSync(join(ROOT, rel), 'utf8');
const docs = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) yield* sources(rel);
    else if (/\.(ts|tsx|mjs)$/.test(e.name)) yield rel;
  }
}

/** Repository paths named in `text`: `src/...`, `test/...`, `web/...`, `bench/...`, `scripts/...`, `docs/...`. */
function pathsIn(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(/(?<![\w/.-])((?:src|test|web|bench|scripts|docs)\/[\w./-]+)/g)) {
    const p = m[1]!.replace(/[.,:;)]+$/, '');
    // A pattern names a set of files (migrations/NNNN_*.sql), not one.
    if (/NNNN|\*/.test(p) || /[*{}]/.test(text.slice(m.index!, m.index! + m[0].length + 1))) continue;
    out.push(p);
  }
  return out;
}

describe('the docs name what exists', () => {
  it('every path named in README.md and docs/ exists', () => {
    const missing = docs.flatMap((d) =>
      pathsIn(read(d))
        .filter((p) => !existsSync(join(ROOT, p)))
        .map((p) => `${d}: ${p}`),
    );
    expect(missing).toEqual([]);
  });

  it('every document a source comment points to exists', () => {
    const missing: string[] = [];
    for (const dir of ['src', 'web/src', 'scripts', 'bench']) {
      for (const f of sources(dir)) {
        for (const m of read(f).matchAll(/(?<![\w/.-])(docs\/[\w.-]+\.md)/g))
          if (!existsSync(join(ROOT, m[1]!))) missing.push(`${f}: ${m[1]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('every folder of src/plane/ is on the map', () => {
    const map = read('docs/architecture.md');
    const folders = readdirSync(join(ROOT, 'src/plane'), { withFileTypes: true })
      .filter((e) => e.isDirectory())
      .map((e) => e.name);
    expect(folders.filter((f) => !map.includes(`\`${f}/\``))).toEqual([]);
  });
});
