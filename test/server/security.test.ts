import { execFile } from 'node:child_process'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { composeHost } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { diffSnapshots, snapshotDir } from '../fault/support.ts'
import { rawExchange, req, type RawAnswer } from '../support/raw-http.ts'
import { tempDir } from '../support/temp-dir.ts'

/**
 * SPEC 12.3 through a real listening server, over raw sockets so that every byte of every answer
 * is seen: the security headers on every response (the app's, the static overlay's, and those
 * written below the app), the strict Host rule, curl-style clients, and the static overlay's
 * traversal safety.
 */

const servers: RunningServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

const TOKEN = 'kV9s-2Qx_7bLm.Tz'
const INDEX = '<!doctype html><title>overlay</title><script type="module" src="/assets/app-1a2b.js"></script>'
const SCRIPT = 'console.log("overlay")'
const SECRET = 'secret outside the overlay'

/** A root with a built overlay (dist/overlay) and files beside it that must never be served. */
async function overlayRoot(): Promise<string> {
  const root = await tempDir('sw-overlay-')
  await mkdir(join(root, 'dist/overlay/assets'), { recursive: true })
  await writeFile(join(root, 'dist/overlay/index.html'), INDEX)
  await writeFile(join(root, 'dist/overlay/assets/app-1a2b.js'), SCRIPT)
  await writeFile(join(root, 'dist/secret.txt'), SECRET)
  await writeFile(join(root, 'secret.txt'), SECRET)
  return root
}

async function start(options: { token?: string; overlayRoot?: string; publicHost?: string } = {}): Promise<{ server: RunningServer; dataDir: string }> {
  const dataDir = await tempDir('sw-sec-')
  const host = await composeHost({ dataDir, model: new ScriptedModel(), log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0, ...options })
  servers.push(server)
  await host.createSession({ id: 's', timeZone: 'UTC' })
  return { server, dataDir }
}

/** SPEC 12.3, letter for letter. */
const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

const SECURITY = {
  'content-security-policy': CONTENT_SECURITY_POLICY,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'x-frame-options': 'DENY',
}

function securityHeadersOf(answer: RawAnswer): Record<string, string | undefined> {
  return Object.fromEntries(Object.keys(SECURITY).map((name) => [name, answer.headers[name]]))
}

