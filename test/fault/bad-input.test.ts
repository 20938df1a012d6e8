import fc from 'fast-check'
import http from 'node:http'
import { afterAll, afterEach, beforeEach, describe, expect, it, vi, type MockInstance } from 'vitest'
import type { Hono } from 'hono'
import { createApp } from '../../src/server/app.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { canonicalTimeZone } from '../../src/protocol/time-zone.ts'
import { MAX_BODY_BYTES } from '../../src/protocol/wire.ts'
import { tempDir } from '../support/temp-dir.ts'
import {
  ALIAS_ZONES,
  CODE_STATUS,
  describeProbe,
  expectation,
  INVALID_ZONES,
  judge,
  probeArb,
  World,
  type Answer,
  type BodyPick,
  type Concrete,
  type Probe,
} from './probes.ts'
import { diffSnapshots, snapshotDir } from './support.ts'
import { countSubscriptions } from '../support/feed-subscriptions.ts'
import { chunked, rawExchange, req } from '../support/raw-http.ts'

/**
 * Bad-input suite (SPEC 4.1, 8, 12.2, 12.3): generated requests at every SPEC 8 route, through the
 * Hono app without a port and through a real listening server, plus raw HTTP oddities on a socket.
 * Every answer is 2xx for valid input or a SPEC 8 4xx JSON error, never 5xx, never a hang; a refused
 * request writes nothing (the data dir's names and bytes are unchanged, cold sessions stay cold).
 */

const SEED_APP = 0xbad1
const SEED_HTTP = 0xbad2
const RUNS_APP = 450
const RUNS_HTTP = 300
const REQUEST_TIMEOUT_MS = 5_000

type Tally = { tried: number; accepted: number; rejected: number; unsendable: number }
const tallies = new Map<string, Map<string, Tally>>()

function tally(suite: string, route: string): Tally {
  let bySuite = tallies.get(suite)
  if (!bySuite) tallies.set(suite, (bySuite = new Map()))
  let t = bySuite.get(route)
  if (!t) bySuite.set(route, (t = { tried: 0, accepted: 0, rejected: 0, unsendable: 0 }))
  return t
}

afterAll(() => {
  const lines: string[] = ['bad-input suite: inputs tried, by route']
  for (const [suite, byRoute] of tallies) {
    let total = 0
    lines.push(`  ${suite}:`)
    for (const [route, t] of [...byRoute].sort()) {
      total += t.tried
      lines.push(`    ${route.padEnd(48)} tried ${String(t.tried).padStart(4)}  2xx ${String(t.accepted).padStart(4)}  4xx ${String(t.rejected).padStart(4)}${t.unsendable ? `  not sendable ${t.unsendable}` : ''}`)
    }
    lines.push(`    total ${total}`)
  }
  console.log(lines.join('\n'))
})

function withTimeout<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms (hang): ${what}`)), REQUEST_TIMEOUT_MS)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

/** Sends a probe through `app.request`; null when the runtime cannot express it as a Request. */
const APP_HOST = '127.0.0.1:4280'

/** Sends a probe through `app.request` (bodies as bytes, so no Content-Type is added); null when the runtime cannot express it as a Request. */
async function sendToApp(app: Hono, probe: Probe, concrete: Concrete): Promise<Answer | null> {
  const init: RequestInit = { method: probe.method, headers: concrete.headers }
  if (concrete.body) init.body = new Blob([Buffer.from(concrete.body.bytes)])
  let request: Request
  try {
    request = new Request(`http://${APP_HOST}${concrete.path}`, init)
  } catch {
    return null
  }
  const response = await app.request(request)
  const contentType = response.headers.get('content-type') ?? ''
  if (response.status < 300 && contentType.startsWith('text/event-stream') && response.body) {
    const reader = response.body.getReader()
    const first = await reader.read()
    await reader.cancel()
    return { status: response.status, contentType, text: new TextDecoder().decode(first.value), stream: true }
  }
  return { status: response.status, contentType, text: await response.text(), stream: false }
}

