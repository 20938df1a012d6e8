import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { settle, waitFor } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'
import { staticOverlay } from '../../src/server/static.ts'
import { apiError, call, makeApp } from './app-harness.ts'

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)
const ASSISTANT_ID = expect.stringMatching(/^asst-[A-Za-z0-9_-]{22}$/)

/** A model answer that never comes: the step waits until the turn is aborted. */
const untilAborted = (_request: unknown, signal: AbortSignal): Promise<never> =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }))

const BAD_ZONES: [label: string, value: unknown, detail: unknown][] = [
  ['empty', '', ''],
  ['leading space', ' UTC', ' UTC'],
  ['CST', 'CST', 'CST'],
  ['PST', 'PST', 'PST'],
  ['GMT', 'GMT', 'GMT'],
  ['offset', '+08:00', '+08:00'],
  ['unknown region', 'Not/A_Real_Zone', 'Not/A_Real_Zone'],
  ['number', 5, 5],
  ['null', null, null],
  ['missing', undefined, null],
]

function withZone(base: Record<string, unknown>, field: string, value: unknown): Record<string, unknown> {
  return value === undefined ? base : { ...base, [field]: value }
}

const KOLKATA = new Intl.DateTimeFormat('en-US', { timeZone: 'Asia/Kolkata' }).resolvedOptions().timeZone

function summary(id: string, timeZone: string | null, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id, createdAt: T0, timeZone, status: 'idle', eventCount: 0, ...extra }
}

function readingText(turn: number, step: number, stamp: string, session: string, client: string, elapsed: string): string {
  return [
    `Time sampled while preparing turn ${turn}, step ${step}: ${stamp}`,
    `Session time zone: ${session}.`,
    `Client time zone for this request: ${client}.`,
    `Elapsed since the preceding model-visible message: ${elapsed}.`,
  ].join('\n')
}

describe('GET /api/health', () => {
  it('answers {ok:true}', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', '/api/health')).toEqual({ status: 200, body: { ok: true } })
    await host.close()
  })

  it('answers an unknown API route with a JSON 404', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', '/api/nope')).toEqual({
      status: 404,
      body: apiError('not-found', 'no route GET /api/nope'),
    })
    await host.close()
  })
})

describe('paths no route takes', () => {
  it('answers JSON 404 for the API under other spellings and for a write to a page; pages are still the overlay', async () => {
    const dir = await tempDir()
    const overlay = join(dir, 'overlay')
    await mkdir(overlay)
    await writeFile(join(overlay, 'index.html'), '<!doctype html><title>overlay</title>')
    const { app, host } = await makeApp(join(dir, 'data'), { staticHandler: staticOverlay(overlay) })
    // on the code before, the first two were the overlay's page (200 HTML) and the last Hono's text "404 Not Found"
    expect(await call(app, 'GET', '//api/health')).toEqual({ status: 404, body: apiError('not-found', 'no route GET //api/health') })
    expect(await call(app, 'GET', '/api')).toEqual({ status: 404, body: apiError('not-found', 'no route GET /api') })
    expect(await call(app, 'POST', '/s/abc', {})).toEqual({ status: 404, body: apiError('not-found', 'no route POST /s/abc') })
    expect(await call(app, 'GET', '/s/abc')).toEqual({ status: 200, body: '<!doctype html><title>overlay</title>' })
    expect(await call(app, 'GET', '/apiary')).toEqual({ status: 200, body: '<!doctype html><title>overlay</title>' })
    await host.close()
  })
})