function get(path: string, port: number, extra: string[] = []): Buffer {
  return req([`GET ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...extra, 'Connection: close'])
}

function post(path: string, port: number, body: string, extra: string[] = ['Content-Type: application/json']): Buffer {
  return req([`POST ${path} HTTP/1.1`, `Host: 127.0.0.1:${port}`, ...extra, 'Connection: close'], body, true)
}

type HeaderCase = { name: string; bytes: (port: number) => Buffer; status: number; cache: string; waitMs?: number }

const HEADER_CASES: HeaderCase[] = [
  { name: 'health', bytes: (p) => get('/api/health', p), status: 200, cache: 'no-store' },
  { name: 'a created Session', bytes: (p) => post('/api/sessions', p, '{"timeZone":"UTC","sessionId":"t"}'), status: 201, cache: 'no-store' },
  { name: 'an accepted message', bytes: (p) => post('/api/sessions/s/messages', p, '{"text":"hi","clientTimeZone":"UTC"}'), status: 202, cache: 'no-store' },
  { name: 'an unknown Session', bytes: (p) => get('/api/sessions/nope', p), status: 404, cache: 'no-store' },
  { name: 'an unknown API route', bytes: (p) => get('/api/nope', p), status: 404, cache: 'no-store' },
  { name: 'malformed JSON', bytes: (p) => post('/api/sessions', p, '{'), status: 400, cache: 'no-store' },
  { name: 'a text/plain body', bytes: (p) => post('/api/sessions', p, '{}', ['Content-Type: text/plain']), status: 415, cache: 'no-store' },
  { name: 'a body over 64 KiB', bytes: (p) => post('/api/sessions', p, 'x'.repeat(70_000)), status: 413, cache: 'no-store' },
  { name: 'a foreign Origin on a write', bytes: (p) => post('/api/sessions', p, '{}', ['Content-Type: application/json', 'Origin: http://127.0.0.1:1']), status: 403, cache: 'no-store' },
  { name: 'Sec-Fetch-Site cross-site', bytes: (p) => get('/api/sessions', p, ['Sec-Fetch-Site: cross-site']), status: 403, cache: 'no-store' },
  { name: 'the event stream', bytes: (p) => get('/api/sessions/s/stream', p), status: 200, cache: 'no-store', waitMs: 300 },
  { name: 'HEAD of the event stream', bytes: (p) => req(['HEAD /api/sessions/s/stream HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), status: 200, cache: 'no-store' },
  { name: 'a foreign Host (refused below the app)', bytes: () => req(['GET /api/health HTTP/1.1', 'Host: evil.example', 'Connection: close']), status: 403, cache: 'no-store' },
  { name: 'Host 127.256.0.1 (refused below the app)', bytes: () => req(['GET /api/health HTTP/1.1', 'Host: 127.256.0.1', 'Connection: close']), status: 403, cache: 'no-store' },
  { name: 'a foreign absolute-form target', bytes: (p) => req(['GET http://evil.example/api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), status: 403, cache: 'no-store' },
  { name: 'no Host on HTTP/1.1', bytes: () => req(['GET /api/health HTTP/1.1', 'Connection: close']), status: 400, cache: 'no-store' },
  { name: 'a backslash in the path (refused by the adapter)', bytes: (p) => get('/api\\health', p), status: 400, cache: 'no-store' },
  { name: 'a garbage request line (refused by the parser)', bytes: () => Buffer.from('GARBAGE\r\n\r\n'), status: 400, cache: 'no-store' },
  { name: 'headers over the limit (refused by the parser)', bytes: (p) => get('/api/health', p, [`X-Big: ${'a'.repeat(20 * 1024)}`]), status: 431, cache: 'no-store' },
  { name: 'the overlay page', bytes: (p) => get('/', p), status: 200, cache: 'no-cache' },
  { name: 'an app URL (SPA fallback)', bytes: (p) => get('/s/abc', p), status: 200, cache: 'no-cache' },
  { name: 'a hashed asset', bytes: (p) => get('/assets/app-1a2b.js', p), status: 200, cache: 'public, max-age=31536000, immutable' },
  { name: 'a missing asset', bytes: (p) => get('/assets/missing.js', p), status: 404, cache: '' },
  { name: 'a POST outside /api', bytes: (p) => post('/', p, '{}'), status: 404, cache: '' },
]

describe('security headers (SPEC 12.3)', () => {
  it('puts the exact CSP, nosniff, no-referrer, COOP, CORP and DENY framing on every response, and no-store on every API answer', async () => {
    const { server } = await start({ overlayRoot: await overlayRoot() })
    const seen: unknown[] = []
    for (const c of HEADER_CASES) {
      const answer = await rawExchange(server.port, c.bytes(server.port), { waitMs: c.waitMs ?? 5_000 })
      seen.push({ name: c.name, status: answer.status, security: securityHeadersOf(answer), cache: answer.headers['cache-control'] ?? '' })
    }
    expect(seen).toEqual(HEADER_CASES.map((c) => ({ name: c.name, status: c.status, security: SECURITY, cache: c.cache })))
  })

  it('puts them on a refused bearer token too', async () => {
    const { server } = await start({ token: TOKEN })
    const answer = await rawExchange(server.port, get('/api/sessions', server.port))
    expect({ status: answer.status, security: securityHeadersOf(answer), cache: answer.headers['cache-control'], challenge: answer.headers['www-authenticate'], body: answer.body }).toEqual({
      status: 401,
      security: SECURITY,
      cache: 'no-store',
      challenge: 'Bearer realm=""',
      body: '{"error":{"code":"unauthorized","message":"a valid bearer token is required"}}',
    })
  })
})

/** Host values that do not name this server; `{port}` is the listening port. */
const BAD_HOSTS = [
  '127.256.0.1', '127.999.999.999', '127.256.0.1:{port}', '127.0.0.1.', '127.0.0.1.:{port}', 'localhost.', 'localhost.:{port}', 'localhost..', 'LOCALHOST.',
  'app.localhost.', '.localhost', 'a..localhost', '-a.localhost', '127.1', '127.0.1', '0x7f.0.0.1', '0177.0.0.1', '127.000.000.001', '127.0.0.01', '2130706433',
  '::1', '::1:{port}', '[::1', '::1]', '[::1]:', '[::1]x', '[::1%25lo]', '[::1%lo]', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]:{port}', '[0:0:0:0:0:0:0:1]:{port}', '[0::1]', '[::0:1]', '[0:0:0:0:0:0:0:2]', '[::]',
  '[127.0.0.1]', 'user@127.0.0.1', 'user:pw@localhost:{port}', '127.0.0.1@evil.example', '127.0.0.1:0', '127.0.0.1:65536', '127.0.0.1:99999', '127.0.0.1:-1',
  '127.0.0.1:+1', '127.0.0.1:{port}:{port}', '127.0.0.1:', 'localhost:08o', 'localhost/evil', 'localhost?x', 'localhost#x', 'local host', '%6cocalhost',
  'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io', '0.0.0.0', '10.0.0.1', '',
]

/** Absolute-form request targets that do not name this server as reached. */
const BAD_TARGETS = [
  'http://evil.example/api/health',
  'http://127.256.0.1/api/health',
  'http://localhost./api/health',
  'http://user@127.0.0.1:{port}/api/health',
  'https://127.0.0.1:{port}/api/health',
  'http://[::1]:{port}/api/health',
  'http://127.0.0.1:1/api/health',
  'http://127.0.0.1/api/health',
]

const GOOD_HOSTS = ['127.0.0.1:{port}', '127.0.0.1', 'localhost:{port}', 'LOCALHOST:{port}', '127.255.255.254:{port}', '127.0.0.0', '[::1]:{port}', '[::1]', 'app.localhost:{port}', 'a-b.c.localhost']

describe('strict Host parsing (SPEC 12.3)', () => {
  it(`answers 403 forbidden, never 5xx, to ${BAD_HOSTS.length} Host values that are not a loopback name or address, and writes nothing`, async () => {
    const { server, dataDir } = await start()
    const fill = (value: string): string => value.replaceAll('{port}', String(server.port))
    expect(BAD_HOSTS.length).toBeGreaterThanOrEqual(30)
    const before = await snapshotDir(dataDir)
    const answers: unknown[] = []
    for (const value of BAD_HOSTS.map(fill)) {
      const read = await rawExchange(server.port, req(['GET /api/health HTTP/1.1', `Host: ${value}`, 'Connection: close']))
      const write = await rawExchange(server.port, req(['POST /api/sessions HTTP/1.1', `Host: ${value}`, 'Content-Type: application/json', 'Connection: close'], '{"timeZone":"UTC","sessionId":"rebound"}', true))
      answers.push({ value, read: [read.status, read.body, read.headers['content-security-policy']], write: write.status })
    }
    expect(answers).toEqual(
      BAD_HOSTS.map(fill).map((value) => ({
        value,
        read: [403, JSON.stringify({ error: { code: 'forbidden', message: `host ${JSON.stringify(value)} is not allowed` } }), CONTENT_SECURITY_POLICY],
        write: 403,
      })),
    )
    expect(diffSnapshots(before, await snapshotDir(dataDir))).toBeNull()
  })

  it('answers 403 to absolute-form request targets that name another host, scheme or port than the Host header', async () => {
    const { server } = await start()
    const fill = (value: string): string => value.replaceAll('{port}', String(server.port))
    const answers: unknown[] = []
    for (const target of BAD_TARGETS.map(fill)) {
      const answer = await rawExchange(server.port, req([`GET ${target} HTTP/1.1`, `Host: 127.0.0.1:${server.port}`, 'Connection: close']))
      answers.push({ target, status: answer.status, code: (JSON.parse(answer.body) as { error: { code: string } }).error.code })
    }
    expect(answers).toEqual(BAD_TARGETS.map(fill).map((target) => ({ target, status: 403, code: 'forbidden' })))
    const same = await rawExchange(server.port, req([`GET http://127.0.0.1:${server.port}/api/health HTTP/1.1`, `Host: 127.0.0.1:${server.port}`, 'Connection: close']))
    expect({ status: same.status, body: same.body }).toEqual({ status: 200, body: '{"ok":true}' })
  })

  it('answers loopback names and addresses, in any spelling a client may send', async () => {
    const { server } = await start()
    const answers: unknown[] = []
    for (const value of GOOD_HOSTS.map((v) => v.replaceAll('{port}', String(server.port)))) {
      const answer = await rawExchange(server.port, req(['GET /api/health HTTP/1.1', `Host: ${value}`, 'Connection: close']))
      answers.push({ value, status: answer.status, body: answer.body })
    }
    expect(answers).toEqual(GOOD_HOSTS.map((v) => ({ value: v.replaceAll('{port}', String(server.port)), status: 200, body: '{"ok":true}' })))
  })

  it('answers the configured public host and still refuses its look-alikes', async () => {
    const { server } = await start({ publicHost: 'schedule.example.com' })
    const statusFor = async (value: string): Promise<number | null> =>
      (await rawExchange(server.port, req(['GET /api/health HTTP/1.1', `Host: ${value}`, 'Connection: close']))).status
    expect([await statusFor('schedule.example.com'), await statusFor('SCHEDULE.example.com:8080'), await statusFor('schedule.example.com.'), await statusFor('x.schedule.example.com')]).toEqual([200, 200, 403, 403])
  })
})