/** Sends a probe over a real socket with node:http (Content-Length or chunked); null when node:http refuses it. */
function sendOverHttp(port: number, probe: Probe, concrete: Concrete): Promise<Answer | null> {
  let target: string
  try {
    const url = new URL(concrete.path, 'http://127.0.0.1')
    target = `${url.pathname}${url.search}`
  } catch {
    return Promise.resolve(null)
  }
  const headers: Record<string, string | number> = { connection: 'close', ...concrete.headers }
  if (headers.host === undefined) headers.host = `127.0.0.1:${port}`
  const body = concrete.body ? Buffer.from(concrete.body.bytes) : undefined
  if (body && !probe.chunked) headers['content-length'] = body.length
  // node:http frames GET/DELETE/OPTIONS bodies only when told to
  if (body && probe.chunked) headers['transfer-encoding'] = 'chunked'
  return new Promise<Answer | null>((resolve, reject) => {
    let request: http.ClientRequest
    try {
      request = http.request({ host: '127.0.0.1', port, method: probe.method, path: target, headers, agent: false })
    } catch {
      resolve(null)
      return
    }
    let answered = false
    request.on('response', (response) => {
      answered = true
      const contentType = String(response.headers['content-type'] ?? '')
      const chunks: Buffer[] = []
      if ((response.statusCode ?? 0) < 300 && contentType.startsWith('text/event-stream')) {
        response.once('data', (chunk: Buffer) => {
          resolve({ status: response.statusCode ?? 0, contentType, text: chunk.toString('utf8'), stream: true })
          request.destroy()
        })
        return
      }
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType, text: Buffer.concat(chunks).toString('utf8'), stream: false }))
      response.on('error', reject)
    })
    request.on('error', (error) => {
      if (!answered) reject(error)
    })
    if (body && probe.chunked) {
      const half = Math.floor(body.length / 2)
      request.write(body.subarray(0, half))
      request.end(body.subarray(half))
    } else request.end(body)
  })
}

/** Runs one probe: oracle, snapshot, send, judge, and the no-write check for refused requests. */
async function runProbe(
  suite: string,
  world: World,
  probe: Probe,
  send: (concrete: Concrete) => Promise<Answer | null>,
  defaultHost = APP_HOST,
): Promise<void> {
  await world.quiesce()
  const concrete = await world.materialize(probe, defaultHost)
  const expected = expectation(probe, world, concrete)
  const before = await snapshotDir(world.dataDir)
  const t = tally(suite, probe.route)
  const what = describeProbe(probe, concrete)
  const answer = await withTimeout(send(concrete), what)
  if (answer === null) {
    t.unsendable++
    return
  }
  t.tried++
  const problems = judge(probe, expected, answer, concrete.path)
  await world.quiesce()
  if (answer.status >= 400) {
    t.rejected++
    const written = diffSnapshots(before, await snapshotDir(world.dataDir))
    if (written !== null) problems.push(`wrote on a refused request: ${written}`)
  } else {
    t.accepted++
    world.accepted(probe, concrete.body, answer.status)
  }
  if (problems.length > 0) throw new Error(`${problems.join('; ')}\n  request: ${what}\n  answer: ${answer.status} ${answer.text.slice(0, 300)}`)
}

