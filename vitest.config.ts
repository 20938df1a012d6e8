import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker fewer than the CPUs, one at a time on 2 cores; most long files wait on real
    // servers, PostgreSQL and child processes, so two at once take about a third less time
    maxWorkers: 2,
    globalSetup: ['test/support/postgres-global-setup.ts'],
  },
})
