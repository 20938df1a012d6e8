import { Hono, type Context } from 'hono'
import type { ZodType } from 'zod'
import { HTTPException } from 'hono/http-exception'
import { canonicalTimeZone, utcOffsetMinutes } from '../protocol/index.ts'
import {
  createSessionBody,
  MAX_BODY_BYTES,
  SESSION_ID_PATTERN,
  renameSessionBody,
  sendMessageBody,
  snoozeBody,
} from '../protocol/index.ts'
import { randomId, type Host } from '../host/index.ts'
import { ApiError, errorResponse, scheduleApiError, toApiError } from './api-error.ts'
import { bodyText, boundedBody, jsonBodiesOnly, jsonDepth, MAX_JSON_DEPTH, requireJsonBody } from './json-body.ts'
import { serveSse } from './sse.ts'
import { pumpNotices, pumpSession, watchNotices } from './streams.ts'
import { summarize } from './summary.ts'
import { security, type SecurityOptions } from './security.ts'
import { noStore, securityHeaders } from './security-headers.ts'
import { createArgsSchema, updateArgsSchema, type ScheduleService } from '../schedule/index.ts'
import type { ScheduleErrorCode } from '../protocol/index.ts'
import type { ScheduleAnswer } from './schedule-commands.ts'

const updateBody = updateArgsSchema.omit({ id: true })
const SHAPE_ISSUES = new Set<string>(['invalid_type', 'unrecognized_keys', 'invalid_union'])

/** What the HTTP app is built from. */
export type AppDeps = {
  host: Host
  schedules?: ScheduleService
  security?: SecurityOptions
  /** Serves everything that is not /api (the overlay). */
  staticHandler?: (c: Context) => Promise<Response>
  /** Interval of SSE keep-alive comments. */
  heartbeatMs?: number
}

/** The strict bodies, built once (zod compiles a schema when it is made, not per request). */
const CREATE_SESSION = createSessionBody.strict()
const RENAME_SESSION = renameSessionBody.strict()
const SEND_MESSAGE = sendMessageBody.strict()

const DEFAULT_SESSION_PAGE = 50
const MAX_SESSION_PAGE = 500
const DEFAULT_EVENT_PAGE = 500
const MAX_EVENT_PAGE = 5000
/** A path of the API, also under extra leading slashes (`//api/health`), or `/api` itself. */
const API_SPELLING = /^\/+api(?:\/|$)/
const SESSION_CURSOR_PATTERN = /^\d{1,16}:[A-Za-z0-9_-]{1,64}$/

/** A query parameter given at most once (a repeated one is refused rather than one of its values guessed at). */
function queryParam(c: Context, name: string): string | undefined {
  const values = c.req.queries(name)
  if (values !== undefined && values.length > 1) throw new ApiError('bad-request', `${name} must be given at most once`)
  return values?.[0]
}

function intParam(c: Context, name: string, bounds: { min: number; max: number; fallback: number }): number {
  const raw = queryParam(c, name)
  if (raw === undefined) return bounds.fallback
  if (!/^\d{1,6}$/.test(raw) || Number(raw) < bounds.min || Number(raw) > bounds.max) {
    throw new ApiError('bad-request', `${name} must be an integer from ${bounds.min} to ${bounds.max}`)
  }
  return Number(raw)
}

/**
 * Where a stream resumes from: the `Last-Event-ID` header when sent (an empty one: from the end), else `?after=`, with
 * the name of the one it came in (for errors); null for neither.
 */
function streamCursor(c: Context): { value: string; from: 'Last-Event-ID' | 'after' } | null {
  const header = c.req.header('last-event-id')
  const [value, from] = header !== undefined ? [header, 'Last-Event-ID' as const] : [queryParam(c, 'after'), 'after' as const]
  return value === undefined || value === '' ? null : { value, from }
}

function seqParam(c: Context, name: string, min: number): number | undefined {
  const raw = queryParam(c, name)
  if (raw === undefined) return undefined
  if (!/^-?\d{1,15}$/.test(raw) || Number(raw) < min) throw new ApiError('bad-request', `${name} must be an integer seq of at least ${min}`)
  return Number(raw)
}

