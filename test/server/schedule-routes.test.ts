import { describe, expect, it } from 'vitest'
import { canonicalTimeZone } from '../../src/protocol/time-zone.ts'
import { createApp } from '../../src/server/app.ts'
import { compose } from '../../src/server/compose.ts'
import { listen } from '../../src/server/serve.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, call } from './app-harness.ts'

const T0 = Date.parse('2026-07-15T06:00:00.000Z')

async function setup() {
  const dir = await tempDir()
  const clock = new FakeClock(T0)
  const timers = new ManualTimers()
  const { host, schedules } = await compose({ dataDir: dir, model: new ScriptedModel(), clock, timers, log: () => undefined })
  const app = createApp({ host, schedules })
  await call(app, 'POST', '/api/sessions', { sessionId: 'berlin', timeZone: 'Europe/Berlin' })
  return { dir, host, app, clock, timers, schedules }
}

const noHistory = { deliveries: 0, lastDeliveredAt: null, missed: 0 }

/** The whole view of a calendar reminder just made (the first of its Session, scheduled, never delivered). */
function newCalendarView(fields: { prompt: string; rrule: string; starts: string; scheduledAt: string; timeZone: string; scheduledAtLocal: string; upcoming: string[] }) {
  return {
    id: 'schedule-1',
    kind: 'calendar',
    prompt: fields.prompt,
    rrule: fields.rrule,
    starts: fields.starts,
    catchUp: 'latest',
    scheduledAt: fields.scheduledAt,
    state: 'scheduled',
    deliveryMode: 'session-local',
    timeZone: fields.timeZone,
    scheduledAtLocal: fields.scheduledAtLocal,
    upcoming: fields.upcoming,
    ...noHistory,
  }
}