describe('POST /api/sessions', () => {
  it('creates a session with the canonical zone (US/Eastern → America/New_York) and writes the header', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'US/Eastern', sessionId: 'east' })).toEqual({
      status: 201,
      body: { session: summary('east', 'America/New_York') },
    })
    expect(await readFile(join(dir, 'sessions/east.jsonl'), 'utf8')).toBe(
      `{"type":"session","version":1,"id":"east","createdAt":${T0},"timeZone":"America/New_York"}\n`,
    )
    await host.close()
  })

  it('canonicalises Etc/UTC to UTC', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'Etc/UTC', sessionId: 'u' })).toEqual({
      status: 201,
      body: { session: summary('u', 'UTC') },
    })
    await host.close()
  })

  it('stores Asia/Calcutta and Asia/Kolkata as the runtime canonical name and treats them as equal', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Calcutta', sessionId: 'in' })).toEqual({
      status: 201,
      body: { session: summary('in', KOLKATA) },
    })
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Kolkata', sessionId: 'in' })).toEqual({
      status: 200,
      body: { session: summary('in', KOLKATA) },
    })
    await host.close()
  })

  it('generates a URL-safe id when none is given', async () => {
    const { app, host } = await makeApp(await tempDir())
    const answer = await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Tokyo' })
    expect(answer).toEqual({
      status: 201,
      body: { session: summary(expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) as unknown as string, 'Asia/Tokyo') },
    })
    await host.close()
  })

  it('answers 200 with the existing session when re-created with an equal (alias) zone', async () => {
    const dir = await tempDir()
    const { app, host, clock } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'America/New_York', sessionId: 'east' })
    const before = await readFile(join(dir, 'sessions/east.jsonl'), 'utf8')
    clock.advance(60_000)
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'US/Eastern', sessionId: 'east' })).toEqual({
      status: 200,
      body: { session: summary('east', 'America/New_York') },
    })
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'America/New_York', sessionId: 'east' })).toEqual({
      status: 200,
      body: { session: summary('east', 'America/New_York') },
    })
    expect(await readFile(join(dir, 'sessions/east.jsonl'), 'utf8')).toBe(before)
    await host.close()
  })

  it('answers 200 on re-create of a session that is on disk but not open yet', async () => {
    const dir = await tempDir()
    const first = await makeApp(dir)
    await call(first.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'cold' })
    await first.host.close()
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'Etc/UTC', sessionId: 'cold' })).toEqual({
      status: 200,
      body: { session: summary('cold', 'UTC') },
    })
    await host.close()
  })

  it('opens the session once when two equal creates of one id race (one 201, one 200)', async () => {
    for (let round = 0; round < 3; round++) {
      const dir = await tempDir()
      const { app, host } = await makeApp(dir)
      const opened: string[] = []
      host.onSessionOpened((session) => opened.push(session.id))
      const answers = await Promise.all([
        call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'race' }),
        call(app, 'POST', '/api/sessions', { timeZone: 'Etc/UTC', sessionId: 'race' }),
      ])
      expect(answers.sort((a, b) => a.status - b.status)).toEqual([
        { status: 200, body: { session: summary('race', 'UTC') } },
        { status: 201, body: { session: summary('race', 'UTC') } },
      ])
      expect(opened).toEqual(['race'])
      await host.close()
    }
  })

  it('answers 409 session-conflict with both zones when re-created with a different zone', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 'sh' })
    const before = await readFile(join(dir, 'sessions/sh.jsonl'), 'utf8')
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'US/Eastern', sessionId: 'sh' })).toEqual({
      status: 409,
      body: apiError('session-conflict', 'session sh already exists with another time zone', {
        sessionId: 'sh',
        requestedTimeZone: 'America/New_York',
        existingTimeZone: 'Asia/Shanghai',
      }),
    })
    expect(await readFile(join(dir, 'sessions/sh.jsonl'), 'utf8')).toBe(before)
    await host.close()
  })

  it.each(BAD_ZONES)('rejects a %s timeZone with invalid-time-zone and creates nothing', async (_label, value, detail) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'POST', '/api/sessions', withZone({ sessionId: 'z' }, 'timeZone', value))).toEqual({
      status: 400,
      body: apiError('invalid-time-zone', 'timeZone must be a valid IANA time zone', { field: 'timeZone', value: detail }),
    })
    expect(await readdir(join(dir, 'sessions'))).toEqual([])
    await host.close()
  })

  it.each([
    ['malformed JSON', '{"timeZone":', 'request body is not valid JSON'],
    ['an empty body', '', 'request body is not valid JSON'],
    ['an array', [], 'body: Invalid input: expected object, received array'],
    ['a non-string sessionId', { timeZone: 'UTC', sessionId: 7 }, 'sessionId: Invalid input: expected string, received number'],
    ['a sessionId outside [A-Za-z0-9_-]{1,64}', { timeZone: 'UTC', sessionId: 'a.b' }, 'sessionId: Invalid string: must match pattern /^[A-Za-z0-9_-]{1,64}$/'],
    ['an unknown key', { timeZone: 'UTC', title: 'x' }, 'body: Unrecognized key: "title"'],
    // on the code before, 500 "Maximum call stack size exceeded": the zone's error echoed the value it could not serialise
    ['a timeZone nested 5,000 deep', `{"timeZone":${'['.repeat(5000)}${']'.repeat(5000)}}`, 'request body nests arrays or objects more than 32 deep'],
    ['a body nested 33 deep', `{"timeZone":${'{"a":'.repeat(32)}1${'}'.repeat(32)}}`, 'request body nests arrays or objects more than 32 deep'],
  ])('rejects %s with bad-request', async (_label, body, message) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'POST', '/api/sessions', body)).toEqual({ status: 400, body: apiError('bad-request', message) })
    expect(await readdir(join(dir, 'sessions'))).toEqual([])
    await host.close()
  })
})

describe('GET /api/sessions and /api/sessions/:id', () => {
  it('lists sessions newest first, including ones only on disk', async () => {
    const dir = await tempDir()
    const first = await makeApp(dir)
    await call(first.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'old' })
    await first.host.close()
    const { app, host, clock } = await makeApp(dir)
    clock.advance(1_000)
    await call(app, 'POST', '/api/sessions', { timeZone: 'Europe/Paris', sessionId: 'mid' })
    clock.advance(1_000)
    await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Tokyo', sessionId: 'new' })
    expect(await call(app, 'GET', '/api/sessions')).toEqual({
      status: 200,
      body: {
        sessions: [
          { ...summary('new', 'Asia/Tokyo'), createdAt: T0 + 2_000 },
          { ...summary('mid', 'Europe/Paris'), createdAt: T0 + 1_000 },
          summary('old', 'UTC'),
        ],
        nextCursor: null,
      },
    })
    const first2 = await call(app, 'GET', '/api/sessions?limit=2')
    expect(first2).toEqual({
      status: 200,
      body: {
        sessions: [
          { ...summary('new', 'Asia/Tokyo'), createdAt: T0 + 2_000 },
          { ...summary('mid', 'Europe/Paris'), createdAt: T0 + 1_000 },
        ],
        nextCursor: `${T0 + 1_000}:mid`,
      },
    })
    expect(await call(app, 'GET', `/api/sessions?limit=2&before=${T0 + 1_000}:mid`)).toEqual({
      status: 200,
      body: { sessions: [summary('old', 'UTC')], nextCursor: null },
    })
    for (const query of ['limit=0', 'limit=501', 'limit=x', 'before=nope', 'before=1:a:b']) {
      expect((await call(app, 'GET', `/api/sessions?${query}`)).status).toBe(400)
    }
    await host.close()
  })

  it('lists nothing on an empty data dir', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', '/api/sessions')).toEqual({ status: 200, body: { sessions: [], nextCursor: null } })
    await host.close()
  })

  it('describes a session with its title and event count once a person wrote', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push({ text: 'Sure.' })
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'GET', '/api/sessions/s')).toEqual({ status: 200, body: { session: summary('s', 'UTC') } })
    await call(app, 'POST', '/api/sessions/s/messages', { text: '  Remind me\n to stretch ', clientTimeZone: 'UTC' })
    await settle(await host.openSession('s'))
    expect(await call(app, 'GET', '/api/sessions/s')).toEqual({
      status: 200,
      body: { session: summary('s', 'UTC', { title: 'Remind me to stretch', eventCount: 9 }) },
    })
    await host.close()
  })

  it('reports a headerless session with timeZone null', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'), { recursive: true })
    await writeFile(join(dir, 'sessions/old.jsonl'), `{"type":"session","version":1,"id":"old","createdAt":${T0}}\n`)
    const { app, host } = await makeApp(dir)
    expect(await call(app, 'GET', '/api/sessions/old')).toEqual({ status: 200, body: { session: summary('old', null) } })
    expect(await call(app, 'GET', '/api/sessions/old/events')).toEqual({
      status: 200,
      body: { header: { type: 'session', version: 1, id: 'old', createdAt: T0 }, events: [], firstSeq: null, lastSeq: null, eventCount: 0 },
    })
    await host.close()
  })
})

