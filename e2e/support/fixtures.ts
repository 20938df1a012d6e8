import { expect, test as base } from '@playwright/test'
import { ZoneBrowsers } from './browser.ts'
import { startServer, type ServerOptions, type TestServer } from './server.ts'

/** The servers a test started; each is disposed after the test, its stderr attached when it failed. */
export class Servers {
  readonly started: TestServer[] = []

  /** Starts a real server (port 0, temp data dir) owned by this test. */
  async start(options: ServerOptions = {}): Promise<TestServer> {
    return this.track(await startServer(options))
  }

  /** Takes ownership of a server started another way (e.g. by `restart()`). */
  track(server: TestServer): TestServer {
    this.started.push(server)
    return server
  }
}

/**
 * Playwright's `test` with `zones` (one browser context per time zone; every page must load under
 * the server's exact CSP and report no violation) and `servers`.
 */
export const test = base.extend<{ zones: ZoneBrowsers; servers: Servers }>({
  zones: async ({ browser }, use) => {
    const zones = new ZoneBrowsers(browser)
    await use(zones)
    await zones.closeAll()
    expect(zones.csp.violations, 'CSP violations reported in the browser').toEqual([])
    expect(zones.csp.unprotected, 'documents served without the CSP').toEqual([])
  },
  servers: async ({}, use, testInfo) => {
    const servers = new Servers()
    await use(servers)
    for (const server of servers.started) {
      if (testInfo.status !== testInfo.expectedStatus) await testInfo.attach('server-stderr', { body: server.stderr() })
      await server.dispose()
    }
  },
})

export { expect }