describe('bad input through the app without a port', () => {
  it('refuses the SPEC 4.1 bad zones with invalid-time-zone and writes nothing; accepts aliases canonicalised', async () => {
    const dir = await tempDir('sw-bad-')
    const world = await World.create(dir)
    const app = createApp({ host: world.host, schedules: world.schedules })
    const cold = await world.coldSession()
    const json = (value: unknown): BodyPick => {
      const bytes = JSON.stringify(value)
      return { bytes, parsed: { ok: true, value: JSON.parse(bytes) as unknown }, size: Buffer.byteLength(bytes), badUtf8: false }
    }
    const probe = (route: Probe['route'], path: string, body: BodyPick): Probe => ({
      route,
      method: 'POST',
      path,
      id: { segment: path.split('/')[3] ?? '', plain: true, cold: false },
      headers: { 'content-type': 'application/json' },
      hostForeign: false,
      body,
      chunked: false,
    })
    for (const zone of [...INVALID_ZONES, undefined]) {
      const withZone = (base: Record<string, unknown>, key: string): Record<string, unknown> => (zone === undefined ? base : { ...base, [key]: zone })
      for (const sessionId of ['fresh', cold]) {
        const p = probe('POST /api/sessions', '/api/sessions', json(withZone({ sessionId }, 'timeZone')))
        await runProbe('app: SPEC 4.1 zone lists', world, p, (c) => sendToApp(app, p, c))
      }
      for (const id of ['alpha', cold, 'nope']) {
        const p = probe('POST /api/sessions/:id/messages', `/api/sessions/${id}/messages`, json(withZone({ text: 'hello' }, 'clientTimeZone')))
        await runProbe('app: SPEC 4.1 zone lists', world, p, (c) => sendToApp(app, p, c))
      }
    }
    // a valid zone that differs from a cold session's is a conflict: refused, and the session stays cold
    for (const timeZone of ['UTC', 'Asia/Calcutta', 'US/Eastern']) {
      const p = probe('POST /api/sessions', '/api/sessions', json({ timeZone, sessionId: cold }))
      await runProbe('app: SPEC 4.1 zone lists', world, p, (c) => sendToApp(app, p, c))
    }
    let n = 0
    for (const zone of ALIAS_ZONES) {
      const id = `alias-${++n}`
      const answer = await sendToApp(app, probe('POST /api/sessions', '/api/sessions', json({ timeZone: zone, sessionId: id })), {
        path: '/api/sessions',
        headers: { 'content-type': 'application/json' },
        ownOrigin: `http://${APP_HOST}`,
        body: json({ timeZone: zone, sessionId: id }),
      })
      expect({ zone, status: answer?.status, timeZone: (JSON.parse(answer?.text ?? '{}') as { session?: { timeZone?: string } }).session?.timeZone }).toEqual({
        zone,
        status: 201,
        timeZone: canonicalTimeZone(zone),
      })
      if (zone === 'US/Eastern' || zone === 'Etc/UTC') expect(canonicalTimeZone(zone)).not.toBe(zone)
      const p = probe('POST /api/sessions/:id/messages', '/api/sessions/alpha/messages', json({ text: `from ${zone}`, clientTimeZone: zone }))
      world.zones.set(id, canonicalTimeZone(zone))
      await runProbe('app: SPEC 4.1 zone lists', world, p, (c) => sendToApp(app, p, c))
    }
    // the cold session was never resumed by any of those refusals
    expect([...world.opened].map((s) => s.id)).not.toContain(cold)
    await world.quiesce()
    await world.host.close()
  })

  it(
    'answers generated requests at every route with 2xx or a SPEC 8 4xx JSON error, never 5xx or a hang, writing nothing when refusing',
    async () => {
      const dir = await tempDir('sw-bad-')
      const world = await World.create(dir)
      const app = createApp({ host: world.host, schedules: world.schedules })
      await fc.assert(
        fc.asyncProperty(probeArb(), (probe) => runProbe('app (no port)', world, probe, (c) => sendToApp(app, probe, c))),
        { seed: SEED_APP, numRuns: RUNS_APP, endOnFailure: true },
      )
      await world.quiesce()
      await world.host.close()
    },
    60_000,
  )
})

type RawCase = {
  name: string
  bytes: (port: number) => Buffer
  /** reject: a 4xx JSON error (code optional); ok: a 2xx; any: either (no write); closed: the server may close without answering. */
  expect:
    | { kind: 'reject'; status?: number[]; code?: string }
    | { kind: 'ok'; status: number[]; writes: boolean }
    | { kind: 'any' }
    | { kind: 'reject-or-closed' }
  /** Half-close the socket after sending (the client has nothing more to say). */
  halfClose?: boolean
}

function messageOfSize(size: number, zone = 'UTC'): Buffer {
  const empty = JSON.stringify({ text: '', clientTimeZone: zone })
  return Buffer.from(JSON.stringify({ text: 'x'.repeat(size - Buffer.byteLength(empty)), clientTimeZone: zone }))
}

