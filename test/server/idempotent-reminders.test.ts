import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { HostError } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { createApp } from '../../src/server/app.ts'
import { compose } from '../../src/server/compose.ts'
import { KeyedRequests } from '../../src/server/keyed-requests.ts'
import { FailingFiles } from '../support/failing-files.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, call, type Answer } from './app-harness.ts'

const T0 = Date.parse('2026-07-15T06:00:00.000Z')
const KEY = 'a3f0c2d94e1b47c8'
const SESSION_FILE = /sessions\/berlin\.jsonl$/

function keyed(key: string): Record<string, string> {
  return { 'idempotency-key': key }
}

/** The app of SPEC 8 over the real files of a temp dir (a disk that can be held or made to fail), with the Schedule service. */
async function setup() {
  const dir = await tempDir('sw-keyed-reminders-')
  const files = new FailingFiles()
  const recovery = new ManualTimers()
  const logs: string[] = []
  const { host, schedules } = await compose({
    dataDir: dir,
    model: new ScriptedModel(),
    clock: new FakeClock(T0),
    timers: new ManualTimers(),
    files,
    recoveryTimers: recovery,
    log: (line) => logs.push(line),
  })
  const app = createApp({ host, schedules })
  for (const sessionId of ['berlin', 'tokyo']) expect((await call(app, 'POST', '/api/sessions', { sessionId, timeZone: 'Europe/Berlin' })).status).toBe(201)
  return { dir, files, recovery, logs, app, host }
}

/** The `schedule/change` data on disk, in order. */
async function changesOnDisk(dir: string, id = 'berlin'): Promise<Record<string, unknown>[]> {
  const lines = (await readFile(join(dir, `sessions/${id}.jsonl`), 'utf8')).split('\n').slice(1).filter((line) => line !== '')
  return lines.map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> }).filter((e) => e.type === 'schedule/change').map((e) => e.data)
}

const operations = async (dir: string, id?: string) => (await changesOnDisk(dir, id)).map((c) => `${String(c.operation)} ${String(c.id ?? (c.schedule as { id: string }).id)}`)

const STRETCH = { prompt: 'stretch', after_seconds: 3600 }