describe('session-not-found', () => {
  const routes: [string, string, unknown?][] = [
    ['GET', ''],
    ['GET', '/events'],
    ['GET', '/stream'],
    ['POST', '/messages', { text: 'hi', clientTimeZone: 'UTC' }],
    ['POST', '/cancel'],
    ['GET', '/schedules'],
    ['DELETE', '/schedules/schedule-1'],
  ]

  it.each(routes)('answers 404 on %s /api/sessions/<unknown>%s and creates no file', async (method, suffix, body) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    expect(await call(app, method, `/api/sessions/nope${suffix}`, body)).toEqual({
      status: 404,
      body: apiError('session-not-found', 'session nope does not exist', { sessionId: 'nope' }),
    })
    expect(await readdir(join(dir, 'sessions'))).toEqual([])
    await host.close()
  })

  it.each([
    ['a dot', 'a.b', 'a.b'],
    ['an encoded space', '%20x', ' x'],
    ['65 characters', 'a'.repeat(65), 'a'.repeat(65)],
    ['an encoded slash', '..%2Fx', '../x'],
  ])('answers 404 for an id with %s', async (_label, raw, id) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    for (const [method, suffix, body] of routes) {
      expect(await call(app, method, `/api/sessions/${raw}${suffix}`, body)).toEqual({
        status: 404,
        body: apiError('session-not-found', `session ${JSON.stringify(id)} does not exist`, { sessionId: id }),
      })
    }
    await host.close()
  })
})

describe('GET /api/sessions/:id/events', () => {
  it('serves the header and every event, or those after ?after=', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push({ text: 'hi' })
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 's' })
    const sent = (await call(app, 'POST', '/api/sessions/s/messages', { text: 'hello', clientTimeZone: 'US/Eastern' }))
      .body as { rpcId: string; messageId: string }
    await settle(await host.openSession('s'))
    const message = {
      id: sent.messageId,
      role: 'user',
      content: [{ type: 'text', text: 'hello' }],
      source: { kind: 'user', rpcId: sent.rpcId, clientTimeZone: 'America/New_York' },
    }
    const reading = readingText(1, 1, '2026-07-15T09:01:01+08:00[Asia/Shanghai]', 'Asia/Shanghai', 'America/New_York', 'unavailable')
    const at = (seq: number, type: string, data: unknown, extra: Record<string, unknown> = {}) => ({ seq, time: T0, type, data, ...extra })
    const events = [
      at(0, 'inbox/enqueued', { target: 'next-turn', message }),
      at(1, 'turn/start', { turn: 1 }),
      at(2, 'step/start', { turn: 1, step: 1 }),
      at(3, 'user/message', message, { surfaceOp: 'append' }),
      at(
        4,
        'user/message',
        {
          id: 'time-context-1-1',
          role: 'user',
          content: [{ type: 'text', text: reading }],
          source: { kind: 'plugin', plugin: 'time-context', form: 'snapshot', sections: [{ name: 'time-context', text: reading }] },
        },
        { surfaceOp: 'append' },
      ),
      at(5, 'request/header', { model: 'scripted', tools: ['schedule_create', 'schedule_update', 'schedule_list', 'schedule_delete'], reason: 'initial' }),
      at(6, 'assistant/message', { turn: 1, step: 1, id: ASSISTANT_ID, content: [{ type: 'text', text: 'hi' }] }),
      at(7, 'step/end', { turn: 1, step: 1 }),
      at(8, 'turn/end', { turn: 1, reason: 'completed' }),
    ]
    const header = { type: 'session', version: 1, id: 's', createdAt: T0, timeZone: 'Asia/Shanghai' }
    const page = (list: unknown[]) => ({
      header,
      events: list,
      firstSeq: (list[0] as { seq?: number } | undefined)?.seq ?? null,
      lastSeq: (list.at(-1) as { seq?: number } | undefined)?.seq ?? null,
      eventCount: 9,
    })
    expect(await call(app, 'GET', '/api/sessions/s/events')).toEqual({ status: 200, body: page(events) })
    expect(await call(app, 'GET', '/api/sessions/s/events?after=-1')).toEqual({ status: 200, body: page(events) })
    expect(await call(app, 'GET', '/api/sessions/s/events?after=5')).toEqual({ status: 200, body: page(events.slice(6)) })
    expect(await call(app, 'GET', '/api/sessions/s/events?after=8')).toEqual({ status: 200, body: page([]) })
    expect(await call(app, 'GET', '/api/sessions/s/events?after=100')).toEqual({ status: 200, body: page([]) })
    expect(await call(app, 'GET', '/api/sessions/s/events?limit=3')).toEqual({ status: 200, body: page(events.slice(6)) })
    expect(await call(app, 'GET', '/api/sessions/s/events?limit=2&after=0')).toEqual({ status: 200, body: page(events.slice(1, 3)) })
    expect(await call(app, 'GET', '/api/sessions/s/events?limit=2&before=4')).toEqual({ status: 200, body: page(events.slice(2, 4)) })
    await host.close()
    // the same pages from a host that has not opened the session: read from the file, not the log in memory
    const cold = await makeApp(dir, { model })
    const opened: string[] = []
    cold.host.onSessionOpened((session) => opened.push(session.id))
    expect(await call(cold.app, 'GET', '/api/sessions/s/events')).toEqual({ status: 200, body: page(events) })
    expect(await call(cold.app, 'GET', '/api/sessions/s/events?limit=2&before=4')).toEqual({ status: 200, body: page(events.slice(2, 4)) })
    expect(await call(cold.app, 'GET', '/api/sessions/s/events?limit=2&after=5')).toEqual({ status: 200, body: page(events.slice(6, 8)) })
    expect(opened).toEqual([])
    await cold.host.close()
    await host.close()
  })

  it.each(['abc', '1.5', '', '1e3'])('rejects ?after=%s with bad-request', async (after) => {
    const { app, host } = await makeApp(await tempDir())
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'GET', `/api/sessions/s/events?after=${after}`)).toEqual({
      status: 400,
      body: apiError('bad-request', 'after must be an integer seq of at least -1'),
    })
    await host.close()
  })

  it.each([
    ['/api/sessions/s/events?limit=2&limit=3', 'limit'],
    ['/api/sessions/s/events?after=1&after=1', 'after'],
    ['/api/sessions/s/events?before=4&limit=2&before=5', 'before'],
    ['/api/sessions?limit=1&limit=500', 'limit'],
    ['/api/sessions?before=1:a&before=2:b', 'before'],
  ])('refuses %s, a parameter given twice, rather than taking one of its values', async (path, name) => {
    const { app, host } = await makeApp(await tempDir())
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    // on the code before, the first value was taken and the other ignored
    expect(await call(app, 'GET', path)).toEqual({ status: 400, body: apiError('bad-request', `${name} must be given at most once`) })
    await host.close()
  })

  it.each(['limit=0', 'limit=5001', 'limit=2.5', 'before=-1', 'after=1&before=3', 'after=-2'])('rejects a page of ?%s with bad-request', async (query) => {
    const { app, host } = await makeApp(await tempDir())
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect((await call(app, 'GET', `/api/sessions/s/events?${query}`)).status).toBe(400)
    await host.close()
  })
})