describe('POST /api/sessions/:id/schedules', () => {
  it('creates a calendar reminder in the zone picked on screen: 201 with its view, durable', async () => {
    const { app, host } = await setup()
    const answer = await call(app, 'POST', '/api/sessions/berlin/schedules', {
      prompt: 'stand-up',
      rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30',
      time_zone: 'America/New_York',
    })
    expect(answer).toEqual({
      status: 201,
      body: {
        schedule: newCalendarView({
          prompt: 'stand-up',
          rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30',
          starts: '2026-07-15',
          scheduledAt: '2026-07-15T12:30:00.000Z',
          timeZone: 'America/New_York',
          scheduledAtLocal: '2026-07-15T08:30:00-04:00[America/New_York]',
          upcoming: ['2026-07-15T12:30:00.000Z', '2026-07-16T12:30:00.000Z', '2026-07-17T12:30:00.000Z', '2026-07-20T12:30:00.000Z', '2026-07-21T12:30:00.000Z'],
        }),
      },
    })
    expect((await call(app, 'GET', '/api/sessions/berlin/schedules')).body).toEqual({ schedules: [answer.body && (answer.body as { schedule: unknown }).schedule] })
    await host.close()
  })

  it.each([
    [{ prompt: 'x', rrule: 'FREQ=HOURLY', time_zone: 'UTC' }, 'invalid_rule', 'rrule is not valid: FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY, got "HOURLY"', {}],
    [{ prompt: ' ', after_seconds: 60 }, 'invalid_prompt', 'prompt must be a non-empty string', {}],
    [{ prompt: 'x\u0000', after_seconds: 60 }, 'invalid_prompt', 'prompt must not contain the character U+0000', {}],
    [{ prompt: 'x', at: '2026-07-15T05:00:00Z' }, 'not_future', 'the target 2026-07-15T05:00:00.000Z is not in the future (now is 2026-07-15T06:00:00.000Z)', {}],
    [{ prompt: 'x', every_seconds: 60 }, 'frequency_too_high', 'every_seconds must be at least 300, got 60', {}],
    [{ prompt: 'x', after_seconds: 60, at: '2027-01-01T00:00:00Z' }, 'invalid_selector', 'exactly one of after_seconds, at, every_seconds, rrule is required, got after_seconds, at', {}],
    [{ prompt: 'x', rrule: 'FREQ=DAILY', time_zone: 'PST' }, 'invalid_time_zone', 'time_zone must be an IANA time zone name such as "Europe/Berlin", got "PST"', {}],
    [
      { prompt: 'x', at: { date: '2026-07-16', time: '09:00:00' } },
      'timezone_confirmation_required',
      'a local at without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as at.time_zone',
      { sessionTimeZone: 'Europe/Berlin', clientTimeZones: [] },
    ],
  ])('answers a Schedule domain error %j with 422 and writes nothing', async (body, code, message, details) => {
    const { app, host } = await setup()
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', body)).toEqual({ status: 422, body: apiError(code, message, details) })
    const session = await host.openSession('berlin')
    expect(session.events().some((e) => e.type === 'schedule/change')).toBe(false)
    await host.close()
  })

  it('never takes a local time\'s zone from the turn that is open: a person\'s route sends the zone it means (SPEC 7.9)', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const model = new ScriptedModel()
    let answer: () => void = () => undefined
    model.push(() => new Promise((resolve) => (answer = () => resolve({ text: 'done' }))))
    const { host, schedules } = await compose({ dataDir: dir, model, clock, timers: new ManualTimers(), log: () => undefined })
    const app = createApp({ host, schedules })
    await call(app, 'POST', '/api/sessions', { sessionId: 'berlin', timeZone: 'Europe/Berlin' })
    // a Berlin browser's message opens a turn whose reading resolves the client zone to the Session's
    expect((await call(app, 'POST', '/api/sessions/berlin/messages', { text: 'hello', clientTimeZone: 'Europe/Berlin' })).status).toBe(202)
    const session = await host.openSession('berlin')
    for (let i = 0; i < 200 && model.requests.length === 0; i++) await new Promise((r) => setTimeout(r, 5))
    expect(model.requests).toHaveLength(1)
    const local = { date: '2026-07-16', time: '09:00:00' }
    // on the code before, 201 in Europe/Berlin: the route took the zone of whoever's turn was open
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'x', at: local })).toEqual({
      status: 422,
      body: apiError(
        'timezone_confirmation_required',
        'a local at without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as at.time_zone',
        { sessionTimeZone: 'Europe/Berlin', clientTimeZones: [] },
      ),
    })
    const made = await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'x', after_seconds: 600 })
    expect(made.status).toBe(201)
    expect((await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-1', { at: local })).status).toBe(422)
    expect(session.events().filter((e) => e.type === 'schedule/change').length).toBe(1)
    answer()
    await host.close()
  })

  it.each([
    ['{', 'request body is not valid JSON'],
    [JSON.stringify({ prompt: 5, after_seconds: 60 }), 'prompt: Invalid input: expected string, received number'],
    [JSON.stringify({ prompt: 'x', after_seconds: '60' }), 'after_seconds: Invalid input: expected number, received string'],
    [JSON.stringify({ prompt: 'x', after_seconds: 60, colour: 'red' }), 'body: Unrecognized key: "colour"'],
    [JSON.stringify([]), 'body: Invalid input: expected object, received array'],
  ])('answers a malformed body %s with 400', async (body, message) => {
    const { app, host } = await setup()
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', body)).toEqual({ status: 400, body: apiError('bad-request', message) })
    await host.close()
  })

  it('answers a rule whose BYSETPOS picks deep in each week, counted from a series start a century back, at once (it held the event loop for minutes)', async () => {
    const { app, host } = await setup()
    const everyFiveMinutes = `BYHOUR=${Array.from({ length: 24 }, (_, h) => h).join(',')};BYMINUTE=${Array.from({ length: 12 }, (_, m) => m * 5).join(',')}`
    // each week holds 7 x 288 candidate times from Monday; the 366th is Tuesday 06:25, the 9999th of those comes in 2091
    const rrule = `FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR,SA,SU;${everyFiveMinutes};BYSETPOS=366;COUNT=9999`
    const answer = await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'deep pick', rrule, time_zone: 'UTC', starts: '1900-01-01' })
    expect(answer).toEqual({
      status: 201,
      body: {
        schedule: newCalendarView({
          prompt: 'deep pick',
          rrule,
          starts: '1900-01-01',
          scheduledAt: '2026-07-21T06:25:00.000Z',
          timeZone: 'UTC',
          scheduledAtLocal: '2026-07-21T06:25:00+00:00[UTC]',
          upcoming: ['2026-07-21T06:25:00.000Z', '2026-07-28T06:25:00.000Z', '2026-08-04T06:25:00.000Z', '2026-08-11T06:25:00.000Z', '2026-08-18T06:25:00.000Z'],
        }),
      },
    })
    await host.close()
  })

  it('answers 404 for an unknown Session', async () => {
    const { app, host } = await setup()
    expect((await call(app, 'POST', '/api/sessions/nobody/schedules', { prompt: 'x', after_seconds: 60 })).status).toBe(404)
    await host.close()
  })
})