describe('same origin for writes (SPEC 12.3)', () => {
  type OriginCase = { host: string; origin: string; status: number }
  const allowed = (cases: [string, string, boolean][]): OriginCase[] => cases.map(([host, origin, ok]) => ({ host, origin, status: ok ? 202 : 403 }))

  async function answers(publicHost: string | undefined, cases: OriginCase[]): Promise<OriginCase[]> {
    const { server } = await start(publicHost === undefined ? {} : { publicHost })
    const out: OriginCase[] = []
    for (const { host, origin } of cases) {
      const value = host.replaceAll('{port}', String(server.port))
      const answer = await rawExchange(server.port, req(['POST /api/sessions/s/cancel HTTP/1.1', `Host: ${value}`, `Origin: ${origin.replaceAll('{port}', String(server.port))}`, 'Connection: close']))
      out.push({ host, origin, status: answer.status ?? 0 })
    }
    return out
  }

  it('takes writes through a public origin from that origin only: its scheme, host and port, the default port spelled or not', async () => {
    const cases = allowed([
      ['schedule.example.com', 'https://schedule.example.com', true],
      ['schedule.example.com', 'https://schedule.example.com:443', true],
      ['schedule.example.com', 'https://schedule.example.com:8443', false],
      ['schedule.example.com', 'https://schedule.example.com:4280', false],
      ['schedule.example.com', 'http://schedule.example.com', false],
      ['schedule.example.com', 'http://schedule.example.com:443', false],
      ['schedule.example.com', 'https://schedule.example.com.', false],
      ['schedule.example.com', 'https://schedule.example.com/', false],
      ['schedule.example.com:8443', 'https://schedule.example.com:8443', false],
      ['127.0.0.1:{port}', 'http://127.0.0.1:{port}', true],
      ['127.0.0.1:{port}', 'https://schedule.example.com', false],
    ])
    expect(await answers('https://schedule.example.com', cases)).toEqual(cases)
    const withPort = allowed([
      ['schedule.example.com:8080', 'http://schedule.example.com:8080', true],
      ['schedule.example.com', 'http://schedule.example.com:8080', true],
      ['schedule.example.com:8080', 'http://schedule.example.com', false],
      ['schedule.example.com', 'http://schedule.example.com:80', false],
      ['schedule.example.com:9999', 'http://schedule.example.com:9999', false],
    ])
    expect(await answers('http://schedule.example.com:8080', withPort)).toEqual(withPort)
  })

  it('takes writes through a public name or loopback from the origin as reached, the default port spelled or not', async () => {
    const named = allowed([
      ['schedule.example.com', 'http://schedule.example.com', true],
      ['schedule.example.com', 'http://schedule.example.com:80', true],
      ['schedule.example.com:80', 'http://schedule.example.com', true],
      ['schedule.example.com', 'http://schedule.example.com:8080', false],
      ['schedule.example.com', 'https://schedule.example.com', false],
      ['schedule.example.com:8080', 'http://schedule.example.com:8080', true],
      ['schedule.example.com:8080', 'http://schedule.example.com', false],
    ])
    expect(await answers('schedule.example.com', named)).toEqual(named)
    const loopback = allowed([
      ['127.0.0.1:{port}', 'http://127.0.0.1:{port}', true],
      ['127.0.0.1', 'http://127.0.0.1:80', true],
      ['127.0.0.1:{port}', 'http://127.0.0.1', false],
      ['127.0.0.1:{port}', 'http://localhost:{port}', false],
      ['127.0.0.1:{port}', 'https://127.0.0.1:{port}', false],
      ['127.0.0.1:{port}', 'http://127.0.0.1:1', false],
    ])
    expect(await answers(undefined, loopback)).toEqual(loopback)
  })
})