describe('POST /api/sessions/:id/messages', () => {
  it('answers 202 {rpcId, messageId} once the user-rpc message with the canonical client zone is on disk', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push(untilAborted)
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    const answer = await call(app, 'POST', '/api/sessions/s/messages', { text: 'hello', clientTimeZone: 'US/Eastern' })
    expect(answer).toEqual({
      status: 202,
      body: { rpcId: expect.stringMatching(/^rpc-[A-Za-z0-9_-]{22}$/), messageId: expect.stringMatching(/^msg-[A-Za-z0-9_-]{22}$/) },
    })
    const { rpcId, messageId } = answer.body as { rpcId: string; messageId: string }
    const lines = (await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).split('\n')
    expect(JSON.parse(lines[1])).toEqual({
      seq: 0,
      time: T0,
      type: 'inbox/enqueued',
      data: {
        target: 'next-turn',
        message: {
          id: messageId,
          role: 'user',
          content: [{ type: 'text', text: 'hello' }],
          source: { kind: 'user', rpcId, clientTimeZone: 'America/New_York' },
        },
      },
    })
    const session = await host.openSession('s')
    await waitFor(session, (events) => events.some((e) => e.type === 'request/header'))
    const entered = session.events().find((e) => e.type === 'user/message' && e.data.id === messageId)
    expect(entered?.data).toEqual({
      id: messageId,
      role: 'user',
      content: [{ type: 'text', text: 'hello' }],
      source: { kind: 'user', rpcId, clientTimeZone: 'America/New_York' },
    })
    await host.close()
  })

  it('queues a steer into next-step', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push(untilAborted)
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    const { body } = await call(app, 'POST', '/api/sessions/s/messages', { text: 'now', clientTimeZone: 'Etc/UTC', mode: 'steer' })
    const { rpcId, messageId } = body as { rpcId: string; messageId: string }
    const session = await host.openSession('s')
    expect(session.event(0)).toEqual({
      seq: 0,
      time: T0,
      type: 'inbox/enqueued',
      data: {
        target: 'next-step',
        message: { id: messageId, role: 'user', content: [{ type: 'text', text: 'now' }], source: { kind: 'user', rpcId, clientTimeZone: 'UTC' } },
      },
    })
    await host.close()
  })

  it.each(BAD_ZONES)('rejects a %s clientTimeZone with invalid-time-zone and writes nothing', async (_label, value, detail) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    const before = await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')
    expect(await call(app, 'POST', '/api/sessions/s/messages', withZone({ text: 'hi' }, 'clientTimeZone', value))).toEqual({
      status: 400,
      body: apiError('invalid-time-zone', 'clientTimeZone must be a valid IANA time zone', { field: 'clientTimeZone', value: detail }),
    })
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).toBe(before)
    expect((await host.openSession('s')).length).toBe(0)
    await host.close()
  })

  it('refuses a clientTimeZone nested 5,000 deep with bad-request and writes nothing; brackets inside a message are its text', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    const before = await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')
    const deep = `{"text":"hi","clientTimeZone":${'['.repeat(5000)}${']'.repeat(5000)}}`
    expect(await call(app, 'POST', '/api/sessions/s/messages', deep)).toEqual({
      status: 400,
      body: apiError('bad-request', 'request body nests arrays or objects more than 32 deep'),
    })
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).toBe(before)
    const text = `"[{${'['.repeat(5000)} \\\\ \\""`
    expect((await call(app, 'POST', '/api/sessions/s/messages', `{"text":${text},"clientTimeZone":"UTC"}`)).status).toBe(202)
    await host.close()
  })

  it.each([
    ['malformed JSON', '{"text":"hi",', 'request body is not valid JSON'],
    ['a JSON null', 'null', 'body: Invalid input: expected object, received null'],
    ['a non-string text', { text: 5, clientTimeZone: 'UTC' }, 'text: Invalid input: expected string, received number'],
    ['a missing text', { clientTimeZone: 'UTC' }, 'text: Invalid input: expected string, received undefined'],
    ['an empty text', { text: '', clientTimeZone: 'UTC' }, 'text: text must not be empty'],
    ['a whitespace text', { text: ' \n\t ', clientTimeZone: 'UTC' }, 'text: text must not be empty'],
    // PostgreSQL's text cannot hold it (a title made from the message would fail the session's writes there)
    ['a text holding U+0000', { text: 'a\u0000b', clientTimeZone: 'UTC' }, 'text: text must not contain the character U+0000'],
    ['an unknown mode', { text: 'hi', clientTimeZone: 'UTC', mode: 'later' }, 'mode: Invalid option: expected one of "queue"|"steer"'],
    ['an unknown key', { text: 'hi', clientTimeZone: 'UTC', role: 'system' }, 'body: Unrecognized key: "role"'],
  ])('rejects %s with bad-request and writes nothing', async (_label, body, message) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'POST', '/api/sessions/s/messages', body)).toEqual({ status: 400, body: apiError('bad-request', message) })
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).toBe(`{"type":"session","version":1,"id":"s","createdAt":${T0},"timeZone":"UTC"}\n`)
    await host.close()
  })

  it('accepts a body of exactly 64 KiB and answers 413 payload-too-large one byte over', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push(untilAborted)
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    const envelope = JSON.stringify({ text: '', clientTimeZone: 'UTC' }).length
    const exact = JSON.stringify({ text: 'x'.repeat(65_536 - envelope), clientTimeZone: 'UTC' })
    expect(exact.length).toBe(65_536)
    const over = JSON.stringify({ text: 'x'.repeat(65_537 - envelope), clientTimeZone: 'UTC' })
    const before = await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')
    const tooLarge = { status: 413, body: apiError('payload-too-large', 'request body exceeds 65536 bytes') }
    expect(await call(app, 'POST', '/api/sessions/s/messages', over)).toEqual(tooLarge)
    expect(await call(app, 'POST', '/api/sessions/s/messages', over, { 'content-length': String(over.length) })).toEqual(tooLarge)
    expect(await call(app, 'POST', '/api/sessions', JSON.stringify({ timeZone: 'UTC', sessionId: 'big', pad: 'x'.repeat(70_000) }))).toEqual(tooLarge)
    expect(await readFile(join(dir, 'sessions/s.jsonl'), 'utf8')).toBe(before)
    expect(await readdir(join(dir, 'sessions'))).toEqual(['s.jsonl'])
    expect((await call(app, 'POST', '/api/sessions/s/messages', exact)).status).toBe(202)
    await host.close()
  })
})

