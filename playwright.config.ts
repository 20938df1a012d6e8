import { defineConfig } from '@playwright/test'

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const asRoot = typeof process.getuid === 'function' && process.getuid() === 0

/** Browser tests: real server per test file (see e2e/support/server.ts), Debian Chromium by path. */
export default defineConfig({
  testDir: './e2e',
  globalSetup: './e2e/support/global-setup.ts',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  fullyParallel: false,
  workers: 2,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results/e2e',
  use: {
    browserName: 'chromium',
    headless: true,
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath,
      args: [
        ...(asRoot ? ['--no-sandbox'] : []),
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
})