const run = promisify(execFile)

describe('curl-style clients (no Origin, no Sec-Fetch-Site)', () => {
  it('create Sessions, send messages and cancel with real curl; a body without Content-Type: application/json gets a clear 415', async () => {
    const { server } = await start()
    const curl = async (...args: string[]): Promise<{ status: string; body: string }> => {
      const { stdout } = await run('curl', ['-sS', '-w', '\n%{http_code}', ...args])
      const lines = stdout.split('\n')
      return { status: lines.at(-1) ?? '', body: lines.slice(0, -1).join('\n') }
    }
    const json = ['-H', 'Content-Type: application/json']
    expect(await curl(...json, '-d', '{"timeZone":"Europe/Paris","sessionId":"c"}', `${server.url}/api/sessions`)).toEqual({
      status: '201',
      body: expect.stringMatching(/^\{"session":\{"id":"c","createdAt":\d+,"timeZone":"Europe\/Paris","status":"idle","eventCount":0\}\}$/),
    })
    expect(await curl(...json, '-d', '{"text":"hello","clientTimeZone":"UTC"}', `${server.url}/api/sessions/c/messages`)).toEqual({
      status: '202',
      body: expect.stringMatching(/^\{"rpcId":"[^"]+","messageId":"[^"]+"\}$/),
    })
    expect(await curl('-X', 'POST', `${server.url}/api/sessions/c/cancel`)).toEqual({ status: '202', body: '{}' })
    expect(await curl('-d', '{"text":"hello","clientTimeZone":"UTC"}', `${server.url}/api/sessions/c/messages`)).toEqual({
      status: '415',
      body: '{"error":{"code":"unsupported-media-type","message":"request body must be sent with Content-Type: application/json, not \\"application/x-www-form-urlencoded\\""}}',
    })
  })
})

