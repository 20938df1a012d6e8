import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { BrowserContext, Page, Request } from '@playwright/test'
import { diffSnapshots, snapshotDir } from '../test/fault/support.ts'
import { CspWatch } from './support/csp.ts'
import { expectAccessible } from './support/axe.ts'
import { createSessionFromUi, sendMessage } from './support/browser.ts'
import { expect, test } from './support/fixtures.ts'

/**
 * SPEC 12.3 against real Chromium: a page served by another server on another loopback port tries
 * every way a page can write without the user (fetch in cors and no-cors mode with every content
 * type, sendBeacon, form posts of every enctype) and frames the overlay. Nothing is written, nothing
 * renders framed; the same writes from a curl-style client still work.
 */

type Attacker = { origin: string; close(): Promise<void> }

/** Serves the HTML pages of `pages` (path → HTML) on 127.0.0.1:<free port>, with no security headers of its own. */
async function attackerServer(pages: (origin: string) => Record<string, string>): Promise<Attacker> {
  let served: Record<string, string> = {}
  const server: Server = createServer((request, response) => {
    const page = served[new URL(request.url ?? '/', 'http://x').pathname]
    response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' })
    response.end(page ?? 'no such page')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  served = pages(origin)
  return { origin, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

const CONTENT_TYPES = [null, 'text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json', 'application/csp-report']

type Write = { method: string; path: string; body?: string }

const WRITES: Write[] = [
  { method: 'POST', path: '/api/sessions', body: '{"timeZone":"UTC","sessionId":"csrf"}' },
  { method: 'POST', path: '/api/sessions/victim/messages', body: '{"text":"pwned","clientTimeZone":"UTC"}' },
  { method: 'POST', path: '/api/sessions/victim/cancel' },
  { method: 'DELETE', path: '/api/sessions/victim/schedules/schedule-1' },
]

/** The attack page's script: every write through fetch (both modes, every type) and sendBeacon; results in `window.results`. */
function fetchAttack(targets: string[]): string {
  return `<!doctype html><title>fetch attack</title><script>
const targets = ${JSON.stringify(targets)}
const writes = ${JSON.stringify(WRITES)}
const types = ${JSON.stringify(CONTENT_TYPES)}
const attempts = []
for (const base of targets) for (const write of writes) for (const mode of ['cors', 'no-cors']) for (const type of types) {
  const init = { method: write.method, mode, credentials: 'include', headers: type === null ? {} : { 'content-type': type } }
  if (write.body !== undefined) init.body = type === null ? new Blob([write.body]) : write.body
  const label = [write.method, base + write.path, mode, String(type)].join(' ')
  attempts.push(fetch(base + write.path, init).then((r) => label + ' -> ' + r.type + ' ' + r.status, (e) => label + ' -> ' + e.name))
}
const beacons = []
for (const base of targets) for (const write of writes.filter((w) => w.method === 'POST')) for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
  beacons.push(navigator.sendBeacon(base + write.path, new Blob([write.body ?? ''], { type })))
}
Promise.all(attempts).then((results) => { window.results = { results, beacons } })
</script>`
}

/** A page that posts one form to `action` as soon as it loads; text/plain bodies are shaped into JSON (`name=value` → `{"text":"pwned=","clientTimeZone":"UTC"}`). */
function formAttack(action: string, enctype: string): string {
  const fields =
    enctype === 'text/plain'
      ? `<input name='{"text":"pwned' value='","clientTimeZone":"UTC"}'>`
      : `<input name="text" value="pwned"><input name="clientTimeZone" value="UTC"><input name="timeZone" value="UTC">`
  return `<!doctype html><title>form attack</title><form method="post" action="${action}" enctype="${enctype}">${fields}</form><script>document.forms[0].submit()</script>`
}

function frameAttack(src: string): string {
  return `<!doctype html><title>frame attack</title><iframe id="victim" src="${src}" width="800" height="600"></iframe>`
}

const ENCTYPES = ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']
const FORM_PATHS = ['/api/sessions', '/api/sessions/victim/messages', '/api/sessions/victim/cancel']

/** How a request the browser sent ended: the server's status, or the browser's failure (a CORS refusal, a method no-cors forbids). */
type Ending = { status: number } | { failure: string } | null

/** Every request the context sent to one of `bases`, and how it ended (null while in flight). */
function recordRequests(context: BrowserContext, bases: string[]): Map<Request, Ending> {
  const seen = new Map<Request, Ending>()
  context.on('request', (request) => {
    if (bases.some((base) => request.url().startsWith(base))) seen.set(request, null)
  })
  context.on('requestfinished', async (request) => {
    if (seen.has(request)) seen.set(request, { status: (await request.response())?.status() ?? 0 })
  })
  context.on('requestfailed', async (request) => {
    if (!seen.has(request)) return
    const response = await request.response().catch(() => null)
    seen.set(request, response === null ? { failure: request.failure()?.errorText ?? 'unknown' } : { status: response.status() })
  })
  return seen
}

async function apiJson(url: string, init: RequestInit = {}): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, init)
  return { status: response.status, body: await response.json() }
}

test('a page on another loopback port cannot write by fetch, beacon or form, and cannot frame the overlay; curl-style clients still can', async ({ browser, servers }) => {
  const server = await servers.start()
  const json = { 'content-type': 'application/json' }
  expect((await apiJson(`${server.url}/api/sessions`, { method: 'POST', headers: json, body: '{"timeZone":"UTC","sessionId":"victim"}' })).status).toBe(201)
  const port = new URL(server.url).port
  const targets = [server.url, `http://localhost:${port}`]
  const attacker = await attackerServer(() => {
    const pages: Record<string, string> = { '/fetch.html': fetchAttack(targets), '/frame.html': frameAttack(`${server.url}/`), '/frame-session.html': frameAttack(`${server.url}/s/victim`) }
    for (const base of targets) for (const path of FORM_PATHS) for (const enctype of ENCTYPES) pages[`/form/${encodeURIComponent(base + path)}/${encodeURIComponent(enctype)}`] = formAttack(base + path, enctype)
    return pages
  })
  const context = await browser.newContext()
  const watch = new CspWatch()
  await watch.attach(context)
  const requests = recordRequests(context, targets)
  const before = await snapshotDir(server.dataDir)
  const sessionsBefore = await apiJson(`${server.url}/api/sessions`)
  try {
    const page = await context.newPage()

    // fetch and sendBeacon: cors answers are never shared, no-cors answers are opaque
    await page.goto(`${attacker.origin}/fetch.html`)
    const outcome = (await (await page.waitForFunction(() => (window as unknown as { results?: unknown }).results)).jsonValue()) as { results: string[]; beacons: boolean[] }
    expect(outcome.results.length).toBe(targets.length * WRITES.length * 2 * CONTENT_TYPES.length)
    for (const result of outcome.results) {
      const [, mode] = / (cors|no-cors) /.exec(result) ?? []
      expect(result).toMatch(mode === 'cors' ? / -> TypeError$/ : / -> (opaque 0|TypeError)$/)
    }
    // the beacons have ended (answered or refused) before the page goes elsewhere, which would abort one still queued
    await expect.poll(() => [...requests.values()].filter((ending) => ending === null).length).toBe(0)

    // form posts, every enctype, each a top-level navigation to the server
    const statuses: string[] = []
    for (const base of targets) {
      for (const path of FORM_PATHS) {
        for (const enctype of ENCTYPES) {
          const answered = page.waitForResponse((response) => response.url() === base + path && response.request().method() === 'POST')
          await page.goto(`${attacker.origin}/form/${encodeURIComponent(base + path)}/${encodeURIComponent(enctype)}`)
          const response = await answered
          statuses.push(`${enctype} ${base + path} ${response.status()} ${(await response.json() as { error: { code: string } }).error.code}`)
        }
      }
    }
    expect(statuses).toEqual(targets.flatMap((base) => FORM_PATHS.flatMap((path) => ENCTYPES.map((enctype) => `${enctype} ${base + path} 403 forbidden`))))

    // framing: Chromium refuses to render the overlay inside another page
    for (const framePage of ['/frame.html', '/frame-session.html']) {
      const refused = page.waitForEvent('console', (message) => /frame-ancestors 'none'/.test(message.text()))
      await page.goto(`${attacker.origin}${framePage}`)
      await refused
      const frame = page.frames().find((f) => f !== page.mainFrame())
      expect(frame).toBeDefined()
      await expect(frame?.locator('[data-testid="new-session"]') ?? page.locator('nothing')).toHaveCount(0)
      expect(await frame?.evaluate(() => document.querySelector('#root'))).toBeFalsy()
    }

    // every request that reached the server was refused, and no overlay script was ever loaded framed
    await expect.poll(() => [...requests.values()].filter((ending) => ending === null).length).toBe(0)
    const answered = [...requests.entries()].map(([request, ending]) => ({ url: new URL(request.url()).pathname, method: request.method(), type: request.resourceType(), ending }))
    const writesSeen = answered.filter((a) => a.url.startsWith('/api/'))
    // no-cors fetch cannot send DELETE at all: the browser throws before any request
    const fetches = WRITES.reduce((n, w) => n + (w.method === 'POST' ? 2 : 1) * CONTENT_TYPES.length, 0)
    const beacons = WRITES.filter((w) => w.method === 'POST').length * 2
    expect(writesSeen.length).toBe(targets.length * (fetches + beacons + FORM_PATHS.length * ENCTYPES.length))
    // a request ends refused by the server (403), refused by the browser for lack of CORS, or with its
    // answer withheld by Cross-Origin-Resource-Policy; never with a success
    const REFUSED = new Set(['403', 'net::ERR_FAILED', 'net::ERR_BLOCKED_BY_RESPONSE.NotSameOrigin'])
    expect(writesSeen.filter((a) => !REFUSED.has(a.ending === null ? 'null' : 'status' in a.ending ? String(a.ending.status) : a.ending.failure))).toEqual([])
    expect(answered.filter((a) => a.url.startsWith('/assets/'))).toEqual([])
    expect(watch.violations.filter((v) => !/frame-ancestors/.test(v))).toEqual([])
  } finally {
    await context.close()
    await attacker.close()
  }

  // nothing was written: the data dir is byte-for-byte what it was, and the API agrees
  expect(diffSnapshots(before, await snapshotDir(server.dataDir))).toBeNull()
  expect(await apiJson(`${server.url}/api/sessions`)).toEqual(sessionsBefore)

  // the same writes without Origin, as curl sends them, work
  expect((await apiJson(`${server.url}/api/sessions/victim/messages`, { method: 'POST', headers: json, body: '{"text":"pwned=","clientTimeZone":"UTC"}' })).status).toBe(202)
  expect((await apiJson(`${server.url}/api/sessions`, { method: 'POST', headers: json, body: '{"timeZone":"UTC","sessionId":"csrf"}' })).status).toBe(201)
})

test('the CSP blocks inline scripts and inline style attributes in the overlay, and the watch reports them', async ({ browser, servers }) => {
  const server = await servers.start()
  const context = await browser.newContext()
  const watch = new CspWatch()
  await watch.attach(context)
  try {
    const page: Page = await context.newPage()
    await page.goto(server.url)
    await expect(page.getByTestId('new-session')).toBeVisible()
    expect(watch).toMatchObject({ violations: [], unprotected: [], protectedDocuments: 1 })
    const ran = await page.evaluate(async () => {
      const script = document.createElement('script')
      script.textContent = 'window.__inline = true'
      document.head.append(script)
      const holder = document.createElement('div')
      holder.innerHTML = '<span id="styled" style="color: rgb(255, 0, 0)">x</span>'
      document.body.append(holder)
      // a style set through the CSSOM (as React does) is not an inline style attribute: allowed
      holder.style.color = 'rgb(0, 128, 0)'
      await new Promise((resolve) => setTimeout(resolve, 0))
      return {
        inline: (window as unknown as { __inline?: boolean }).__inline ?? false,
        attributeColor: getComputedStyle(document.getElementById('styled') as HTMLElement).color,
        cssomColor: holder.style.color,
      }
    })
    expect(ran).toEqual({ inline: false, attributeColor: 'rgb(0, 128, 0)', cssomColor: 'rgb(0, 128, 0)' })
    await expect.poll(() => watch.violations.filter((v) => v.startsWith('[csp-violation]'))).toEqual([
      expect.stringMatching(/^\[csp-violation\] script-src-elem blocked inline at /),
      expect.stringMatching(/^\[csp-violation\] style-src-attr blocked inline at /),
    ])
  } finally {
    await context.close()
  }
})

test('a tab without the access token is asked for it at once, told when the one it had is refused, and gets in with the right one', async ({ zones, servers }, testInfo) => {
  const token = 'kitchen-table-4280-token'
  const server = await servers.start({ args: ['--token', token] })
  const page = await zones.open('Europe/Berlin')
  let listed = 0
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/api/sessions' && request.method() === 'GET') listed++
  })
  await page.goto(`${server.url}/`)
  const signIn = page.getByTestId('sign-in')
  // on the code before, "Loading sessions…" while each refusal was tried again, then an error with no way in
  await expect(signIn).toContainText('This server asks for an access token. Open the link you were given (it ends in ?access_token=…), or paste the token here.')
  await expect(signIn.getByRole('alert')).toHaveCount(0)
  await expect(page.getByTestId('sign-in-token')).toBeFocused()
  await expectAccessible(page, testInfo, 'sign-in')
  expect(listed).toBe(1)

  await page.getByTestId('sign-in-token').fill('not-the-token-at-all')
  await page.getByTestId('sign-in-submit').click()
  await expect(signIn.getByRole('alert')).toHaveText('The access token this tab had was not accepted.')

  await page.getByTestId('sign-in-token').fill(`  ${token} `)
  await page.keyboard.press('Enter')
  await expect(page.getByTestId('sign-in')).toHaveCount(0)
  await expect(page.getByText('No sessions yet.')).toBeVisible()
  const id = await createSessionFromUi(page)
  await sendMessage(page, 'What time is it?')
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  // kept for the tab: a reload stays in, and the token is never in the address
  await page.reload()
  await expect(page.getByTestId('message-assistant')).toHaveCount(1)
  expect(page.url()).toBe(`${server.url}/s/${id}`)
})
