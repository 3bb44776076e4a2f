import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: files share one PostgreSQL server, each in its own schema-free fresh database.
    pool: 'forks',
    maxWorkers: 2,
    fileParallelism: true,
  },
});