describe('static overlay', () => {
  it('serves files, falls back to index.html for app URLs, and never reaches outside the overlay folder', async () => {
    const { server } = await start({ overlayRoot: await overlayRoot() })
    const fetchRaw = async (target: string): Promise<{ status: number | null; type: string | undefined; body: string }> => {
      const answer = await rawExchange(server.port, get(target, server.port))
      return { status: answer.status, type: answer.headers['content-type'], body: answer.body }
    }
    expect(await fetchRaw('/')).toEqual({ status: 200, type: 'text/html; charset=utf-8', body: INDEX })
    expect(await fetchRaw('/index.html')).toEqual({ status: 200, type: 'text/html; charset=utf-8', body: INDEX })
    expect(await fetchRaw('/s/abc?x=1')).toEqual({ status: 200, type: 'text/html; charset=utf-8', body: INDEX })
    expect(await fetchRaw('/assets/app-1a2b.js')).toEqual({ status: 200, type: 'text/javascript; charset=utf-8', body: SCRIPT })
    expect(await fetchRaw('/assets/missing.js')).toEqual({ status: 404, type: 'text/plain; charset=UTF-8', body: 'not found' })
    const head = await rawExchange(server.port, req(['HEAD / HTTP/1.1', `Host: 127.0.0.1:${server.port}`, 'Connection: close']))
    expect({ status: head.status, length: head.headers['content-length'], body: head.body }).toEqual({ status: 200, length: String(INDEX.length), body: '' })
    const traversals = [
      '/../secret.txt', '/../../secret.txt', '/%2e%2e/secret.txt', '/%2E%2E/%2E%2E/secret.txt', '/assets/../../secret.txt', '/assets/%2e%2e/%2e%2e/secret.txt',
      '/..%2fsecret.txt', '/%2e%2e%2f%2e%2e%2fsecret.txt', '/..%5c..%5csecret.txt', '//secret.txt', '/.%2e/secret.txt', '/assets/..%252f..%252fsecret.txt',
      '/%00/../secret.txt', '/secret.txt%00.js', `/${'../'.repeat(8)}etc/passwd`,
    ]
    for (const target of traversals) {
      const answer = await fetchRaw(target)
      expect({ target, status: answer.status, leaked: answer.body.includes(SECRET) || answer.body.includes('root:') }).toEqual({
        target,
        status: expect.toSatisfy((s: number | null) => s === 200 || s === 400 || s === 404),
        leaked: false,
      })
    }
  })

  it('shows a placeholder when the overlay is not built', async () => {
    const { server } = await start({ overlayRoot: await tempDir('sw-unbuilt-') })
    const answer = await rawExchange(server.port, get('/s/abc', server.port))
    expect({ status: answer.status, body: answer.body }).toEqual({
      status: 200,
      body: '<!doctype html><meta charset="utf-8"><title>Schedule Web</title><p>The overlay is not built. Run <code>npm run build</code>.</p>',
    })
  })
})

describe('starting up', () => {
  it.each([
    [{ bindHost: '127.0.0.1', token: 's3cret' }, 'refusing to start: the token must have at least 16 characters (it has 6) (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    [{ bindHost: '0.0.0.0', token: ' ' }, 'refusing to start: the token must not contain spaces (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    [{ bindHost: '0.0.0.0', token: '' }, 'refusing to start: the token must have at least 16 characters (it has 0) (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    [{ bindHost: '0.0.0.0' }, 'refusing to bind to 0.0.0.0 without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    [{ bindHost: '127.0.0.1', publicHost: 'a b' }, '--public-host "a b" is not a host name or address'],
  ])('refuses %j', async (options, message) => {
    const host = await composeHost({ dataDir: await tempDir(), model: new ScriptedModel(), log: () => undefined })
    await expect(listen({ host, port: 0, ...options })).rejects.toThrow(message)
    await host.close()
  })
})