describe('a cold session (on disk, not open) and bad input', () => {
  async function coldDataDir(): Promise<{ dir: string; path: string; bytes: string }> {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'), { recursive: true })
    const message = {
      id: 'msg-pending',
      role: 'user',
      content: [{ type: 'text', text: 'queued before the restart' }],
      source: { kind: 'user', rpcId: 'rpc-pending', clientTimeZone: 'UTC' },
    }
    const bytes = [
      JSON.stringify({ type: 'session', version: 1, id: 'cold', createdAt: T0, timeZone: 'UTC' }),
      JSON.stringify({ seq: 0, time: T0, type: 'inbox/enqueued', data: { target: 'next-turn', message } }),
      '',
    ].join('\n')
    const path = join(dir, 'sessions/cold.jsonl')
    await writeFile(path, bytes)
    return { dir, path, bytes }
  }

  it.each([
    ['an invalid clientTimeZone', { text: 'hi', clientTimeZone: 'PST' }, 400],
    ['a missing clientTimeZone', { text: 'hi' }, 400],
    ['an empty text', { text: ' ', clientTimeZone: 'UTC' }, 400],
    ['malformed JSON', '{', 400],
    ['a body over 64 KiB', { text: 'x'.repeat(70_000), clientTimeZone: 'UTC' }, 413],
  ])('%s neither opens (resumes) it nor writes anything', async (_label, body, status) => {
    const { dir, path, bytes } = await coldDataDir()
    const model = new ScriptedModel().push({ text: 'resumed' })
    const { app, host } = await makeApp(dir, { model })
    const opened: string[] = []
    host.onSessionOpened((session) => opened.push(session.id))
    expect((await call(app, 'POST', '/api/sessions/cold/messages', body)).status).toBe(status)
    expect((await call(app, 'GET', '/api/sessions/cold')).status).toBe(200)
    expect(opened).toEqual([])
    expect(model.requests).toEqual([])
    expect(await readFile(path, 'utf8')).toBe(bytes)
    // the same session does resume on a valid request: the check above is sensitive
    expect((await call(app, 'POST', '/api/sessions/cold/messages', { text: 'valid', clientTimeZone: 'UTC' })).status).toBe(202)
    expect(opened).toEqual(['cold'])
    await settle(await host.openSession('cold'))
    expect(model.requests.length).toBe(2)
    expect(await readFile(path, 'utf8')).not.toBe(bytes)
    await host.close()
  })
})