describe('reminder routes with an Idempotency-Key', () => {
  it('makes a reminder created again under the same key once, and answers the repeat with the first answer', async () => {
    const { dir, app, host } = await setup()
    const first = await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))
    expect(first).toEqual({
      status: 201,
      body: {
        schedule: {
          id: 'schedule-1',
          kind: 'after',
          prompt: 'stretch',
          afterSeconds: 3600,
          scheduledAt: '2026-07-15T07:00:00.000Z',
          state: 'scheduled',
          deliveryMode: 'session-local',
          timeZone: 'Europe/Berlin',
          scheduledAtLocal: '2026-07-15T09:00:00+02:00[Europe/Berlin]',
          upcoming: ['2026-07-15T07:00:00.000Z'],
          deliveries: 0,
          lastDeliveredAt: null,
          missed: 0,
        },
      },
    })
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))).toEqual(first)
    // the structured-field form of the header (a quoted string) is the same key, and the order of the fields does not matter
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', { after_seconds: 3600, prompt: 'stretch' }, keyed(`"${KEY}"`))).toEqual(first)
    expect(await operations(dir)).toEqual(['create schedule-1'])
    expect(((await call(app, 'GET', '/api/sessions/berlin/schedules')).body as { schedules: unknown[] }).schedules).toHaveLength(1)
    // without a key, the same request is another reminder
    expect(((await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH)).body as { schedule: { id: string } }).schedule.id).toBe('schedule-2')
    await host.close()
  })

  it('refuses the same key for another request with 422, naming what the first made, and does nothing', async () => {
    const { dir, app, host } = await setup()
    await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))
    const reused = {
      status: 422,
      body: apiError('idempotency-key-reused', `Idempotency-Key "${KEY}" was already used for a different request`, { scheduleId: 'schedule-1' }),
    }
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules', { ...STRETCH, after_seconds: 600 }, keyed(KEY))).toEqual(reused)
    expect(await call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 }, keyed(KEY))).toEqual(reused)
    expect(await call(app, 'DELETE', '/api/sessions/berlin/schedules/schedule-1', undefined, keyed(KEY))).toEqual(reused)
    expect(await operations(dir)).toEqual(['create schedule-1'])
    await host.close()
  })

  it('holds keys per Session', async () => {
    const { dir, app, host } = await setup()
    const berlin = await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))
    const tokyo = await call(app, 'POST', '/api/sessions/tokyo/schedules', STRETCH, keyed(KEY))
    expect([berlin.status, tokyo.status]).toEqual([201, 201])
    expect(await operations(dir, 'berlin')).toEqual(['create schedule-1'])
    expect(await operations(dir, 'tokyo')).toEqual(['create schedule-1'])
    await host.close()
  })

  it('snoozes once, changes once and deletes once under a key, answering each repeat as the first', async () => {
    const { dir, app, host } = await setup()
    await call(app, 'POST', '/api/sessions/berlin/schedules', STRETCH)
    const snooze = () => call(app, 'POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 }, keyed('snooze-1'))
    const snoozed = await snooze()
    expect(snoozed.status).toBe(201)
    expect((snoozed.body as { schedule: unknown }).schedule).toMatchObject({ id: 'schedule-2', kind: 'after', prompt: 'stretch', afterSeconds: 600 })
    expect(await snooze()).toEqual(snoozed)

    const change = () => call(app, 'PATCH', '/api/sessions/berlin/schedules/schedule-1', { prompt: 'stretch your back' }, keyed('change-1'))
    const changed = await change()
    expect(changed.status).toBe(200)
    expect(await change()).toEqual(changed)

    const remove = () => call(app, 'DELETE', '/api/sessions/berlin/schedules/schedule-1', undefined, keyed('delete-1'))
    const deleted = { status: 200, body: { id: 'schedule-1', deleted: true } }
    expect(await remove()).toEqual(deleted)
    // a lost answer to a delete, sent again: deleted, not "there is no active reminder"
    expect(await remove()).toEqual(deleted)
    // without the key, the same delete finds nothing left to delete
    expect(await call(app, 'DELETE', '/api/sessions/berlin/schedules/schedule-1')).toEqual({ status: 200, body: { id: 'schedule-1', deleted: false } })
    expect(await operations(dir)).toEqual(['create schedule-1', 'create schedule-2', 'update schedule-1', 'delete schedule-1'])
    await host.close()
  })

  it('does not hold a refused request: the key may be sent again with the request mended', async () => {
    const { dir, app, host } = await setup()
    const past = { prompt: 'call home', at: { date: '2026-07-14', time: '09:00:00', time_zone: 'Europe/Berlin' } }
    expect((await call(app, 'POST', '/api/sessions/berlin/schedules', past, keyed(KEY))).body).toMatchObject({ error: { code: 'not_future' } })
    const mended = await call(app, 'POST', '/api/sessions/berlin/schedules', { ...past, at: { ...past.at, date: '2026-07-16' } }, keyed(KEY))
    expect(mended.status).toBe(201)
    expect(await operations(dir)).toEqual(['create schedule-1'])
    await host.close()
  })

  it.each([
    ['POST', '/api/sessions/berlin/schedules', STRETCH],
    ['PATCH', '/api/sessions/berlin/schedules/schedule-1', { prompt: 'x' }],
    ['POST', '/api/sessions/berlin/schedules/schedule-1/snooze', { seconds: 600 }],
    ['DELETE', '/api/sessions/berlin/schedules/schedule-1', undefined],
  ])('answers 400 to a malformed key on %s %s and does nothing', async (method, path, body) => {
    const { dir, app, host } = await setup()
    expect(await call(app, method, path, body, keyed('two words'))).toEqual({
      status: 400,
      body: apiError('bad-request', 'Idempotency-Key must be 1 to 128 letters, digits or - _ . : ~ + / ='),
    })
    expect(await changesOnDisk(dir)).toEqual([])
    await host.close()
  })
})

/** A request whose answer is noted when it arrives. */
function pending(answer: Promise<Answer>): { answer: Promise<Answer>; settled: () => boolean } {
  let settled = false
  void answer.then(() => (settled = true))
  return { answer, settled: () => settled }
}