async function readJson(c: Context): Promise<unknown> {
  requireJsonBody(c)
  const text = await bodyText(c)
  // a value nested thousands deep would overflow the stack of every reader after the parser (and of the error's own echo)
  if (jsonDepth(text, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) throw new ApiError('bad-request', `request body nests arrays or objects more than ${MAX_JSON_DEPTH} deep`)
  try {
    return JSON.parse(text) as unknown
  } catch {
    throw new ApiError('bad-request', 'request body is not valid JSON')
  }
}

function zoneOrThrow(value: unknown, field: 'timeZone' | 'clientTimeZone'): string {
  const zone = canonicalTimeZone(value)
  if (zone === null) {
    throw new ApiError('invalid-time-zone', `${field} must be a valid IANA time zone`, {
      field,
      value: value === undefined ? null : value,
    })
  }
  return zone
}

/** An `Idempotency-Key` (IETF httpapi draft: a structured-field string, so quoted; a bare token is taken too). */
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_.:~+/=-]{1,128}$/

function idempotencyKey(c: Context): string | undefined {
  const raw = c.req.header('idempotency-key')
  if (raw === undefined) return undefined
  const value = raw.trim()
  const key = /^"(.*)"$/.exec(value)?.[1] ?? value
  if (!IDEMPOTENCY_KEY.test(key)) throw new ApiError('bad-request', 'Idempotency-Key must be 1 to 128 letters, digits or - _ . : ~ + / =')
  return key
}

function sessionIdParam(c: Context): string {
  const id = c.req.param('id') ?? ''
  if (!SESSION_ID_PATTERN.test(id)) throw new ApiError('session-not-found', `session ${JSON.stringify(id)} does not exist`, { sessionId: id })
  return id
}

function firstIssue(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  const issue = error.issues[0]
  return issue ? `${issue.path.map(String).join('.') || 'body'}: ${issue.message}` : 'invalid body'
}

