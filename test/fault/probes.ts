import fc from 'fast-check'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { compose } from '../../src/server/compose.ts'
import type { Host } from '../../src/host/host.ts'
import type { Session } from '../../src/host/session/session.ts'
import type { ScheduleService } from '../../src/schedule/index.ts'
import { canonicalTimeZone } from '../../src/protocol/time-zone.ts'
import { MAX_BODY_BYTES, SESSION_ID_PATTERN } from '../../src/protocol/wire.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { settle } from '../support/host-harness.ts'
import { ManualTimers } from '../support/manual-timers.ts'

/**
 * Probes for the bad-input suite: one generated HTTP request at a SPEC 8 route, plus the oracle of
 * what the app must answer, computed from SPEC 8 and 4.1 over a model of the data dir (`World`).
 */

/** The SPEC 8 routes (and the catch-all) a probe aims at. */
export type Route =
  | 'GET /api/health'
  | 'POST /api/sessions'
  | 'GET /api/sessions'
  | 'GET /api/sessions/:id'
  | 'GET /api/sessions/:id/events'
  | 'GET /api/sessions/:id/stream'
  | 'POST /api/sessions/:id/messages'
  | 'POST /api/sessions/:id/cancel'
  | 'GET /api/sessions/:id/schedules'
  | 'DELETE /api/sessions/:id/schedules/:scheduleId'
  | 'other /api paths'

/** A session id as it appears in a path: `plain` segments reach the route as written. */
export type IdPick = { segment: string; plain: boolean; cold: boolean }

/** A request body: its bytes and how it parses. */
export type BodyPick = {
  bytes: string | Uint8Array
  /** The JSON value the server will see, or `invalid` when it is not JSON. */
  parsed: { ok: true; value: unknown } | { ok: false }
  size: number
  /** Not valid UTF-8: `parsed` is its lenient (U+FFFD) decoding; the server may also refuse it with 400 bad-request. */
  badUtf8: boolean
}

/** One generated request. */
export type Probe = {
  route: Route
  method: string
  /** Path template; `{id}` is replaced by the id segment (a fresh cold session when `id.cold`). */
  path: string
  id?: IdPick
  query?: string
  headers: Record<string, string>
  hostForeign: boolean
  body?: BodyPick
  /** For create: `cold` makes the body's sessionId a fresh cold session. */
  coldSessionId?: boolean
  /** Send the body chunked (no Content-Length) over a real socket. */
  chunked: boolean
}

/** What the app must answer. */
export type Expectation =
  | { kind: 'error'; status: number; code: string; details?: Record<string, unknown> }
  | { kind: 'success'; statuses: number[] }
  | { kind: 'any' }

/** Status of every SPEC 8 error code (plus `not-found`, the app's answer for a path or method outside SPEC 8). */
export const CODE_STATUS: Record<string, number> = {
  'invalid-time-zone': 400,
  'session-conflict': 409,
  'session-not-found': 404,
  'bad-request': 400,
  'payload-too-large': 413,
  forbidden: 403,
  'not-found': 404,
  'unsupported-media-type': 415,
}

/** Zones SPEC 4.1 rejects, and more of the same kind. */
export const INVALID_ZONES: unknown[] = [
  '',
  ' UTC',
  'UTC ',
  'CST',
  'PST',
  'GMT',
  'EST',
  '+08:00',
  'UTC+8',
  'Not/A_Real_Zone',
  'America/New York',
  'Asia/Shanghai\n',
  'Europe/Berlin/',
  '../etc/passwd',
  'Etc/GMT+99',
  'A'.repeat(300),
  '\u0000',
  'Америка/Москва',
  0,
  8,
  -5.5,
  true,
  null,
  [],
  ['UTC'],
  {},
  { timeZone: 'UTC' },
]
/** Aliases SPEC 4.1 accepts and canonicalises. */
export const ALIAS_ZONES = ['US/Eastern', 'Etc/UTC', 'Asia/Calcutta', 'US/Pacific', 'Europe/Kiev', 'Asia/Saigon']
/** Canonical zones. */
export const VALID_ZONES = ['UTC', 'Asia/Shanghai', 'America/New_York', 'Europe/Paris', 'Australia/Lord_Howe', 'Asia/Kolkata']

