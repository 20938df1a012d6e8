import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    environment: 'node',
    testTimeout: 20_000,
    pool: 'forks',
    globalSetup: ['test/support/postgres-global-setup.ts'],
  },
})