describe('POST /api/sessions/:id/cancel', () => {
  it('answers 202 {} on an idle session and writes nothing', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'POST', '/api/sessions/s/cancel')).toEqual({ status: 202, body: {} })
    expect((await host.openSession('s')).length).toBe(0)
    await host.close()
  })

  it('answers 202 {} and aborts the running turn; a message queued behind it survives', async () => {
    const dir = await tempDir()
    const model = new ScriptedModel().push(untilAborted, { text: 'second' })
    const { app, host } = await makeApp(dir, { model })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    await call(app, 'POST', '/api/sessions/s/messages', { text: 'first', clientTimeZone: 'UTC' })
    const session = await host.openSession('s')
    await waitFor(session, () => model.requests.length === 1)
    const queued = (await call(app, 'POST', '/api/sessions/s/messages', { text: 'queued', clientTimeZone: 'UTC' })).body as {
      messageId: string
    }
    expect(await call(app, 'GET', '/api/sessions/s')).toEqual({
      status: 200,
      body: { session: summary('s', 'UTC', { status: 'running', title: 'first', eventCount: 7 }) },
    })
    expect(await call(app, 'POST', '/api/sessions/s/cancel')).toEqual({ status: 202, body: {} })
    await waitFor(session, (events) => events.some((e) => e.type === 'turn/end' && e.data.turn === 2))
    await settle(session)
    const ends = session.events().filter((e): e is Extract<SessionEvent, { type: 'turn/end' }> => e.type === 'turn/end')
    expect(ends.map((e) => e.data)).toEqual([
      { turn: 1, reason: 'aborted' },
      { turn: 2, reason: 'completed' },
    ])
    expect(session.events().some((e) => e.type === 'user/message' && e.data.id === queued.messageId)).toBe(true)
    await host.close()
  })
})

describe('schedules routes without a Schedule API', () => {
  it('lists none and deletes nothing', async () => {
    const { app, host } = await makeApp(await tempDir())
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'GET', '/api/sessions/s/schedules')).toEqual({ status: 200, body: { schedules: [] } })
    expect(await call(app, 'DELETE', '/api/sessions/s/schedules/schedule-1')).toEqual({
      status: 200,
      body: { id: 'schedule-1', deleted: false },
    })
    await host.close()
  })
})