const LOOPBACK_HOSTS = ['localhost:4280', '127.0.0.1', '[::1]:4280', 'app.localhost', 'LOCALHOST', '127.9.9.9:1']
const FOREIGN_HOSTS = ['evil.example', 'evil.example:4280', 'localhost.evil.example', '127.0.0.1.nip.io', '0.0.0.0', '10.0.0.1:4280', '[::2]', 'example.com:80']
/** Stands for the server's own origin as reached (`http://` + the Host the probe is sent with). */
export const OWN_ORIGIN = '{own}'
/** Other loopback origins: as foreign as any other (SPEC 12.3), unless they happen to be the own origin of the probe's Host. */
const LOOPBACK_ORIGINS = ['http://localhost:4280', 'http://127.0.0.1:5173', 'http://[::1]:4280', 'https://app.localhost', 'http://127.0.0.1:4280', 'http://localhost']
const FETCH_SITES = ['same-origin', 'none', 'same-site', 'cross-site', 'Same-Origin', 'navigate']
const FOREIGN_ORIGINS = ['http://evil.example', 'null', 'file://', 'https://localhost.evil.example', 'http://127.0.0.1.nip.io', 'ftp://localhost', 'garbage', 'chrome-extension://abcdef']
const CONTENT_TYPES = ['application/json', 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', '']
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'PURGE']
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Session ids in paths: existing, unknown-but-valid, too long, and odd ones that are not plain. */
const ODD_SEGMENTS = [
  '.', '..', '%2E%2E', '%2F', 'a%2Fb', 'alpha%2Fevents', '%00', 'alpha%00', '%', '%zz', '%E2%82', 'ü', '%C3%BC', '💥',
  'a%20b', 'alpha;x', 'alpha.jsonl', '..%2F..%2Fetc%2Fpasswd', '%2e%2e%2fbeta', ' alpha', 'alpha%0A', '*', '~', '$', 'a+b',
  'alpha%3Fx', 'alpha%23x', '%u0041', '\\alpha',
]

/** Ids and segments of the id parameter. */
export function idArb(): fc.Arbitrary<IdPick> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('alpha', 'beta').map((segment) => ({ segment, plain: true, cold: false })) },
    { weight: 3, arbitrary: fc.constant({ segment: '', plain: true, cold: true }) },
    { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/).map((segment) => ({ segment, plain: true, cold: false })) },
    { weight: 1, arbitrary: fc.integer({ min: 65, max: 90 }).map((n) => ({ segment: 'a'.repeat(n), plain: true, cold: false })) },
    { weight: 2, arbitrary: fc.constantFrom(...ODD_SEGMENTS).map((segment) => ({ segment, plain: false, cold: false })) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((s) => ({ segment: encodeURIComponent(s), plain: false, cold: false })) },
  )
}

/** A zone value: invalid, alias, canonical, or random of any JSON type; `undefined` leaves the key out. */
export function zoneArb(): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...INVALID_ZONES) },
    { weight: 3, arbitrary: fc.constantFrom(...ALIAS_ZONES, ...VALID_ZONES) },
    { weight: 2, arbitrary: fc.string({ maxLength: 24 }) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.object({ maxDepth: 1 }), fc.array(fc.string(), { maxLength: 3 })) },
  )
}

function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8')
}

function jsonBody(value: unknown): BodyPick {
  const bytes = JSON.stringify(value) ?? 'null'
  return { bytes, parsed: { ok: true, value: JSON.parse(bytes) as unknown }, size: utf8Length(bytes), badUtf8: false }
}

function rawBody(bytes: string): BodyPick {
  let parsed: BodyPick['parsed']
  try {
    parsed = { ok: true, value: JSON.parse(bytes) as unknown }
  } catch {
    parsed = { ok: false }
  }
  return { bytes, parsed, size: utf8Length(bytes), badUtf8: false }
}