/** A keyed create whose change is written but held at its barrier, and its repeat sent then: both unanswered 50 ms later. */
async function repeatWhileHeld(w: Awaited<ReturnType<typeof setup>>) {
  const release = w.files.hold('datasync', SESSION_FILE)
  const writes = w.files.count('write', SESSION_FILE)
  const first = pending(call(w.app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY)))
  await vi.waitFor(() => expect(w.files.count('write', SESSION_FILE)).toBe(writes + 1))
  const repeat = pending(call(w.app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY)))
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect([first.settled(), repeat.settled()]).toEqual([false, false])
  return { first, repeat, release }
}

describe('a repeated keyed reminder and the disk (SPEC 2.6)', () => {
  it('a repeat that arrives while the first is being written answers once it is durable, with the same answer', async () => {
    const w = await setup()
    const { first, repeat, release } = await repeatWhileHeld(w)
    release()
    const [one, two] = await Promise.all([first.answer, repeat.answer])
    expect(one.status).toBe(201)
    expect(two).toEqual(one)
    expect(await operations(w.dir)).toEqual(['create schedule-1'])
    await w.host.close()
  })

  it('a repeat of a create whose write failed runs again and fails too (503), and once the disk is back the same key makes it once', async () => {
    const w = await setup()
    const { first, repeat, release } = await repeatWhileHeld(w)
    w.files.inject({ op: 'datasync', code: 'EIO', path: SESSION_FILE })
    release()
    const failure = 'the create was written but could not be confirmed durable; it may be lost if the server crashes'
    const unavailable = { status: 503, body: apiError('storage-unavailable', failure, { operation: 'create', retryAfterSeconds: 1 }) }
    expect(await first.answer).toEqual(unavailable)
    // the first failed, so its key is free: the repeat ran as a new request, on a store that is now unavailable
    const since = 'storage for session berlin is unavailable: EIO: injected failure, datasync'
    expect(await repeat.answer).toEqual({ status: 503, body: apiError('storage-unavailable', since, { retryAfterSeconds: 1 }) })
    w.files.heal()
    await vi.waitFor(() => expect(w.recovery.pending.size).toBe(1))
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session berlin: storage available again'))
    expect(await changesOnDisk(w.dir)).toEqual([])
    const retried = await call(w.app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))
    expect(retried.status).toBe(201)
    expect(await call(w.app, 'POST', '/api/sessions/berlin/schedules', STRETCH, keyed(KEY))).toEqual(retried)
    expect(await operations(w.dir)).toEqual(['create schedule-1'])
    await w.host.close()
  })
})

describe('KeyedRequests', () => {
  it('keeps the newest keys only, and lets a key whose request failed be used again', async () => {
    const keyed = new KeyedRequests(2)
    let runs = 0
    const run = (value: string) => () => Promise.resolve(`${value} ${++runs}`)
    const id = (answer: string) => answer
    expect(await keyed.once('s', 'a', { n: 1 }, id, run('a'))).toBe('a 1')
    expect(await keyed.once('s', 'b', { n: 1 }, id, run('b'))).toBe('b 2')
    expect(await keyed.once('s', 'a', { n: 1 }, id, run('a'))).toBe('a 1')
    expect(await keyed.once('s', 'c', { n: 1 }, id, run('c'))).toBe('c 3')
    // "a" was the oldest of three: forgotten, so it runs again
    expect(await keyed.once('s', 'a', { n: 1 }, id, run('a'))).toBe('a 4')
    await expect(keyed.once('s', 'd', { n: 1 }, id, () => Promise.reject(new Error('disk')))).rejects.toThrow('disk')
    expect(await keyed.once('s', 'd', { n: 2 }, id, run('d'))).toBe('d 5')
    await expect(keyed.once('s', 'd', { n: 3 }, id, run('d'))).rejects.toEqual(
      new HostError('idempotency-key-reused', 'Idempotency-Key "d" was already used for a different request', { scheduleId: 'd 5' }),
    )
    // without a key, every request runs
    expect(await keyed.once('s', undefined, { n: 1 }, id, run('x'))).toBe('x 6')
    expect(await keyed.once('s', undefined, { n: 1 }, id, run('x'))).toBe('x 7')
  })
})