describe('PATCH /api/sessions/:id/schedules/:scheduleId', () => {
  it('changes a reminder, re-validated like create, and answers 200 with its view', async () => {
    const { app, host } = await setup()
    await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'tea', at: { date: '2026-07-16', time: '09:00:00', time_zone: 'Europe/Berlin' } })
    expect(await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-1', { prompt: 'green tea', time_zone: 'Asia/Shanghai' })).toEqual({
      status: 200,
      body: {
        schedule: {
          id: 'schedule-1',
          kind: 'at',
          prompt: 'green tea',
          scheduledAt: '2026-07-16T01:00:00.000Z',
          state: 'scheduled',
          deliveryMode: 'session-local',
          timeZone: 'Asia/Shanghai',
          scheduledAtLocal: '2026-07-16T09:00:00+08:00[Asia/Shanghai]',
          upcoming: ['2026-07-16T01:00:00.000Z'],
          ...noHistory,
        },
      },
    })
    expect(await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-1', { at: '2026-07-15T05:00:00Z' })).toEqual({
      status: 422,
      body: apiError('not_future', 'the target 2026-07-15T05:00:00.000Z is not in the future (now is 2026-07-15T06:00:00.000Z)', {}),
    })
    expect(await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-1', { id: 'schedule-2' })).toEqual({ status: 400, body: apiError('bad-request', 'body: Unrecognized key: "id"') })
    await host.close()
  })

  it('answers 404 schedule_not_found for an unknown or finished reminder', async () => {
    const { app, host } = await setup()
    expect(await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-9', { prompt: 'x' })).toEqual({
      status: 404,
      body: apiError('schedule_not_found', 'there is no active reminder "schedule-9"', { id: 'schedule-9' }),
    })
    await host.close()
  })
})

/** A Session with the reminder "stretch" (schedule-1) made at 06:00 and delivered at 06:01. */
async function deliveredStretch() {
  const world = await setup()
  const { app, host, clock, timers } = world
  await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'stretch', after_seconds: 60 })
  clock.advance(60_000)
  timers.fireAll()
  const session = await host.openSession('berlin')
  for (let i = 0; i < 100 && !session.events().some((e) => e.type === 'schedule/change' && e.data.operation === 'dispatch'); i++) await new Promise((r) => setTimeout(r, 5))
  return { ...world, session }
}