/** Bodies that are not JSON, or JSON of the wrong shape. */
function malformedBodyArb(): fc.Arbitrary<BodyPick> {
  return fc.oneof(
    fc
      .constantFrom('', ' ', '{', '}', '{"timeZone":', '{"text":"hi",}', "{'text':'hi'}", 'null', '[]', '"text"', '42', 'true', 'NaN', '{"a":1}{"b":2}', '\u0000', '\ufeff{}', '{"__proto__":{"x":1}}', 'text=hi&clientTimeZone=UTC', '--x\r\nContent-Disposition: form-data; name="text"\r\n\r\nhi\r\n--x--')
      .map(rawBody),
    fc.string({ maxLength: 40 }).map(rawBody),
    fc.jsonValue({ maxDepth: 2 }).map(jsonBody),
    fc.constantFrom(
      Uint8Array.from([0x7b, 0x22, 0x74, 0x65, 0x78, 0x74, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      Uint8Array.from([0xc3, 0x28]),
      Uint8Array.from([0xed, 0xa0, 0x80]),
    ).map((bytes): BodyPick => ({ ...rawBody(new TextDecoder().decode(bytes)), bytes, size: bytes.length, badUtf8: true })),
  )
}

/** A body of exactly `size` bytes whose `field` is padded; other keys as given. */
function paddedBody(base: Record<string, unknown>, field: string, size: number): BodyPick {
  const empty = JSON.stringify({ ...base, [field]: '' })
  const pad = Math.max(1, size - utf8Length(empty))
  return jsonBody({ ...base, [field]: 'x'.repeat(pad) })
}

/** Bodies around and far over the 64 KiB limit. */
function sizedBodyArb(base: Record<string, unknown>, field: string): fc.Arbitrary<BodyPick> {
  return fc
    .constantFrom(MAX_BODY_BYTES - 1, MAX_BODY_BYTES, MAX_BODY_BYTES + 1, MAX_BODY_BYTES + 4096, 300_000)
    .map((size) => paddedBody(base, field, size))
}

function createBodyArb(): fc.Arbitrary<{ body: BodyPick; cold: boolean }> {
  const sessionId = fc.oneof(
    fc.constant(undefined),
    fc.constantFrom('alpha', 'beta'),
    fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/),
    fc.constantFrom('', 'a'.repeat(65), 'a/b', '..', 'ü', 'alpha ', 'ALPHA.jsonl', '%2F'),
    fc.oneof(fc.integer(), fc.constant(null), fc.boolean()),
  )
  const object = fc.record(
    { timeZone: zoneArb(), sessionId, extra: fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.string({ maxLength: 5 })) },
    { requiredKeys: [] },
  )
  const toBody = (value: { timeZone?: unknown; sessionId?: unknown; extra?: unknown }): Record<string, unknown> => {
    const out: Record<string, unknown> = {}
    if (value.timeZone !== undefined) out.timeZone = value.timeZone
    if (value.sessionId !== undefined) out.sessionId = value.sessionId
    if (value.extra !== undefined) out.extra = value.extra
    return out
  }
  return fc.oneof(
    { weight: 6, arbitrary: object.map((value) => ({ body: jsonBody(toBody(value)), cold: false })) },
    {
      weight: 4,
      arbitrary: fc
        .record({ timeZone: fc.constantFrom(...ALIAS_ZONES, ...VALID_ZONES), sessionId: fc.oneof(fc.constantFrom('alpha', 'beta'), fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/)) })
        .map((value) => ({ body: jsonBody(value), cold: false })),
    },
    {
      weight: 2,
      arbitrary: zoneArb().map((timeZone) => ({ body: jsonBody(timeZone === undefined ? {} : { timeZone }), cold: true })),
    },
    { weight: 2, arbitrary: malformedBodyArb().map((body) => ({ body, cold: false })) },
    { weight: 1, arbitrary: sizedBodyArb({ timeZone: 'UTC' }, 'sessionId').map((body) => ({ body, cold: false })) },
  )
}

function messageBodyArb(): fc.Arbitrary<BodyPick> {
  const text = fc.oneof(
    fc.constantFrom('', ' ', '\n\t', 'hello', 'what time is it?', '/compact', 'list reminders', 'ü 💥 \u0000'),
    fc.string({ maxLength: 30 }),
    fc.oneof(fc.integer(), fc.constant(null), fc.array(fc.string(), { maxLength: 2 }), fc.constant({ text: 'hi' })),
    fc.constant(undefined),
  )
  const mode = fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.constantFrom('queue', 'steer', 'QUEUE', '', ' steer', 'next-step'), fc.integer(), fc.constant(null))
  const object = fc.record(
    { text, clientTimeZone: zoneArb(), mode, extra: fc.oneof(fc.constant(undefined), fc.constant(undefined), fc.constant(undefined), fc.string({ maxLength: 5 })) },
    { requiredKeys: [] },
  )
  return fc.oneof(
    {
      weight: 6,
      arbitrary: object.map((value) => {
        const out: Record<string, unknown> = {}
        for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = v
        return jsonBody(out)
      }),
    },
    {
      weight: 4,
      arbitrary: fc
        .record({ text: fc.string({ minLength: 1, maxLength: 30 }).filter((t) => t.trim() !== '' && t.trim() !== '/compact'), clientTimeZone: fc.constantFrom(...ALIAS_ZONES, ...VALID_ZONES), mode: fc.constantFrom('queue', 'steer') })
        .map(jsonBody),
    },
    { weight: 2, arbitrary: malformedBodyArb() },
    { weight: 1, arbitrary: fc.constantFrom('UTC', 'Not/A_Real_Zone').chain((zone) => sizedBodyArb({ clientTimeZone: zone }, 'text')) },
  )
}

