/**
 * Guard rails (issue 9): folder cycles over run-time imports. Apart from .dependency-cruiser.cjs
 * because dependency-cruiser (17.4) offers neither `dependencyTypesNot` nor known violations for
 * folder-scope rules, so the only way to leave out `import type` edges is to cruise without them
 * (`tsPreCompilationDeps: false`). Type-only imports create no run-time dependency; the folder
 * cycles they still make are listed in docs/architecture.md under "Known debt".
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- a CommonJS config (dependency-cruiser's .cjs) shares the main one's options
const base = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'Folders depend on each other in one direction only (run-time imports).',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: { ...base.options, tsPreCompilationDeps: false },
};