describe('POST /api/sessions/:id/schedules/:scheduleId/snooze', () => {
  it('creates a new after reminder with the same prompt, also for a reminder that was already delivered', async () => {
    const { app, host } = await deliveredStretch()
    expect((await call(app, 'GET', '/api/sessions/berlin/schedules')).body).toEqual({ schedules: [] })
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 })).toEqual({
      status: 201,
      body: {
        schedule: {
          id: 'schedule-2',
          kind: 'after',
          prompt: 'stretch',
          afterSeconds: 600,
          scheduledAt: '2026-07-15T06:11:00.000Z',
          state: 'scheduled',
          deliveryMode: 'session-local',
          timeZone: 'Europe/Berlin',
          scheduledAtLocal: '2026-07-15T08:11:00+02:00[Europe/Berlin]',
          upcoming: ['2026-07-15T06:11:00.000Z'],
          ...noHistory,
        },
      },
    })
    await host.close()
  })

  it('answers a Snooze sent again under its key with the snooze as it is now, moved since by another', async () => {
    const { app, host, clock, session } = await deliveredStretch()
    const snooze = async (seconds: number, key?: string) => {
      const answer = await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds }, key === undefined ? {} : { 'idempotency-key': key })
      const { id, afterSeconds, scheduledAt } = (answer.body as { schedule: { id: string; afterSeconds: number; scheduledAt: string } }).schedule
      return [answer.status, id, afterSeconds, scheduledAt]
    }
    const key = 'snooze:schedule-1:2026-07-15T06:01:00.000Z:600'
    expect(await snooze(600, key)).toEqual([201, 'schedule-2', 600, '2026-07-15T06:11:00.000Z'])
    clock.advance(60_000)
    // moved to 30 minutes (as "snooze 30 min" in words does), then the first browser's request comes from a third
    expect((await call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-2', { after_seconds: 1800 })).status).toBe(200)
    // on the code before, the first answer again: 10 minutes, though the reminder comes back in 30
    expect(await snooze(600, key)).toEqual([201, 'schedule-2', 1800, '2026-07-15T06:32:00.000Z'])
    // another length is another request: a new snooze
    expect(await snooze(900)).toEqual([201, 'schedule-3', 900, '2026-07-15T06:17:00.000Z'])
    const operations = session.events().flatMap((e) => (e.type === 'schedule/change' ? [e.data.operation] : []))
    expect(operations).toEqual(['create', 'dispatch', 'create', 'update', 'create'])
    await host.close()
  })

  it('snoozes the occurrence anew when a Snooze comes again under its key after that snooze was deleted', async () => {
    const { app, host, session } = await deliveredStretch()
    const key = 'snooze:schedule-1:2026-07-15T06:01:00.000Z:600'
    const snooze = () => call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 }, { 'idempotency-key': key })
    const ids = async () => ((await call(app, 'GET', '/api/sessions/berlin/schedules')).body as { schedules: { id: string }[] }).schedules.map((s) => s.id)
    const first = await snooze()
    expect([first.status, (first.body as { schedule: { id: string } }).schedule.id]).toEqual([201, 'schedule-2'])
    expect(await call(app, 'DELETE', '/api/sessions/berlin/schedules/schedule-2')).toEqual({ status: 200, body: { id: 'schedule-2', deleted: true } })
    // on the code before, the deleted snooze was answered as scheduled and nothing was snoozed
    const again = await snooze()
    expect([again.status, (again.body as { schedule: { id: string; state: string } }).schedule.id, (again.body as { schedule: { state: string } }).schedule.state]).toEqual([201, 'schedule-3', 'scheduled'])
    expect(await ids()).toEqual(['schedule-3'])
    // and the key now names that snooze: a further repeat answers it, making nothing more
    const third = await snooze()
    expect([third.status, (third.body as { schedule: { id: string } }).schedule.id]).toEqual([201, 'schedule-3'])
    const operations = session.events().flatMap((e) => (e.type === 'schedule/change' ? [e.data.operation] : []))
    expect(operations).toEqual(['create', 'dispatch', 'create', 'delete', 'create'])
    await host.close()
  })

  it.each([[59], [86_401], ['600'], [60.5]])('answers 400 for seconds %j', async (seconds) => {
    const { app, host } = await setup()
    await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'stretch', after_seconds: 60 })
    expect((await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds })).status).toBe(400)
    await host.close()
  })

  it('answers 404 schedule_not_found for a deleted reminder and writes nothing, though one delivered stays snoozable', async () => {
    const { app, host, session } = await deliveredStretch()
    await call(app, 'POST', '/api/sessions/berlin/schedules', { prompt: 'water the plants', every_seconds: 3600 })
    expect(await call(app, 'DELETE', '/api/sessions/berlin/schedules/schedule-2')).toEqual({ status: 200, body: { id: 'schedule-2', deleted: true } })
    // on the code before, 201 with a new reminder "water the plants", though the person had deleted it
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-2/snooze', { seconds: 600 })).toEqual({
      status: 404,
      body: apiError('schedule_not_found', 'there is no active reminder "schedule-2"', { id: 'schedule-2' }),
    })
    expect((await call(app, 'GET', '/api/sessions/berlin/schedules')).body).toEqual({ schedules: [] })
    const operations = () => session.events().flatMap((e) => (e.type === 'schedule/change' ? [e.data.operation] : []))
    expect(operations()).toEqual(['create', 'dispatch', 'create', 'delete'])
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 })).toEqual({
      status: 201,
      body: {
        schedule: {
          id: 'schedule-3',
          kind: 'after',
          prompt: 'stretch',
          afterSeconds: 600,
          scheduledAt: '2026-07-15T06:11:00.000Z',
          state: 'scheduled',
          deliveryMode: 'session-local',
          timeZone: 'Europe/Berlin',
          scheduledAtLocal: '2026-07-15T08:11:00+02:00[Europe/Berlin]',
          upcoming: ['2026-07-15T06:11:00.000Z'],
          ...noHistory,
        },
      },
    })
    expect(operations()).toEqual(['create', 'dispatch', 'create', 'delete', 'create'])
    await host.close()
  })

  it('answers 404 schedule_not_found for a reminder the Session never had', async () => {
    const { app, host } = await setup()
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-3/snooze', { seconds: 600 })).toEqual({
      status: 404,
      body: apiError('schedule_not_found', 'there is no active reminder "schedule-3"', { id: 'schedule-3' }),
    })
    await host.close()
  })
})