const AFTER_VALUES = ['0', '-1', '3', '999999999999999', '-999999999999999', '9999999999999999', '', 'abc', '1.5', '1e3', ' 1', '0x10', '-0', '+1', '１', '%', '1,2']

/** Every generated probe, tagged by route. */
export function probeArb(): fc.Arbitrary<Probe> {
  const method = (correct: string): fc.Arbitrary<string> =>
    fc.oneof({ weight: 6, arbitrary: fc.constant(correct) }, { weight: 1, arbitrary: fc.constantFrom(...OTHER_METHODS) })
  const headers = fc.record({
    host: fc.oneof(
      { weight: 8, arbitrary: fc.constant<string | null>(null) },
      { weight: 1, arbitrary: fc.constantFrom(...LOOPBACK_HOSTS) },
      { weight: 1, arbitrary: fc.constantFrom(...FOREIGN_HOSTS) },
    ),
    origin: fc.oneof(
      { weight: 6, arbitrary: fc.constant<string | null>(null) },
      { weight: 2, arbitrary: fc.constant(OWN_ORIGIN) },
      { weight: 1, arbitrary: fc.constantFrom(...LOOPBACK_ORIGINS) },
      { weight: 1, arbitrary: fc.constantFrom(...FOREIGN_ORIGINS) },
    ),
    fetchSite: fc.oneof({ weight: 8, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom(...FETCH_SITES) }),
    contentType: fc.oneof({ weight: 3, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) }),
    lastEventId: fc.oneof({ weight: 3, arbitrary: fc.constant<string | null>(null) }, { weight: 1, arbitrary: fc.constantFrom(...AFTER_VALUES) }),
    chunked: fc.boolean(),
  })
  type Parts = { route: Route; method: string; path: string; id?: IdPick; query?: string; body?: BodyPick; coldSessionId?: boolean }
  const parts: fc.Arbitrary<Parts> = fc.oneof(
    method('GET').map((m): Parts => ({ route: 'GET /api/health', method: m, path: '/api/health' })),
    fc.tuple(method('POST'), createBodyArb()).map(([m, b]): Parts => ({ route: 'POST /api/sessions', method: m, path: '/api/sessions', body: b.body, coldSessionId: b.cold })),
    method('GET').map((m): Parts => ({ route: 'GET /api/sessions', method: m, path: '/api/sessions' })),
    fc.tuple(method('GET'), idArb()).map(([m, id]): Parts => ({ route: 'GET /api/sessions/:id', method: m, path: '/api/sessions/{id}', id })),
    fc
      .tuple(method('GET'), idArb(), fc.option(fc.constantFrom(...AFTER_VALUES), { nil: undefined }))
      .map(([m, id, after]): Parts => ({
        route: 'GET /api/sessions/:id/events',
        method: m,
        path: '/api/sessions/{id}/events',
        id,
        ...(after === undefined ? {} : { query: `after=${encodeURIComponent(after)}` }),
      })),
    fc
      .tuple(fc.oneof({ weight: 8, arbitrary: fc.constant('GET') }, { weight: 1, arbitrary: fc.constantFrom('HEAD', 'POST', 'PUT', 'DELETE') }), idArb(), fc.option(fc.constantFrom(...AFTER_VALUES), { nil: undefined }))
      .map(([m, id, after]): Parts => ({
        route: 'GET /api/sessions/:id/stream',
        method: m,
        path: '/api/sessions/{id}/stream',
        id,
        ...(after === undefined ? {} : { query: `after=${encodeURIComponent(after)}` }),
      })),
    fc.tuple(method('POST'), idArb(), messageBodyArb()).map(([m, id, body]): Parts => ({ route: 'POST /api/sessions/:id/messages', method: m, path: '/api/sessions/{id}/messages', id, body })),
    fc
      .tuple(method('POST'), idArb(), fc.option(malformedBodyArb(), { nil: undefined }))
      .map(([m, id, body]): Parts => ({ route: 'POST /api/sessions/:id/cancel', method: m, path: '/api/sessions/{id}/cancel', id, ...(body ? { body } : {}) })),
    fc.tuple(method('GET'), idArb()).map(([m, id]): Parts => ({ route: 'GET /api/sessions/:id/schedules', method: m, path: '/api/sessions/{id}/schedules', id })),
    fc
      .tuple(method('DELETE'), idArb(), fc.oneof(fc.constantFrom('schedule-1', 'schedule-2', 'schedule-0', 'x', '..', '%2F', 'schedule-1%00', 'a'.repeat(200), '%E2%82'), fc.string({ minLength: 1, maxLength: 10 }).map(encodeURIComponent)))
      .map(([m, id, scheduleId]): Parts => ({
        route: 'DELETE /api/sessions/:id/schedules/:scheduleId',
        method: m,
        path: `/api/sessions/{id}/schedules/${scheduleId}`,
        // a scheduleId with dots or escapes may change which route the path reaches
        id: /^[A-Za-z0-9_-]+$/.test(scheduleId) ? id : { ...id, plain: false },
      })),
    fc
      .tuple(
        fc.constantFrom(...OTHER_METHODS),
        fc.oneof(
          fc.constantFrom('/api', '/api/', '/api/sessions/', '/api/sessions/alpha/', '/api/sessions/alpha/events/1', '/api/health/x', '/api/sessions//events', '/API/health', '/api/%2e%2e/health', '/api/sessions/alpha/../beta', '/api/..%2f..%2fetc%2fpasswd', '/api/sessions/alpha/schedules', '/api/sessions/alpha/schedules/', '/api/sessions/alpha/schedules/schedule-1/x', '/api/sessions/alpha/messages/x', '/api/nope?x=%'),
          fc.string({ maxLength: 12 }).map((s) => `/api/${encodeURIComponent(s)}`),
        ),
      )
      .map(([m, path]): Parts => ({ route: 'other /api paths', method: m, path })),
  )
  return fc.tuple(parts, headers).map(([p, h]): Probe => {
    const out: Record<string, string> = {}
    if (h.host !== null) out.host = h.host
    if (h.origin !== null) out.origin = h.origin
    if (h.fetchSite !== null) out['sec-fetch-site'] = h.fetchSite
    if (h.lastEventId !== null && p.route === 'GET /api/sessions/:id/stream') out['last-event-id'] = h.lastEventId
    const hasBody = p.body !== undefined && p.method !== 'GET' && p.method !== 'HEAD'
    if (hasBody && h.contentType !== '') out['content-type'] = h.contentType
    return {
      route: p.route,
      method: p.method,
      path: p.path,
      ...(p.id ? { id: p.id } : {}),
      ...(p.query === undefined ? {} : { query: p.query }),
      headers: out,
      hostForeign: h.host !== null && FOREIGN_HOSTS.includes(h.host),
      ...(hasBody && p.body ? { body: p.body } : {}),
      ...(p.coldSessionId ? { coldSessionId: true } : {}),
      chunked: h.chunked,
    }
  })
}