describe('security (SPEC 12.3)', () => {
  const TOKEN = 'kV9s-2Qx_7bLm.Tz'
  const forbiddenHost = (host: string) => ({ status: 403, body: apiError('forbidden', `host ${JSON.stringify(host)} is not allowed`) })
  const forbiddenOrigin = (origin: string) => ({ status: 403, body: apiError('forbidden', `origin ${JSON.stringify(origin)} is not allowed`) })
  const forbiddenSite = (site: string) => ({ status: 403, body: apiError('forbidden', `Sec-Fetch-Site ${JSON.stringify(site)} is not allowed`) })
  const unsupported = (type?: string) => ({
    status: 415,
    body: apiError(
      'unsupported-media-type',
      type === undefined
        ? 'request body must be sent with Content-Type: application/json'
        : `request body must be sent with Content-Type: application/json, not ${JSON.stringify(type)}`,
    ),
  })
  const unauthorized = { status: 401, body: apiError('unauthorized', 'a valid bearer token is required') }

  it.each(['evil.example', 'evil.example:4280', '127.0.0.1.evil.example', 'localhost.evil.example:4280', '10.0.0.1:4280', '[::ffff:7f00:1]:4280', '127.256.0.1', '127.999.999.999:4280', 'localhost.', '127.0.0.1:0'])(
    'answers 403 forbidden to the Host %s and writes nothing',
    async (hostHeader) => {
      const dir = await tempDir()
      const { app, host } = await makeApp(dir)
      expect(await call(app, 'GET', '/api/health', undefined, { host: hostHeader })).toEqual(forbiddenHost(hostHeader))
      expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { host: hostHeader })).toEqual(forbiddenHost(hostHeader))
      expect(await readdir(join(dir, 'sessions'))).toEqual([])
      await host.close()
    },
  )

  it('answers 403 to a request for a foreign URL host', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', 'http://evil.example/api/health')).toEqual(forbiddenHost('evil.example'))
    await host.close()
  })

  it.each(['localhost:4280', '127.0.0.1:4280', '127.1.2.3', '[::1]:4280', 'LOCALHOST', 'app.localhost:4280'])('accepts the loopback Host %s', async (hostHeader) => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', '/api/health', undefined, { host: hostHeader })).toEqual({ status: 200, body: { ok: true } })
    await host.close()
  })

  it('accepts the configured public host name and writes only from its http origin', async () => {
    const { app, host } = await makeApp(await tempDir(), { security: { publicHost: 'schedule.example.com' } })
    expect(await call(app, 'GET', '/api/health', undefined, { host: 'schedule.example.com:8080' })).toEqual({ status: 200, body: { ok: true } })
    expect(await call(app, 'GET', '/api/health', undefined, { host: 'other.example.com' })).toEqual(forbiddenHost('other.example.com'))
    expect(await call(app, 'GET', '/api/health', undefined, { host: 'schedule.example.com.' })).toEqual(forbiddenHost('schedule.example.com.'))
    const headers = { host: 'schedule.example.com:8080', origin: 'http://schedule.example.com:8080' }
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, headers)).toEqual({ status: 201, body: { session: summary('s', 'UTC') } })
    for (const origin of ['https://schedule.example.com:8080', 'http://schedule.example.com', 'https://other.example.com']) {
      expect(await call(app, 'POST', '/api/sessions/s/cancel', undefined, { ...headers, origin })).toEqual(forbiddenOrigin(origin))
    }
    await host.close()
  })

  it('takes a public host given as an https origin (behind a TLS proxy) as the own origin of that name', async () => {
    const { app, host } = await makeApp(await tempDir(), { security: { publicHost: 'https://schedule.example.com' } })
    const headers = { host: 'schedule.example.com', origin: 'https://schedule.example.com' }
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, headers)).toEqual({ status: 201, body: { session: summary('s', 'UTC') } })
    expect(await call(app, 'POST', '/api/sessions/s/cancel', undefined, { ...headers, origin: 'http://schedule.example.com' })).toEqual(
      forbiddenOrigin('http://schedule.example.com'),
    )
    await host.close()
  })

  it.each(['http://evil.example', 'https://evil.example:4280', 'null', 'file://', 'http://localhost.evil.example', 'http://127.0.0.1:5173', 'http://localhost:4280', 'https://127.0.0.1:4280', 'http://127.0.0.1', 'http://127.0.0.1:4280/'])(
    'answers 403 to a state-changing request with the Origin %s (not the own origin http://127.0.0.1:4280) and writes nothing',
    async (origin) => {
      const dir = await tempDir()
      const { app, host } = await makeApp(dir)
      expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { origin })).toEqual(forbiddenOrigin(origin))
      expect(await readdir(join(dir, 'sessions'))).toEqual([])
      await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
      expect(await call(app, 'POST', '/api/sessions/s/messages', { text: 'hi', clientTimeZone: 'UTC' }, { origin })).toEqual(forbiddenOrigin(origin))
      expect(await call(app, 'POST', '/api/sessions/s/cancel', undefined, { origin })).toEqual(forbiddenOrigin(origin))
      expect(await call(app, 'DELETE', '/api/sessions/s/schedules/schedule-1', undefined, { origin })).toEqual(forbiddenOrigin(origin))
      expect((await host.openSession('s')).length).toBe(0)
      await host.close()
    },
  )

  it.each([
    ['127.0.0.1:4280', 'http://127.0.0.1:4280'],
    ['localhost:5173', 'http://localhost:5173'],
    ['[::1]:4280', 'http://[::1]:4280'],
    ['LOCALHOST:80', 'http://localhost'],
    ['app.localhost:4280', 'http://app.localhost:4280'],
  ])('accepts a POST with Host %s from its own origin %s', async (hostHeader, origin) => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { host: hostHeader, origin, 'sec-fetch-site': 'same-origin' })).toEqual({
      status: 201,
      body: { session: summary('s', 'UTC') },
    })
    await host.close()
  })

  it.each(['same-site', 'cross-site', 'Same-Origin', 'garbage', ''])('refuses Sec-Fetch-Site %j on writes and on every /api read, whatever the Origin', async (site) => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    const own = { origin: 'http://127.0.0.1:4280', 'sec-fetch-site': site }
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, own)).toEqual(forbiddenSite(site))
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { 'sec-fetch-site': site })).toEqual(forbiddenSite(site))
    expect(await call(app, 'GET', '/api/sessions', undefined, { 'sec-fetch-site': site })).toEqual(forbiddenSite(site))
    expect(await call(app, 'GET', '/api/sessions/s/stream', undefined, { 'sec-fetch-site': site })).toEqual(forbiddenSite(site))
    expect(await readdir(join(dir, 'sessions'))).toEqual([])
    await host.close()
  })

  it('accepts Sec-Fetch-Site same-origin and none (typed into the address bar)', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { 'sec-fetch-site': 'same-origin' })).toEqual({
      status: 201,
      body: { session: summary('s', 'UTC') },
    })
    expect(await call(app, 'GET', '/api/sessions/s', undefined, { 'sec-fetch-site': 'none' })).toEqual({ status: 200, body: { session: summary('s', 'UTC') } })
    await host.close()
  })

  it('accepts a GET with a foreign Origin (a read; the browser shares no answer without CORS)', async () => {
    const { app, host } = await makeApp(await tempDir())
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'GET', '/api/sessions/s', undefined, { origin: 'http://evil.example' })).toEqual({ status: 200, body: { session: summary('s', 'UTC') } })
    await host.close()
  })

  it('accepts writes without Origin or Sec-Fetch-Site (curl, scripts)', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })).toEqual({ status: 201, body: { session: summary('s', 'UTC') } })
    expect(await call(app, 'POST', '/api/sessions/s/cancel')).toEqual({ status: 202, body: {} })
    await host.close()
  })

  it.each(['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp', 'application/vnd.api+json', 'json', ''])(
    'answers 415 unsupported-media-type to a JSON body sent as %j and writes nothing',
    async (type) => {
      const dir = await tempDir()
      const { app, host } = await makeApp(dir)
      const create = JSON.stringify({ timeZone: 'UTC', sessionId: 's' })
      expect(await call(app, 'POST', '/api/sessions', create, { 'content-type': type })).toEqual(unsupported(type))
      expect(await readdir(join(dir, 'sessions'))).toEqual([])
      await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
      const message = JSON.stringify({ text: 'hi', clientTimeZone: 'UTC' })
      expect(await call(app, 'POST', '/api/sessions/s/messages', message, { 'content-type': type })).toEqual(unsupported(type))
      expect(await call(app, 'POST', '/api/sessions/s/cancel', '', { 'content-type': type })).toEqual(unsupported(type))
      // over the size limit too: the type is refused before anything is read
      expect(await call(app, 'POST', '/api/sessions/s/messages', 'x'.repeat(70_000), { 'content-type': type })).toEqual(unsupported(type))
      expect((await host.openSession('s')).length).toBe(0)
      await host.close()
    },
  )

  it('answers 415 to a JSON route called without any Content-Type', async () => {
    const { app, host } = await makeApp(await tempDir())
    const response = await app.request('http://127.0.0.1:4280/api/sessions', { method: 'POST', body: new Blob(['{"timeZone":"UTC"}']) })
    expect({ status: response.status, body: await response.json() }).toEqual(unsupported())
    await host.close()
  })

  it.each(['application/json', 'APPLICATION/JSON', 'application/json; charset=utf-8', 'application/json ;charset=UTF-8'])('accepts JSON sent as %j', async (type) => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'POST', '/api/sessions', JSON.stringify({ timeZone: 'UTC', sessionId: 's' }), { 'content-type': type })).toEqual({
      status: 201,
      body: { session: summary('s', 'UTC') },
    })
    await host.close()
  })

  it('requires the bearer token when one is configured, in the Authorization header', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir, { security: { token: TOKEN } })
    const auth = { authorization: `Bearer ${TOKEN}` }
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789', TOKEN, `Basic ${TOKEN}`, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', 'Bearer  ']) {
      const headers: Record<string, string> = authorization === undefined ? {} : { authorization }
      expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, headers)).toEqual(unauthorized)
      expect(await call(app, 'GET', '/api/sessions', undefined, headers)).toEqual(unauthorized)
    }
    expect(await readdir(join(dir, 'sessions'))).toEqual([])
    expect(await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, auth)).toEqual({ status: 201, body: { session: summary('s', 'UTC') } })
    expect(await call(app, 'GET', '/api/sessions', undefined, { authorization: `bearer ${TOKEN}` })).toEqual({ status: 200, body: { sessions: [summary('s', 'UTC')], nextCursor: null } })
    expect(await call(app, 'GET', '/api/health')).toEqual({ status: 200, body: { ok: true } })
    const challenge = await app.request('http://127.0.0.1:4280/api/sessions')
    expect(challenge.headers.get('www-authenticate')).toBe('Bearer realm=""')
    await host.close()
  })

  it('accepts ?access_token= only on the two stream routes, and only the exact token', async () => {
    const { app, host } = await makeApp(await tempDir(), { security: { token: TOKEN } })
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' }, { authorization: `Bearer ${TOKEN}` })
    const query = `access_token=${encodeURIComponent(TOKEN)}`
    for (const path of ['/api/sessions/s', '/api/sessions', '/api/sessions/s/events', '/api/sessions/s/schedules', '/api/sessions/s/stream/x']) {
      expect(await call(app, 'GET', `${path}?${query}`)).toEqual(unauthorized)
    }
    expect(await call(app, 'POST', `/api/sessions/s/cancel?${query}`)).toEqual(unauthorized)
    for (const bad of ['+', '%20', '', encodeURIComponent(`${TOKEN} `), encodeURIComponent(TOKEN.toUpperCase())]) {
      expect(await call(app, 'GET', `/api/sessions/s/stream?access_token=${bad}`)).toEqual(unauthorized)
    }
    // a wrong header is not rescued by a right query token
    expect(await call(app, 'GET', `/api/sessions/s/stream?${query}`, undefined, { authorization: 'Bearer wrong-token-0123456789' })).toEqual(unauthorized)
    const stream = await app.request(`http://127.0.0.1:4280/api/sessions/s/stream?${query}`)
    expect({ status: stream.status, type: stream.headers.get('content-type') }).toEqual({ status: 200, type: 'text/event-stream' })
    await stream.body?.cancel()
    // the all-sessions stream (SPEC 8 v2) takes the query token too: it passes authentication and reaches routing
    const all = await app.request(`http://127.0.0.1:4280/api/stream?${query}`)
    expect({ status: all.status, type: all.headers.get('content-type') }).toEqual({ status: 200, type: 'text/event-stream' })
    await all.body?.cancel()
    expect(await call(app, 'GET', '/api/stream?access_token=nope')).toEqual(unauthorized)
    await host.close()
  })
})

