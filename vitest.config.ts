import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One migrated template database per run; each test database is copied from it.
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files share one PostgreSQL server, each in its own schema-free fresh database.
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
    // A worker keeps its loaded modules from one file to the next: importing the plane and the
    // node afresh for each file cost more CPU than most files' tests. No test mocks modules or
    // changes process.env, and each file builds its own plane, node and database.
    isolate: false,
  },
});