/** A probe made concrete for one send. */
export type Concrete = { path: string; headers: Record<string, string>; ownOrigin: string; body?: BodyPick; id?: string; coldId?: string }

/** The data dir as the oracle sees it, plus the host behind the app. */
export class World {
  /** Session id → canonical zone (null: headerless). */
  readonly zones = new Map<string, string | null>()
  readonly opened = new Set<Session>()
  readonly logs: string[] = []
  private colds = 0

  private constructor(
    readonly dataDir: string,
    readonly host: Host,
    readonly schedules: ScheduleService,
    readonly clock: FakeClock,
  ) {}

  /** A composed host (time-context, invariant, Schedule; offline model; fake clock; manual timers) on dataDir with sessions alpha (Asia/Shanghai, one reminder) and beta (headerless). */
  static async create(dataDir: string): Promise<World> {
    const clock = new FakeClock()
    const logs: string[] = []
    const { host, schedules } = await compose({ dataDir, model: 'offline', clock, timers: new ManualTimers(), log: (line) => logs.push(line) })
    const world = new World(dataDir, host, schedules, clock)
    host.onSessionOpened((session) => world.opened.add(session))
    await host.createSession({ id: 'alpha', timeZone: 'Asia/Shanghai' })
    await host.send('alpha', { text: 'remind me in 3600 seconds to water the plants', clientTimeZone: 'Asia/Shanghai' })
    await host.createSession({ id: 'beta' })
    world.zones.set('alpha', 'Asia/Shanghai')
    world.zones.set('beta', null)
    await world.quiesce()
    return world
  }