/** Builds the Hono app of SPEC 8 (plus static overlay when given). */
export function createApp(deps: AppDeps): Hono {
  const { host } = deps
  const app = new Hono()
  const heartbeatMs = deps.heartbeatMs ?? 15_000
  const clock = host.clock
  const notices = watchNotices(host)

  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse()
    const apiError = toApiError(error)
    if (apiError.status === 500) console.error(`request ${c.req.method} ${c.req.path} failed:`, error)
    if (apiError.code === 'storage-unavailable') c.header('Retry-After', String(apiError.details?.retryAfterSeconds ?? 1))
    return errorResponse(c, apiError)
  })
  app.use('*', securityHeaders())
  app.use('/api/*', noStore())
  app.use('*', security(deps.security ?? {}))
  app.use('/api/*', jsonBodiesOnly())
  app.use(
    '/api/*',
    boundedBody(MAX_BODY_BYTES, (c) => errorResponse(c, new ApiError('payload-too-large', `request body exceeds ${MAX_BODY_BYTES} bytes`))),
  )

  app.get('/api/health', (c) => c.json({ ok: true }))

  app.post('/api/sessions', async (c) => {
    const parsed = CREATE_SESSION.safeParse(await readJson(c))
    if (!parsed.success) {
      throw new ApiError('bad-request', firstIssue(parsed.error))
    }
    const timeZone = zoneOrThrow(parsed.data.timeZone, 'timeZone')
    const { session, created } = await host.createSession({ id: parsed.data.sessionId, timeZone })
    return c.json({ session: summarize(await host.describe(session.id)) }, created ? 201 : 200)
  })

  app.get('/api/sessions', async (c) => {
    const limit = intParam(c, 'limit', { min: 1, max: MAX_SESSION_PAGE, fallback: DEFAULT_SESSION_PAGE })
    const before = queryParam(c, 'before')
    if (before !== undefined && !SESSION_CURSOR_PATTERN.test(before)) throw new ApiError('bad-request', 'before must be a cursor from nextCursor')
    const page = await host.listSessions({ limit, ...(before === undefined ? {} : { before }) })
    return c.json({ sessions: page.sessions.map(summarize), nextCursor: page.nextCursor })
  })

  app.get('/api/sessions/:id', async (c) => {
    return c.json({ session: summarize(await host.describe(sessionIdParam(c))) })
  })

  app.patch('/api/sessions/:id', async (c) => {
    const id = sessionIdParam(c)
    const parsed = RENAME_SESSION.safeParse(await readJson(c))
    if (!parsed.success) throw new ApiError('bad-request', firstIssue(parsed.error))
    await host.rename(id, parsed.data.title)
    return c.json({ session: summarize(await host.describe(id)) })
  })

  app.get('/api/sessions/:id/events', async (c) => {
    const id = sessionIdParam(c)
    const limit = intParam(c, 'limit', { min: 1, max: MAX_EVENT_PAGE, fallback: DEFAULT_EVENT_PAGE })
    const after = seqParam(c, 'after', -1)
    const before = seqParam(c, 'before', 0)
    if (after !== undefined && before !== undefined) throw new ApiError('bad-request', 'give after or before, not both')
    const range = { limit, ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) }
    const { header, page } = await host.readEvents(id, range)
    return c.json({
      header,
      events: page.events,
      firstSeq: page.events[0]?.seq ?? null,
      lastSeq: page.events.at(-1)?.seq ?? null,
      eventCount: page.eventCount,
    })
  })

  app.get('/api/sessions/:id/stream', async (c) => {
    const id = sessionIdParam(c)
    const resume = streamCursor(c)
    let cursor: number | null = null
    if (resume !== null) {
      if (!/^-?\d{1,15}$/.test(resume.value)) throw new ApiError('bad-request', `${resume.from} must be an integer seq`)
      cursor = Math.max(-1, Number(resume.value))
    }
    const feed = await host.feed(id)
    const start = Math.min(cursor ?? feed.length - 1, feed.length - 1)
    // HEAD never reads the body: a stream started for it would never be cancelled, so never start one
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' })
    return serveSse(c, {}, (sink) => pumpSession(sink, feed, start, heartbeatMs))
  })

  app.get('/api/stream', (c) => {
    const resume = streamCursor(c)
    let cursor = notices.last
    if (resume !== null) {
      if (!/^\d{1,16}$/.test(resume.value) || !Number.isSafeInteger(Number(resume.value))) throw new ApiError('bad-request', `${resume.from} must be a notice cursor`)
      cursor = Math.min(Number(resume.value), notices.last)
    }
    if (c.req.method === 'HEAD') return c.body(null, 200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' })
    return serveSse(c, {}, (sink) => pumpNotices(sink, notices, cursor, heartbeatMs))
  })

  app.get('/api/time', (c) => {
    const now = clock.now()
    const zones = c.req.queries('zone') ?? []
    if (zones.length === 0) return c.json({ now })
    const timeZones: Record<string, number> = {}
    for (const value of zones.slice(0, 16)) {
      const zone = canonicalTimeZone(value)
      if (zone === null) throw new ApiError('invalid-time-zone', 'zone must be a valid IANA time zone', { field: 'zone', value })
      timeZones[value] = utcOffsetMinutes(zone, now)
    }
    return c.json({ now, timeZones })
  })

  app.post('/api/sessions/:id/messages', async (c) => {
    const id = sessionIdParam(c)
    const key = idempotencyKey(c)
    const parsed = SEND_MESSAGE.safeParse(await readJson(c))
    if (!parsed.success) throw new ApiError('bad-request', firstIssue(parsed.error))
    const clientTimeZone = zoneOrThrow(parsed.data.clientTimeZone, 'clientTimeZone')
    if (parsed.data.text.trim() === '/compact') {
      const { messageId } = await host.compact(id)
      return c.json({ rpcId: randomId('rpc-'), messageId: messageId ?? randomId('compact-') }, 202)
    }
    const result = await host.send(id, { text: parsed.data.text, clientTimeZone, mode: parsed.data.mode, ...(key === undefined ? {} : { idempotencyKey: key }) })
    return c.json(result, 202)
  })

  app.post('/api/sessions/:id/cancel', async (c) => {
    await host.cancel(sessionIdParam(c))
    return c.json({}, 202)
  })

  app.get('/api/sessions/:id/schedules', async (c) => {
    const id = sessionIdParam(c)
    const schedules = deps.schedules ? await host.command(id, 'schedule.list', null) : (await host.describe(id), [])
    return c.json({ schedules })
  })

  const schedules = (): ScheduleService => {
    if (!deps.schedules) throw new ApiError('not-found', 'reminders are not available on this server')
    return deps.schedules
  }
  const scheduleAnswer = (c: Context, result: ScheduleAnswer, status: 200 | 201): Response => {
    if (!result.ok) throw scheduleApiError({ ...result.error, code: result.error.code as ScheduleErrorCode })
    return c.json({ schedule: result.view }, status)
  }
  /** Decodes a body with its zod schema: shape and type problems are 400; with `domainRanges`, range and value problems are left to the Schedule domain (422). */
  const bodyObject = async (c: Context, schema: ZodType, domainRanges: boolean): Promise<Record<string, unknown>> => {
    const body = await readJson(c)
    const parsed = schema.safeParse(body)
    if (parsed.success) return body as Record<string, unknown>
    const shape = parsed.error.issues.filter((issue) => !domainRanges || SHAPE_ISSUES.has(issue.code))
    if (shape.length > 0) throw new ApiError('bad-request', firstIssue({ issues: shape }))
    return body as Record<string, unknown>
  }

  app.post('/api/sessions/:id/schedules', async (c) => {
    const id = sessionIdParam(c)
    const key = idempotencyKey(c)
    const body = await bodyObject(c, createArgsSchema, true)
    schedules()
    return scheduleAnswer(c, (await host.command(id, 'schedule.create', { fields: body, key })) as ScheduleAnswer, 201)
  })

  app.patch('/api/sessions/:id/schedules/:scheduleId', async (c) => {
    const id = sessionIdParam(c)
    const key = idempotencyKey(c)
    const body = await bodyObject(c, updateBody, true)
    const scheduleId = c.req.param('scheduleId') ?? ''
    schedules()
    return scheduleAnswer(c, (await host.command(id, 'schedule.update', { id: scheduleId, fields: body, key })) as ScheduleAnswer, 200)
  })

  app.post('/api/sessions/:id/schedules/:scheduleId/snooze', async (c) => {
    const id = sessionIdParam(c)
    const key = idempotencyKey(c)
    const body = await bodyObject(c, snoozeBody, false)
    const scheduleId = c.req.param('scheduleId') ?? ''
    schedules()
    return scheduleAnswer(c, (await host.command(id, 'schedule.snooze', { id: scheduleId, seconds: body.seconds as number, key })) as ScheduleAnswer, 201)
  })

  app.delete('/api/sessions/:id/schedules/:scheduleId', async (c) => {
    const scheduleId = c.req.param('scheduleId') ?? ''
    const id = sessionIdParam(c)
    const key = idempotencyKey(c)
    if (!deps.schedules) {
      await host.describe(id)
      return c.json({ id: scheduleId, deleted: false })
    }
    return c.json(await host.command(id, 'schedule.delete', { id: scheduleId, key }))
  })

  const noRoute = (c: Context): Response => errorResponse(c, new ApiError('not-found', `no route ${c.req.method} ${c.req.path}`))
  // anything no route takes (an unknown API path, a POST to a page, a method no route has) is a JSON error, never Hono's text
  app.notFound(noRoute)

  if (deps.staticHandler) {
    const handler = deps.staticHandler
    // the API's own paths under other spellings (`/api`, `//api/sessions`) are not pages of the overlay
    app.get('*', (c) => (API_SPELLING.test(c.req.path) ? noRoute(c) : handler(c)))
  }
  return app
}