describe('reminder routes on a real server', () => {
  it('creates, changes and snoozes over HTTP', async () => {
    const dir = await tempDir()
    const { host, schedules } = await compose({ dataDir: dir, model: new ScriptedModel(), clock: new FakeClock(T0), timers: new ManualTimers(), log: () => undefined })
    const server = await listen({ host, bindHost: '127.0.0.1', port: 0, schedules })
    const send = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${server.url}${path}`, { method, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      return { status: response.status, body: (await response.json()) as { schedule?: Record<string, unknown>; error?: Record<string, unknown> } }
    }
    await send('POST', '/api/sessions', { sessionId: 's', timeZone: 'Asia/Kolkata' })
    const created = await send('POST', '/api/sessions/s/schedules', { prompt: 'rent', rrule: 'FREQ=MONTHLY;BYMONTHDAY=1', time_zone: 'Asia/Kolkata', catch_up: 'skip' })
    expect([created.status, created.body.schedule?.scheduledAtLocal]).toEqual([201, `2026-08-01T09:00:00+05:30[${canonicalTimeZone('Asia/Kolkata')}]`])
    const changed = await send('PATCH', '/api/sessions/s/schedules/schedule-1', { catch_up: 'all' })
    expect([changed.status, changed.body.schedule?.catchUp]).toEqual([200, 'all'])
    const snoozed = await send('POST', '/api/sessions/s/schedules/schedule-1/snooze', { seconds: 3600 })
    expect([snoozed.status, snoozed.body.schedule?.kind, snoozed.body.schedule?.prompt]).toEqual([201, 'after', 'rent'])
    const refused = await send('POST', '/api/sessions/s/schedules', { prompt: 'x', rrule: 'FREQ=DAILY;BYMINUTE=0,1', time_zone: 'UTC' })
    expect([refused.status, refused.body.error?.code]).toEqual([422, 'frequency_too_high'])
    await server.close()
  })
})