  /** Waits until no open session runs or has queued work. */
  async quiesce(): Promise<void> {
    for (let round = 0; round < 3; round++) {
      for (const session of [...this.opened]) await settle(session)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }

  /**
   * Writes a fresh cold session (never opened; Europe/Paris; a turn left open by a crash, so that
   * any open of it writes its recovery) and returns its id.
   */
  async coldSession(): Promise<string> {
    const id = `cold-${++this.colds}`
    const header = { type: 'session', version: 1, id, createdAt: this.clock.now(), timeZone: 'Europe/Paris' }
    const turn = { seq: 0, time: this.clock.now(), type: 'turn/start', data: { turn: 1 } }
    await writeFile(join(this.dataDir, 'sessions', `${id}.jsonl`), `${JSON.stringify(header)}\n${JSON.stringify(turn)}\n`)
    this.zones.set(id, 'Europe/Paris')
    return id
  }

  /**
   * Fills the probe's placeholders (fresh cold sessions, the own origin of the Host it is sent with,
   * `defaultHost` when it names none); returns the concrete path, headers and body.
   */
  async materialize(probe: Probe, defaultHost: string): Promise<Concrete> {
    let id: string | undefined
    let coldId: string | undefined
    if (probe.id) {
      id = probe.id.cold ? await this.coldSession() : probe.id.segment
      if (probe.id.cold) coldId = id
    }
    let body = probe.body
    if (probe.coldSessionId && body?.parsed.ok) {
      coldId = await this.coldSession()
      body = jsonBody({ ...(body.parsed.value as Record<string, unknown>), sessionId: coldId })
    }
    const path = probe.path.replace('{id}', id ?? '') + (probe.query === undefined ? '' : `?${probe.query}`)
    const ownOrigin = `http://${(probe.headers.host ?? defaultHost).toLowerCase().replace(/:80$/, '')}`
    const headers = { ...probe.headers }
    if (headers.origin === OWN_ORIGIN) headers.origin = ownOrigin
    return { path, headers, ownOrigin, ...(body ? { body } : {}), ...(id === undefined ? {} : { id }), ...(coldId === undefined ? {} : { coldId }) }
  }

  /** Records the effect of an accepted request on the model. */
  accepted(probe: Probe, body: BodyPick | undefined, status: number): void {
    if (probe.route === 'POST /api/sessions' && probe.method === 'POST' && (status === 201 || status === 200) && body?.parsed.ok) {
      const value = body.parsed.value as { sessionId?: string; timeZone?: unknown }
      if (typeof value.sessionId === 'string' && !this.zones.has(value.sessionId)) {
        this.zones.set(value.sessionId, canonicalTimeZone(value.timeZone))
      }
    }
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function error(status: number, code: string, details?: Record<string, unknown>): Expectation {
  return { kind: 'error', status, code, ...(details ? { details } : {}) }
}

const notFound = (): Expectation => error(404, 'not-found')
const sessionNotFound = (): Expectation => error(404, 'session-not-found')
const badRequest = (): Expectation => error(400, 'bad-request')
const unsupportedMediaType = (): Expectation => error(415, 'unsupported-media-type')

function isJsonType(value: string | undefined): boolean {
  return value !== undefined && value.split(';')[0]?.trim().toLowerCase() === 'application/json'
}

/** What SPEC 8 says the app answers to a probe (given the world before it). */
export function expectation(probe: Probe, world: World, concrete: Pick<Concrete, 'body' | 'id' | 'headers' | 'ownOrigin'>): Expectation {
  const { method } = probe
  const writes = !SAFE_METHODS.has(method)
  if (probe.hostForeign) return error(403, 'forbidden')
  const fetchSite = concrete.headers['sec-fetch-site']
  if (fetchSite !== undefined && fetchSite !== 'same-origin' && fetchSite !== 'none') return error(403, 'forbidden')
  const origin = concrete.headers.origin
  if (writes && origin !== undefined && origin !== concrete.ownOrigin) return error(403, 'forbidden')
  const contentType = concrete.headers['content-type']
  if (writes && contentType !== undefined && !isJsonType(contentType)) return unsupportedMediaType()
  const body = concrete.body
  if (body && body.size > MAX_BODY_BYTES) return error(413, 'payload-too-large')
  const json = isJsonType(contentType)
  const get = method === 'GET' || method === 'HEAD'
  const idState = (): 'bad' | 'unknown' | 'known' | 'odd' => {
    if (!probe.id) return 'odd'
    if (!probe.id.plain) return 'odd'
    const id = concrete.id ?? ''
    if (!SESSION_ID_PATTERN.test(id)) return 'bad'
    return world.zones.has(id) ? 'known' : 'unknown'
  }
  switch (probe.route) {
    case 'GET /api/health':
      return get ? { kind: 'success', statuses: [200] } : notFound()
    case 'GET /api/sessions':
      return get ? { kind: 'success', statuses: [200] } : method === 'POST' ? { kind: 'any' } : notFound()
    case 'POST /api/sessions': {
      if (get) return { kind: 'success', statuses: [200] }
      if (method !== 'POST') return notFound()
      if (!json) return unsupportedMediaType()
      if (!body || !body.parsed.ok) return badRequest()
      const value = body.parsed.value
      if (!isPlainObject(value)) return badRequest()
      if (Object.keys(value).some((k) => k !== 'timeZone' && k !== 'sessionId')) return badRequest()
      if ('sessionId' in value && (typeof value.sessionId !== 'string' || !SESSION_ID_PATTERN.test(value.sessionId))) return badRequest()
      const zone = canonicalTimeZone(value.timeZone)
      if (zone === null) {
        return error(400, 'invalid-time-zone', { field: 'timeZone', value: value.timeZone === undefined ? null : value.timeZone })
      }
      if (typeof value.sessionId !== 'string' || !world.zones.has(value.sessionId)) return { kind: 'success', statuses: [201] }
      const existing = world.zones.get(value.sessionId) ?? null
      if (existing === zone) return { kind: 'success', statuses: [200] }
      return error(409, 'session-conflict', { sessionId: value.sessionId, requestedTimeZone: zone, existingTimeZone: existing })
    }
    case 'GET /api/sessions/:id':
    case 'GET /api/sessions/:id/schedules':
    case 'POST /api/sessions/:id/cancel': {
      const wanted = probe.route === 'POST /api/sessions/:id/cancel' ? 'POST' : 'GET'
      const state = idState()
      if (state === 'odd') return { kind: 'any' }
      if (probe.route === 'GET /api/sessions/:id/schedules' && method === 'POST') return { kind: 'any' }
      // PATCH /api/sessions/:id renames (SPEC 8 v2): a route of its own with its own body rules
      if (probe.route === 'GET /api/sessions/:id' && method === 'PATCH') return { kind: 'any' }
      if (wanted === 'GET' ? !get : method !== 'POST') return notFound()
      if (state !== 'known') return sessionNotFound()
      return { kind: 'success', statuses: [wanted === 'POST' ? 202 : 200] }
    }
    case 'DELETE /api/sessions/:id/schedules/:scheduleId': {
      const state = idState()
      if (state === 'odd') return { kind: 'any' }
      if (method !== 'DELETE') return { kind: 'any' }
      if (state !== 'known') return sessionNotFound()
      return { kind: 'any' }
    }
    case 'GET /api/sessions/:id/events':
    case 'GET /api/sessions/:id/stream': {
      const state = idState()
      if (state === 'odd') return { kind: 'any' }
      if (!get) return notFound()
      if (state === 'bad') return sessionNotFound()
      const params = new URLSearchParams(probe.query ?? '')
      const after = params.get('after') ?? undefined
      const cursor = probe.route === 'GET /api/sessions/:id/stream' ? (probe.headers['last-event-id'] ?? after) : after
      const bad =
        probe.route === 'GET /api/sessions/:id/stream'
          ? cursor !== undefined && cursor !== '' && !/^-?\d{1,15}$/.test(cursor)
          : cursor !== undefined && (!/^-?\d{1,15}$/.test(cursor) || Number(cursor) < -1)
      if (bad) return badRequest()
      if (state !== 'known') return sessionNotFound()
      return { kind: 'success', statuses: [200] }
    }
    case 'POST /api/sessions/:id/messages': {
      const state = idState()
      if (state === 'odd') return { kind: 'any' }
      if (method !== 'POST') return get ? { kind: 'any' } : notFound()
      if (state === 'bad') return sessionNotFound()
      if (!json) return unsupportedMediaType()
      if (!body || !body.parsed.ok) return badRequest()
      const value = body.parsed.value
      if (!isPlainObject(value)) return badRequest()
      if (Object.keys(value).some((k) => k !== 'text' && k !== 'clientTimeZone' && k !== 'mode')) return badRequest()
      if (typeof value.text !== 'string' || value.text.trim().length === 0) return badRequest()
      if ('mode' in value && value.mode !== 'queue' && value.mode !== 'steer') return badRequest()
      if (canonicalTimeZone(value.clientTimeZone) === null) {
        return error(400, 'invalid-time-zone', { field: 'clientTimeZone', value: value.clientTimeZone === undefined ? null : value.clientTimeZone })
      }
      if (state !== 'known') return sessionNotFound()
      return { kind: 'success', statuses: [202] }
    }
    case 'other /api paths':
      return { kind: 'any' }
    default: {
      const never: never = probe.route
      throw new Error(`unknown route ${String(never)}`)
    }
  }
}

/** A response as the suite sees it. */
export type Answer = { status: number; contentType: string; text: string; stream: boolean }

/** Problems with an answer (empty when it is acceptable): never 5xx; errors are SPEC 8 JSON; the oracle holds. */
export function judge(probe: Probe, expectedByOracle: Expectation, answer: Answer, path: string): string[] {
  const problems: string[] = []
  // outside /api (e.g. `/API/health`) is the overlay's ground: only "never 5xx" applies there
  const pathname = new URL(path, 'http://127.0.0.1').pathname
  if (pathname !== '/api' && !pathname.startsWith('/api/')) return answer.status >= 500 ? [`answered ${answer.status}`] : []
  // a body that is not UTF-8 may also be refused as malformed
  const refusedAsMalformed = probe.body?.badUtf8 === true && answer.status === 400 && answer.text.includes('"bad-request"')
  const expected: Expectation = refusedAsMalformed ? error(400, 'bad-request') : expectedByOracle
  const { status } = answer
  if (status >= 500) problems.push(`answered ${status}`)
  if (status < 200 || (status >= 300 && status < 400)) problems.push(`answered ${status}`)
  const head = probe.method === 'HEAD'
  if (status >= 400 && !head) {
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      problems.push(`error body is not JSON: ${JSON.stringify(answer.text.slice(0, 120))}`)
    }
    if (!answer.contentType.startsWith('application/json')) problems.push(`error content-type ${answer.contentType}`)
    if (body !== undefined) {
      const ok =
        isPlainObject(body) &&
        Object.keys(body).length === 1 &&
        isPlainObject(body.error) &&
        Object.keys(body.error).every((k) => k === 'code' || k === 'message' || k === 'details') &&
        typeof body.error.code === 'string' &&
        typeof body.error.message === 'string' &&
        body.error.message.length > 0 &&
        (body.error.details === undefined || isPlainObject(body.error.details))
      if (!ok) problems.push(`error body has the wrong shape: ${answer.text.slice(0, 200)}`)
      else {
        const err = (body as { error: { code: string; details?: Record<string, unknown> } }).error
        if (CODE_STATUS[err.code] === undefined) problems.push(`code ${err.code} is not a SPEC 8 code`)
        else if (CODE_STATUS[err.code] !== status) problems.push(`code ${err.code} answered with ${status}`)
        if (expected.kind === 'error') {
          if (expected.code !== err.code || expected.status !== status) problems.push(`expected ${expected.status} ${expected.code}, got ${status} ${err.code}`)
          if (expected.details && JSON.stringify(expected.details) !== JSON.stringify(err.details)) {
            problems.push(`expected details ${JSON.stringify(expected.details)}, got ${JSON.stringify(err.details)}`)
          }
        }
      }
    }
  }
  if (status >= 400 && head && expected.kind === 'error' && expected.status !== status) problems.push(`expected ${expected.status}, got ${status}`)
  if (status < 400) {
    if (expected.kind === 'error') problems.push(`expected ${expected.status} ${expected.code}, got ${status}`)
    if (expected.kind === 'success' && !expected.statuses.includes(status)) problems.push(`expected ${expected.statuses.join('|')}, got ${status}`)
  }
  if (status >= 400 && expected.kind === 'success') problems.push(`expected ${expected.statuses.join('|')}, got ${status} ${answer.text.slice(0, 200)}`)
  return problems
}

/** Human-readable summary of a probe for failure messages. */
export function describeProbe(probe: Probe, concrete: { path: string; headers: Record<string, string>; body?: BodyPick }): string {
  const body = concrete.body
  const shown = body === undefined ? '' : typeof body.bytes === 'string' ? body.bytes.slice(0, 160) : `<${body.bytes.length} raw bytes>`
  return `${probe.method} ${concrete.path} ${JSON.stringify(concrete.headers)} ${shown}${body && body.size > 160 ? `… (${body.size} bytes)` : ''}`
}