const RAW_CASES: RawCase[] = [
  { name: 'request line is garbage', bytes: () => Buffer.from('GARBAGE\r\n\r\n'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'request line without a version', bytes: () => Buffer.from('GET /api/health\r\n\r\n'), expect: { kind: 'any' } },
  { name: 'HTTP/9.9', bytes: (p) => req(['GET /api/health HTTP/9.9', `Host: 127.0.0.1:${p}`]), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'two spaces in the request line', bytes: (p) => req(['GET  /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'any' } },
  { name: 'unknown method token', bytes: (p) => req(['BREW /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'TRACE', bytes: (p) => req(['TRACE /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject' } },
  { name: 'CONNECT', bytes: (p) => req([`CONNECT 127.0.0.1:${p} HTTP/1.1`, `Host: 127.0.0.1:${p}`]), expect: { kind: 'reject-or-closed' } },
  { name: 'raw 0xff bytes in the path', bytes: (p) => req(['GET /api/sessions/\xff\xfe HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject' } },
  { name: 'raw UTF-8 in the path', bytes: (p) => Buffer.from(`GET /api/sessions/ü💥 HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nConnection: close\r\n\r\n`, 'utf8'), expect: { kind: 'reject' } },
  { name: 'backslash in the path', bytes: (p) => req(['GET /api\\sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject' } },
  { name: 'absolute-form target naming a foreign host', bytes: (p) => req(['GET http://evil.example/api/sessions/alpha HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', status: [403], code: 'forbidden' } },
  { name: 'absolute-form target naming this server', bytes: (p) => req([`GET http://127.0.0.1:${p}/api/sessions/alpha HTTP/1.1`, `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'ok', status: [200], writes: false } },
  { name: 'absolute-form target with a foreign Host header', bytes: (p) => req([`GET http://127.0.0.1:${p}/api/health HTTP/1.1`, 'Host: evil.example', 'Connection: close']), expect: { kind: 'reject', status: [403], code: 'forbidden' } },
  { name: 'header line without a colon', bytes: (p) => req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'NoColonHere', 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'NUL byte in a header value', bytes: (p) => req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'X-A: a\u0000b', 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'one 20 KiB header', bytes: (p) => req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, `X-Big: ${'a'.repeat(20 * 1024)}`, 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: '400 headers of 64 bytes', bytes: (p) => req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, ...Array.from({ length: 400 }, (_, i) => `X-H${i}: ${'b'.repeat(56)}`), 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'Host header is a foreign name', bytes: () => req(['GET /api/health HTTP/1.1', 'Host: evil.example', 'Connection: close']), expect: { kind: 'reject', status: [403], code: 'forbidden' } },
  { name: 'Host header is not a host', bytes: () => req(['GET /api/health HTTP/1.1', 'Host: a b@c', 'Connection: close']), expect: { kind: 'reject' } },
  { name: 'two Host headers', bytes: (p) => req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Host: evil.example', 'Connection: close']), expect: { kind: 'any' } },
  { name: 'no Host header on HTTP/1.1', bytes: () => req(['GET /api/health HTTP/1.1', 'Connection: close']), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'foreign Origin on a POST', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Origin: http://evil.example', 'Content-Type: application/json', 'Connection: close'], '{"timeZone":"UTC","sessionId":"evil1"}', true), expect: { kind: 'reject', status: [403], code: 'forbidden' } },
  { name: 'two different Content-Lengths', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 2', 'Content-Length: 3', 'Connection: close'], '{}'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'two equal Content-Lengths', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 2', 'Content-Length: 2', 'Connection: close'], '{}'), expect: { kind: 'reject' } },
  { name: 'Content-Length and chunked together', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 2', 'Transfer-Encoding: chunked', 'Connection: close'], '2\r\n{}\r\n0\r\n\r\n'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'negative Content-Length', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: -1', 'Connection: close'], '{}'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'non-numeric Content-Length', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 1e3', 'Connection: close'], '{}'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'huge Content-Length', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 99999999999999999999', 'Connection: close'], '{}'), expect: { kind: 'reject' } },
  { name: 'Content-Length 70000 declared and sent', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Content-Length: 70000', 'Connection: close'], messageOfSize(70_000)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'Expect: 100-continue with 70000 declared', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Content-Length: 70000', 'Expect: 100-continue', 'Connection: close']), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunked body of 70 KiB', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(70 * 1024), 1024)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunked body of 1 MiB in 64 KiB chunks', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(Buffer.alloc(1024 * 1024, 0x20), 64 * 1024)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunked body of 70 KiB with a bad zone', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(70 * 1024, 'PST'), 4096)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunked body of 70 KiB without a Content-Type', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(70 * 1024), 4096)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunked valid message without a Content-Type', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(200), 50)), expect: { kind: 'reject', status: [415], code: 'unsupported-media-type' } },
  { name: 'chunked body of exactly 64 KiB', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(MAX_BODY_BYTES), 1000)), expect: { kind: 'ok', status: [202], writes: true } },
  { name: 'chunked body of 64 KiB + 1 byte', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(messageOfSize(MAX_BODY_BYTES + 1), 1000)), expect: { kind: 'reject', status: [413], code: 'payload-too-large' } },
  { name: 'chunk size that is not hex', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Transfer-Encoding: chunked', 'Connection: close'], 'zz\r\n{}\r\n0\r\n\r\n'), expect: { kind: 'reject', code: 'bad-request' } },
  { name: 'chunked with a bad zone', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'Connection: close'], chunked(Buffer.from('{"timeZone":"CST","sessionId":"cst"}'), 5)), expect: { kind: 'reject', status: [400], code: 'invalid-time-zone' } },
  { name: 'a zone nested 5,000 deep', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Connection: close'], `{"timeZone":${'['.repeat(5000)}${']'.repeat(5000)}}`, true), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'a client zone nested 5,000 deep', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Connection: close'], `{"text":"hi","clientTimeZone":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`, true), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'POST without Content-Length (body ignored)', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Connection: close'], '{"timeZone":"UTC","sessionId":"nolen"}'), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'form content-type with a valid JSON body', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/x-www-form-urlencoded', 'Connection: close'], '{"timeZone":"UTC","sessionId":"form1"}', true), expect: { kind: 'reject', status: [415], code: 'unsupported-media-type' } },
  { name: 'text/plain with a valid JSON body', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: text/plain', 'Connection: close'], '{"text":"hi","clientTimeZone":"UTC"}', true), expect: { kind: 'reject', status: [415], code: 'unsupported-media-type' } },
  { name: 'multipart body', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: multipart/form-data; boundary=x', 'Connection: close'], '--x\r\nContent-Disposition: form-data; name="timeZone"\r\n\r\nUTC\r\n--x--', true), expect: { kind: 'reject', status: [415], code: 'unsupported-media-type' } },
  { name: 'invalid UTF-8 inside a JSON string with a bad zone', bytes: (p) => req(['POST /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Connection: close'], Buffer.concat([Buffer.from('{"text":"'), Buffer.from([0xff, 0xc3, 0x28]), Buffer.from('","clientTimeZone":"PST"}')]), true), expect: { kind: 'reject', status: [400], code: 'invalid-time-zone' } },
  { name: 'invalid UTF-8 outside JSON strings', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json', 'Connection: close'], Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), true), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'UTF-16 body', bytes: (p) => req(['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Type: application/json; charset=utf-16le', 'Connection: close'], Buffer.from('{"timeZone":"UTC"}', 'utf16le'), true), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'percent-encoded invalid UTF-8 id', bytes: (p) => req(['GET /api/sessions/%FF%FE/events HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', status: [404], code: 'session-not-found' } },
  { name: 'encoded NUL in the id', bytes: (p) => req(['POST /api/sessions/alpha%00/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close'], '{"text":"hi","clientTimeZone":"UTC"}', true), expect: { kind: 'reject', status: [404], code: 'session-not-found' } },
  { name: 'encoded slash in the id', bytes: (p) => req(['POST /api/sessions/..%2Fbeta/cancel HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Content-Length: 0', 'Connection: close']), expect: { kind: 'reject', status: [404] } },
  { name: 'dot segments in the path', bytes: (p) => req(['GET /api/sessions/../nope HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', status: [404], code: 'not-found' } },
  { name: 'dot segments that resolve to a route', bytes: (p) => req(['GET /api/sessions/alpha/../../health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'ok', status: [200], writes: false } },
  { name: 'a 65-character id', bytes: (p) => req([`GET /api/sessions/${'a'.repeat(65)}/schedules HTTP/1.1`, `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', status: [404], code: 'session-not-found' } },
  { name: 'a 10 KiB path', bytes: (p) => req([`GET /api/sessions/${'a'.repeat(10 * 1024)} HTTP/1.1`, `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'reject', status: [404], code: 'session-not-found' } },
  { name: 'Last-Event-ID that is not a seq', bytes: (p) => req(['GET /api/sessions/alpha/stream HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Last-Event-ID: ../1', 'Connection: close']), expect: { kind: 'reject', status: [400], code: 'bad-request' } },
  { name: 'HEAD of the health route', bytes: (p) => req(['HEAD /api/health HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: close']), expect: { kind: 'ok', status: [200], writes: false } },
  { name: 'OPTIONS of the messages route', bytes: (p) => req(['OPTIONS /api/sessions/alpha/messages HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Origin: http://evil.example', 'Access-Control-Request-Method: POST', 'Connection: close']), expect: { kind: 'reject', status: [404, 405] } },
  { name: 'Upgrade: websocket on the stream', bytes: (p) => req(['GET /api/sessions/nope/stream HTTP/1.1', `Host: 127.0.0.1:${p}`, 'Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==']), expect: { kind: 'reject-or-closed' } },
  { name: 'a request cut in the middle of its headers', bytes: (p) => Buffer.from(`POST /api/sessions HTTP/1.1\r\nHost: 127.0.0.1:${p}\r\nContent-Le`), expect: { kind: 'reject-or-closed' }, halfClose: true },
]

describe('HEAD of the event stream', () => {
  it('answers the headers without leaving a stream loop (a log subscription and a heartbeat timer) behind', async () => {
    const world = await World.create(await tempDir('sw-bad-head-'))
    const app = createApp({ host: world.host, schedules: world.schedules })
    const subscriptions = countSubscriptions(await world.host.feed('alpha'))
    for (let i = 0; i < 20; i++) {
      const response = await withTimeout(Promise.resolve(app.request('http://127.0.0.1:4280/api/sessions/alpha/stream', { method: 'HEAD' })), 'HEAD stream')
      expect({ status: response.status, type: response.headers.get('content-type'), body: await response.text() }).toEqual({
        status: 200,
        type: 'text/event-stream',
        body: '',
      })
    }
    // a GET stream subscribes while it is read and unsubscribes once cancelled
    const get = await app.request('http://127.0.0.1:4280/api/sessions/alpha/stream')
    const reader = (get.body as ReadableStream<Uint8Array>).getReader()
    await reader.read()
    expect(subscriptions()).toBe(1)
    await reader.cancel()
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(subscriptions()).toBe(0)
    await world.host.close()
  })
})

describe('bad input on a real listening server', () => {
  const servers: RunningServer[] = []
  let errors: MockInstance<(...args: unknown[]) => void>
  beforeEach(() => {
    errors = vi.spyOn(console, 'error').mockImplementation(() => undefined)
  })
  afterEach(() => {
    // the app logs every answer >= 500 it makes, even one the client never reads
    const logged = errors.mock.calls.map((args) => args.map(String).join(' '))
    errors.mockRestore()
    expect(logged).toEqual([])
  })
  afterAll(async () => {
    for (const server of servers.splice(0)) await server.close()
  })

  it(
    'answers generated requests over node:http with 2xx or a SPEC 8 4xx JSON error, never 5xx or a hang, writing nothing when refusing',
    async () => {
      const dir = await tempDir('sw-bad-http-')
      const world = await World.create(dir)
      const server = await listen({ host: world.host, bindHost: '127.0.0.1', port: 0, schedules: world.schedules })
      servers.push(server)
      await fc.assert(
        fc.asyncProperty(probeArb(), (probe) => runProbe('real server (node:http)', world, probe, (c) => sendOverHttp(server.port, probe, c), `127.0.0.1:${server.port}`)),
        { seed: SEED_HTTP, numRuns: RUNS_HTTP, endOnFailure: true },
      )
      await world.quiesce()
    },
    60_000,
  )

  it('answers raw HTTP oddities (malformed lines, huge headers, chunked bodies over 64 KiB, bad Content-Length, invalid UTF-8) with 4xx JSON or 2xx, never 5xx or a hang', async () => {
    const dir = await tempDir('sw-bad-raw-')
    const world = await World.create(dir)
    const server = await listen({ host: world.host, bindHost: '127.0.0.1', port: 0, schedules: world.schedules })
    servers.push(server)
    const failures: string[] = []
    for (const raw of RAW_CASES) {
      await world.quiesce()
      const before = await snapshotDir(dir)
      const waitMs = raw.expect.kind === 'reject-or-closed' ? 1_500 : REQUEST_TIMEOUT_MS
      const answer = await rawExchange(server.port, raw.bytes(server.port), { waitMs, halfClose: raw.halfClose === true })
      await world.quiesce()
      const written = diffSnapshots(before, await snapshotDir(dir))
      const t = tally('real server (raw socket)', raw.expect.kind === 'ok' ? 'valid oddities' : 'malformed or refused')
      t.tried++
      if (answer.status !== null && answer.status < 400) t.accepted++
      else t.rejected++
      const problems: string[] = []
      const e = raw.expect
      if (answer.status !== null && answer.status >= 500) problems.push(`answered ${answer.status}`)
      if (e.kind === 'ok') {
        if (answer.status === null || !e.status.includes(answer.status)) problems.push(`expected ${e.status.join('|')}`)
        if (!e.writes && written !== null) problems.push(`wrote: ${written}`)
      } else if (e.kind === 'any' && answer.status !== null && answer.status < 300) {
        if (written !== null) problems.push(`wrote: ${written}`)
      } else {
        if (written !== null) problems.push(`wrote on a refused request: ${written}`)
        if (answer.status === null) {
          if (e.kind !== 'reject-or-closed') problems.push(answer.closed ? 'closed without an answer' : 'no answer (hang)')
          else if (!answer.closed) problems.push('neither answered nor closed (hang)')
        } else {
          if (answer.status < 400 || answer.status >= 500) problems.push(`expected a 4xx`)
          if (e.kind === 'reject' && e.status && !e.status.includes(answer.status)) problems.push(`expected ${e.status.join('|')}`)
          let code: unknown
          try {
            const body = JSON.parse(answer.body) as { error?: { code?: unknown; message?: unknown } }
            code = body.error?.code
            if (typeof body.error?.message !== 'string') problems.push('error without a message')
          } catch {
            problems.push('error body is not JSON')
          }
          if (!(answer.headers['content-type'] ?? '').startsWith('application/json')) problems.push(`content-type ${answer.headers['content-type'] ?? '(none)'}`)
          if (typeof code === 'string') {
            if (CODE_STATUS[code] === undefined) problems.push(`code ${code} is not a SPEC 8 code`)
            if (e.kind === 'reject' && e.code !== undefined && e.code !== code) problems.push(`expected code ${e.code}`)
          }
        }
      }
      if (problems.length > 0) failures.push(`${raw.name}: ${problems.join(', ')} — got ${JSON.stringify(answer.raw.slice(0, 240))}`)
    }
    // the server still answers after all of that
    const health = await rawExchange(server.port, req(['GET /api/health HTTP/1.1', `Host: 127.0.0.1:${server.port}`, 'Connection: close']))
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: '{"ok":true}' })
    expect(failures).toEqual([])
  })
})