describe('PATCH /api/sessions/:id (SPEC 8 v2)', () => {
  it('renames with session/title (trimmed), keeps the latest title across a restart, refuses bad titles', async () => {
    const dir = await tempDir()
    const { app, host } = await makeApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
    expect(await call(app, 'PATCH', '/api/sessions/s', { title: '  Trip plans  ' })).toEqual({
      status: 200,
      body: { session: { ...summary('s', 'UTC'), title: 'Trip plans', eventCount: 1 } },
    })
    expect(await call(app, 'PATCH', '/api/sessions/s', { title: 'Trip plans, v2' })).toMatchObject({ status: 200, body: { session: { title: 'Trip plans, v2' } } })
    const refusals: [unknown, string][] = [
      [{ title: '' }, 'title: title must not be empty'],
      [{ title: '   ' }, 'title: title must not be empty'],
      [{ title: 'x'.repeat(121) }, 'title: title must be at most 120 characters'],
      [{ title: 'a\u0000b' }, 'title: title must not contain the character U+0000'],
      [{ title: 5 }, 'title: Invalid input: expected string, received number'],
      [{ title: 'ok', extra: 1 }, 'body: Unrecognized key: "extra"'],
      [{}, 'title: Invalid input: expected string, received undefined'],
    ]
    const answers = []
    for (const [body] of refusals) answers.push(await call(app, 'PATCH', '/api/sessions/s', body))
    expect(answers).toEqual(refusals.map(([, message]) => ({ status: 400, body: { error: { code: 'bad-request', message } } })))
    expect(await call(app, 'PATCH', '/api/sessions/nope', { title: 'x' })).toEqual({
      status: 404,
      body: { error: { code: 'session-not-found', message: 'session nope does not exist', details: { sessionId: 'nope' } } },
    })
    const events = (await host.openSession('s')).events()
    expect(events.map((e) => [e.type, e.data])).toEqual([
      ['session/title', { title: 'Trip plans' }],
      ['session/title', { title: 'Trip plans, v2' }],
    ])
    await host.close()
    const again = await makeApp(dir)
    expect((await call(again.app, 'GET', '/api/sessions')).body).toEqual({
      sessions: [{ ...summary('s', 'UTC'), title: 'Trip plans, v2', eventCount: 2 }],
      nextCursor: null,
    })
    await again.host.close()
  })
})

describe('GET /api/time (SPEC 8 v2)', () => {
  it('answers the server clock and the tzdata offset of each asked zone', async () => {
    const { app, host } = await makeApp(await tempDir())
    expect(await call(app, 'GET', '/api/time')).toEqual({ status: 200, body: { now: T0 } })
    expect(await call(app, 'GET', '/api/time?zone=Asia/Kolkata&zone=America/New_York&zone=Pacific/Chatham&zone=UTC')).toEqual({
      status: 200,
      body: { now: T0, timeZones: { 'Asia/Kolkata': 330, 'America/New_York': -240, 'Pacific/Chatham': 765, UTC: 0 } },
    })
    expect(await call(app, 'GET', '/api/time?zone=Mars/Olympus')).toEqual({
      status: 400,
      body: apiError('invalid-time-zone', 'zone must be a valid IANA time zone', { field: 'zone', value: 'Mars/Olympus' }),
    })
    await host.close()
  })
})
