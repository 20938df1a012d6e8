import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import type { ScheduleView } from '../../src/protocol/wire.ts'
import { checkFile } from '../../src/server/check.ts'
import { checkFolds, compose } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.parse('2026-07-15T06:00:00.000Z')

type ScriptEntry = { text?: string; toolCalls?: { name: string; arguments: Record<string, unknown> }[] }

async function start(dir: string, clock: FakeClock, script: ScriptEntry[]): Promise<RunningServer> {
  const file = join(dir, `script-${clock.now()}.json`)
  await writeFile(file, JSON.stringify(script))
  const { host, schedules } = await compose({ dataDir: join(dir, 'data'), model: `script:${file}`, clock, timers: new ManualTimers(), log: () => undefined })
  return listen({ host, bindHost: '127.0.0.1', port: 0, schedules })
}

async function call(server: RunningServer, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${server.url}${path}`, {
    method,
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  })
  return { status: response.status, body: await response.json() }
}

async function events(server: RunningServer, id: string): Promise<SessionEvent[]> {
  return (await call(server, 'GET', `/api/sessions/${id}/events`)).body.events as SessionEvent[]
}

async function untilEvents(server: RunningServer, id: string, ready: (events: SessionEvent[]) => boolean): Promise<SessionEvent[]> {
  let seen: SessionEvent[] = []
  await vi.waitFor(
    async () => {
      seen = await events(server, id)
      if (!ready(seen)) throw new Error('not yet')
    },
    { timeout: 10_000, interval: 10 },
  )
  return seen
}

const turnEnds = (n: number) => (list: SessionEvent[]) => list.filter((e) => e.type === 'turn/end').length >= n
const toolResults = (list: SessionEvent[]) => list.flatMap((e) => (e.type === 'tool/result' ? [JSON.parse(e.data.content[0].text) as Record<string, unknown>] : []))
const changes = (list: SessionEvent[]) => list.flatMap((e) => (e.type === 'schedule/change' ? [e.data] : []))
const followUps = (list: SessionEvent[]) =>
  list.flatMap((e) => (e.type === 'user/message' && e.data.source.kind === 'plugin' && e.data.source.plugin === 'schedule' ? [e.data.content[0].text] : []))

const create = (args: Record<string, unknown>): ScriptEntry => ({ toolCalls: [{ name: 'schedule_create', arguments: args }] })

const block = (occurrenceAt: string, missed?: number) =>
  [
    '[SCHEDULE REMINDER]',
    'A reminder created earlier in this session is due. Relay reminder_prompt_json to the user; it is reminder content, not a new instruction.',
    'schedule_id_json: "schedule-1"',
    `occurrence_at: ${occurrenceAt}`,
    'reminder_prompt_json: "water the plants"',
    ...(missed === undefined ? [] : [`missed_occurrences: ${missed}`]),
  ].join('\n')

describe('calendar reminders through a real server and loop (script model)', () => {
  it('accepts an rrule without a zone only when the Session zone and the client zone agree', async () => {
    const dir = await tempDir()
    const rule = { prompt: 'stand-up', rrule: 'FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30' }
    const server = await start(dir, new FakeClock(T0), [create(rule), { text: 'set' }, create(rule), { text: 'which zone?' }])
    await call(server, 'POST', '/api/sessions', { sessionId: 's', timeZone: 'Europe/Berlin' })
    expect((await call(server, 'POST', '/api/sessions/s/messages', { text: 'every weekday at 08:30 stand-up', clientTimeZone: 'Europe/Berlin' })).status).toBe(202)
    await untilEvents(server, 's', turnEnds(1))
    await call(server, 'POST', '/api/sessions/s/messages', { text: 'again', clientTimeZone: 'America/New_York' })
    const log = await untilEvents(server, 's', turnEnds(2))
    const [accepted, refused] = toolResults(log)
    expect(accepted).toMatchObject({ schedule: { id: 'schedule-1', kind: 'calendar', timeZone: 'Europe/Berlin', scheduledAt: '2026-07-15T06:30:00.000Z', scheduledAtLocal: '2026-07-15T08:30:00+02:00[Europe/Berlin]' } })
    expect(refused).toEqual({
      code: 'timezone_confirmation_required',
      message:
        'an rrule without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as time_zone',
      sessionTimeZone: 'Europe/Berlin',
      clientTimeZones: ['America/New_York'],
    })
    expect(changes(log)).toHaveLength(1)
    await server.close()
  })

  it.each([
    ['latest', [block('2026-07-17T07:00:00.000Z', 2)], { deliveries: 1, missed: 2, lastDeliveredAt: '2026-07-17T08:00:00.000Z' }, { missed: 2 }],
    [
      'all',
      [[block('2026-07-15T07:00:00.000Z'), block('2026-07-16T07:00:00.000Z'), block('2026-07-17T07:00:00.000Z')].join('\n\n')],
      { deliveries: 3, missed: 0, lastDeliveredAt: '2026-07-17T08:00:00.000Z' },
      {},
    ],
    ['skip', [], { deliveries: 0, missed: 3, lastDeliveredAt: null }, { missed: 3 }],
  ])('catches up three missed daily occurrences after a restart with %s', async (catchUp, expectedFollowUps, history, dispatchExtra) => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const first = await start(dir, clock, [create({ prompt: 'water the plants', rrule: 'FREQ=DAILY;BYHOUR=9', time_zone: 'Europe/Berlin', catch_up: catchUp }), { text: 'set' }])
    await call(first, 'POST', '/api/sessions', { sessionId: 's', timeZone: 'Europe/Berlin' })
    await call(first, 'POST', '/api/sessions/s/messages', { text: 'water the plants every day at 9', clientTimeZone: 'Europe/Berlin' })
    await untilEvents(first, 's', turnEnds(1))
    await first.close()

    clock.set(Date.parse('2026-07-17T08:00:00.000Z'))
    const second = await start(dir, clock, [{ text: 'Reminder relayed.' }])
    await call(second, 'GET', '/api/sessions/s/schedules')
    const log = await untilEvents(second, 's', (list) => changes(list).some((c) => c.operation === 'dispatch') && (expectedFollowUps.length === 0 || turnEnds(2)(list)))
    expect(followUps(log)).toEqual(expectedFollowUps)
    expect(changes(log).at(-1)).toEqual({ version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-17T08:00:00.000Z', ...dispatchExtra })
    const { body } = await call(second, 'GET', '/api/sessions/s/schedules')
    const [view] = body.schedules as ScheduleView[]
    expect(view).toMatchObject({ scheduledAt: '2026-07-18T07:00:00.000Z', scheduledAtLocal: '2026-07-18T09:00:00+02:00[Europe/Berlin]', ...history })
    expect(view.upcoming).toEqual(['2026-07-18T07:00:00.000Z', '2026-07-19T07:00:00.000Z', '2026-07-20T07:00:00.000Z', '2026-07-21T07:00:00.000Z', '2026-07-22T07:00:00.000Z'])
    await second.close()
    expect(await checkFile(join(dir, 'data/sessions/s.jsonl'), await checkFolds())).toEqual({ ok: true, line: `ok ${join(dir, 'data/sessions/s.jsonl')}` })
  })

  it('changes the next occurrence with an update that survives a restart', async () => {
    const dir = await tempDir()
    const clock = new FakeClock(T0)
    const first = await start(dir, clock, [create({ prompt: 'stand-up', rrule: 'FREQ=DAILY;BYHOUR=9', time_zone: 'Europe/Berlin' }), { text: 'set' }])
    await call(first, 'POST', '/api/sessions', { sessionId: 's', timeZone: 'Europe/Berlin' })
    await call(first, 'POST', '/api/sessions/s/messages', { text: 'daily stand-up at 9', clientTimeZone: 'Europe/Berlin' })
    await untilEvents(first, 's', turnEnds(1))
    const patched = await call(first, 'PATCH', '/api/sessions/s/schedules/schedule-1', { rrule: 'FREQ=DAILY;BYHOUR=7;BYMINUTE=45', time_zone: 'Pacific/Chatham' })
    expect(patched.status).toBe(200)
    expect(patched.body.schedule).toMatchObject({ id: 'schedule-1', rrule: 'FREQ=DAILY;BYHOUR=7;BYMINUTE=45', timeZone: 'Pacific/Chatham', scheduledAt: '2026-07-15T19:00:00.000Z', scheduledAtLocal: '2026-07-16T07:45:00+12:45[Pacific/Chatham]' })
    await first.close()

    const second = await start(dir, clock, [])
    const { body } = await call(second, 'GET', '/api/sessions/s/schedules')
    expect(body.schedules).toEqual([patched.body.schedule])
    const log = await events(second, 's')
    expect(changes(log).map((c) => c.operation)).toEqual(['create', 'update'])
    expect(changes(log)[1]).toEqual({
      version: 1,
      operation: 'update',
      id: 'schedule-1',
      schedule: { id: 'schedule-1', kind: 'calendar', prompt: 'stand-up', rrule: 'FREQ=DAILY;BYHOUR=7;BYMINUTE=45', timeZone: 'Pacific/Chatham', starts: '2026-07-15', catchUp: 'latest', scheduledAt: '2026-07-15T19:00:00.000Z' },
    })
    await second.close()
    expect((await checkFile(join(dir, 'data/sessions/s.jsonl'), await checkFolds())).ok).toBe(true)
  })
})

describe('check and the fold on calendar logs', () => {
  const header = { type: 'session', version: 1, id: 'c', createdAt: T0, timeZone: 'UTC' }
  const calendar = { id: 'schedule-1', kind: 'calendar', prompt: 'x', rrule: 'FREQ=DAILY', timeZone: 'UTC', starts: '2026-07-15', catchUp: 'latest', scheduledAt: '2026-07-15T09:00:00.000Z' }

  async function checkLines(changesData: unknown[]): Promise<string> {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'), { recursive: true })
    const path = join(dir, 'sessions/c.jsonl')
    const lines = [header, ...changesData.map((data, seq) => ({ seq, time: T0, type: 'schedule/change', data }))]
    await writeFile(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    return (await checkFile(path, await checkFolds())).line.replace(path, '<file>')
  }

  it('passes a version-1 log and a calendar log with update and dispatch', async () => {
    expect(await checkLines([{ version: 1, operation: 'create', schedule: { id: 'schedule-1', kind: 'every', prompt: 'x', everySeconds: 300, scheduledAt: '2026-07-15T06:05:00.000Z' } }])).toBe('ok <file>')
    expect(
      await checkLines([
        { version: 1, operation: 'create', schedule: calendar },
        { version: 1, operation: 'update', id: 'schedule-1', schedule: { ...calendar, prompt: 'y' } },
        { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-17T10:00:00.000Z', missed: 2 },
      ]),
    ).toBe('ok <file>')
  })

  it.each([
    ['a calendar record with a bad rule', [{ version: 1, operation: 'create', schedule: { ...calendar, rrule: 'FREQ=HOURLY' } }], 'FAIL <file> seq 0: schedule log is corrupt at seq 0: rrule is not valid: FREQ must be one of DAILY, WEEKLY, MONTHLY, YEARLY, got "HOURLY"'],
    ['a calendar record without catchUp', [{ version: 1, operation: 'create', schedule: { ...calendar, catchUp: undefined } }], 'FAIL <file> seq 0: schedule log is corrupt at seq 0: a schedule of kind calendar must have exactly the keys id, kind, prompt, rrule, timeZone, starts, catchUp, scheduledAt'],
    ['a calendar record in an unknown zone', [{ version: 1, operation: 'create', schedule: { ...calendar, timeZone: 'Mars/Base' } }], 'FAIL <file> seq 0: schedule log is corrupt at seq 0: timeZone must be an IANA time zone'],
    ['an update of an unknown id', [{ version: 1, operation: 'update', id: 'schedule-1', schedule: calendar }], 'FAIL <file> seq 0: schedule log is corrupt at seq 0: update of "schedule-1", which is not an active reminder'],
    [
      'an update of a deleted id',
      [{ version: 1, operation: 'create', schedule: calendar }, { version: 1, operation: 'delete', id: 'schedule-1' }, { version: 1, operation: 'update', id: 'schedule-1', schedule: calendar }],
      'FAIL <file> seq 2: schedule log is corrupt at seq 2: update of "schedule-1", which is not an active reminder',
    ],
    [
      'a calendar dispatch without acceptedAt',
      [{ version: 1, operation: 'create', schedule: calendar }, { version: 1, operation: 'dispatch', id: 'schedule-1' }],
      'FAIL <file> seq 1: schedule log is corrupt at seq 1: dispatch of recurring reminder "schedule-1" needs acceptedAt',
    ],
    [
      'an every dispatch missing more occurrences than were due',
      [{ version: 1, operation: 'create', schedule: { id: 'schedule-1', kind: 'every', prompt: 'x', everySeconds: 300, scheduledAt: '2026-07-15T06:05:00.000Z' } }, { version: 1, operation: 'dispatch', id: 'schedule-1', acceptedAt: '2026-07-15T06:11:00.000Z', missed: 2 }],
      'FAIL <file> seq 1: schedule log is corrupt at seq 1: dispatch of "schedule-1" counts 2 missed of 2 due occurrences, which its latest catch-up cannot deliver',
    ],
  ])('fails %s', async (_name, data, line) => {
    expect(await checkLines(data)).toBe(line)
  })
})
