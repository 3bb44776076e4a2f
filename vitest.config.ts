import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The console's component tests (test/web/*.test.tsx) use React's automatic JSX runtime, as web/ does.
  esbuild: { jsx: 'automatic' },
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    // One migrated template database per run; each test database is copied from it.
    globalSetup: ['test/global-setup.ts'],
    // Bounds for a hung test, not for speed (benches measure that): on a 2-core machine shared
    // with other runs a plane's start, a child process or an embedded database's load takes
    // several times what it takes on a quiet one, and a set-up starts several of them (a test that
    // starts its own plane on the embedded database took over 120 s beside other work).
    testTimeout: 240_000,
    hookTimeout: 300_000,
    // Files share one PostgreSQL server, each in its own fresh database. Four workers on two cores:
    // most files wait (child processes, PostgreSQL, sockets) more than they compute; measured on the
    // quiet 2-core machine, 199 s with 2 workers, 147 s with 4 (CPU 0.86 of 2 cores with 2).
    pool: 'forks',
    maxWorkers: 4,
    fileParallelism: true,
    // A worker keeps its loaded modules from one file to the next: importing the plane and the
    // node afresh for each file cost more CPU than most files' tests. No test mocks modules or
    // changes process.env, and each file builds its own plane, node and database.
    isolate: false,
  },
});
