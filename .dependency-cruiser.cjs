/**
 * Guard rails (issue 9) for the layout README.md describes. A domain folder is
 * `src/plane/<domain>/`, `src/plane/events/<sub>/` or `src/node/<area>/`; its `*.store.ts` files
 * hold its SQL, and another domain reaches that data only through the domain's service.
 */
const STORE = '[.]store[.]ts$';
const FOREIGN_STORE =
  'A store is imported only from its own domain folder (the composition roots src/plane/app.ts and src/node/app.ts, which construct the stores, lie outside every domain).';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-foreign-store',
      comment: FOREIGN_STORE,
      severity: 'error',
      from: { path: '^(src/plane/[^/]+)/', pathNot: '^src/plane/events/' },
      to: { path: STORE, pathNot: '^$1/' },
    },
    {
      name: 'no-foreign-store-events',
      comment: `${FOREIGN_STORE} Under src/plane/events/ each subfolder is a domain.`,
      severity: 'error',
      from: { path: '^(src/plane/events/[^/]+)/' },
      to: { path: STORE, pathNot: '^$1/' },
    },
    {
      name: 'no-foreign-store-events-top',
      comment: `${FOREIGN_STORE} A file directly in src/plane/events/ (until it moves into a subfolder) uses the stores beside it only.`,
      severity: 'error',
      // index.ts is the events' composition root (createEvents), like app.ts: it constructs the stores it hands out.
      from: { path: '^src/plane/events/[^/]+$', pathNot: '^src/plane/events/index[.]ts$' },
      to: { path: STORE, pathNot: '^src/plane/events/[^/]+$' },
    },
    {
      name: 'no-foreign-store-node',
      comment: FOREIGN_STORE,
      severity: 'error',
      from: { path: '^(src/node/[^/]+)/' },
      to: { path: STORE, pathNot: '^$1/' },
    },
    // no-folder-cycles lives in .dependency-cruiser.folders.cjs: it judges run-time imports only.
    {
      name: 'no-module-cycles',
      comment: 'No import cycle between two modules either (within a folder too).',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-unused-files',
      comment:
        'Every source file is reached from a program (src/plane/main.ts, src/node/main.ts, and npm start: src/start/main.ts, src/start/demo-module.ts); one only tests reach is dead code.',
      severity: 'error',
      from: { path: '^src/((plane|node|start)/main|start/demo-module)[.]ts$' },
      to: {
        path: '^src/',
        pathNot: ['[.]d[.]ts$', '^src/((plane|node|start)/main|start/demo-module)[.]ts$', '^src/.*[.](sql|json)$'],
        reachable: false,
      },
    },
    {
      name: 'no-orphans',
      comment: 'A file nothing imports and that imports nothing (tests, benches and scripts included).',
      severity: 'error',
      from: {
        orphan: true,
        pathNot: [
          '^src/start/demo-module[.]ts$',
          '[.]d[.]ts$',
          '(^|/)[.][^/]+[.](js|cjs|mjs|json)$',
          '[.]test[.]ts$',
          '^bench/.*[.]ts$',
          '^scripts/',
          '^test/global-setup[.]ts$',
          '(^|/)(eslint|vitest|vite)[.]config[.](js|ts)$',
          // The console's service worker: a program of its own, which the build copies (web/vite.config.ts).
          '^web/sw[.]js$',
        ],
      },
      to: {},
    },
    {
      name: 'console-public-api-only',
      comment:
        'The console (web/) is a separate program that speaks only the public API: it imports nothing of the plane, the node or the tests; only pure rules shared on purpose in src/common/ (the calendar).',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|test|bench)/', pathNot: '^src/common/' },
    },
    {
      name: 'console-pages-through-hooks',
      comment:
        "The console's pages compose hooks and components (issue 21 §4): they never import the API client; web/src/api/<resource>.ts are its only users, and pages reach them through web/src/hooks/.",
      severity: 'error',
      from: { path: '^web/src/pages/' },
      to: { path: '^web/src/api/client[.]ts$' },
    },
    {
      name: 'no-src-to-console',
      comment: "The programs never import the console's sources; the plane serves its build.",
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^web/' },
    },
    {
      name: 'no-src-to-tests',
      comment: 'The programs never import tests or benches.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|data|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
