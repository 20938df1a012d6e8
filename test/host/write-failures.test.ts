import { readdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import type { Hono } from 'hono'
import type { SessionEvent } from '../../src/protocol/events.ts'
import type { Host } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { createApp } from '../../src/server/app.ts'
import { checkFile } from '../../src/server/check.ts'
import { checkFolds, compose } from '../../src/server/compose.ts'
import { call } from '../server/app-harness.ts'
import { FailingFiles, type FaultRule } from '../support/failing-files.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.parse('2026-07-15T07:00:00.000Z')
const SESSION_FILE = /sessions\/s\.jsonl$/

type World = {
  dir: string
  app: Hono
  host: Host
  model: ScriptedModel
  clock: FakeClock
  files: FailingFiles
  recovery: ManualTimers
  reminders: ManualTimers
  logs: string[]
}

async function world(): Promise<World> {
  const dir = await tempDir('sw-wf-')
  const files = new FailingFiles()
  const recovery = new ManualTimers()
  const reminders = new ManualTimers()
  const model = new ScriptedModel()
  const clock = new FakeClock(T0)
  const logs: string[] = []
  const { host, schedules } = await compose({
    dataDir: dir,
    model,
    clock,
    files,
    timers: reminders,
    recoveryTimers: recovery,
    log: (line) => logs.push(line),
  })
  return { dir, app: createApp({ host, schedules }), host, model, clock, files, recovery, reminders, logs }
}

async function served(w: World): Promise<SessionEvent[]> {
  const answer = await call(w.app, 'GET', '/api/sessions/s/events')
  expect(answer.status).toBe(200)
  return (answer.body as { events: SessionEvent[] }).events
}

async function idle(w: World, turns: number): Promise<SessionEvent[]> {
  let events: SessionEvent[] = []
  await vi.waitFor(async () => {
    events = await served(w)
    expect(events.filter((e) => e.type === 'turn/end')).toHaveLength(turns)
    expect((await w.host.describe('s')).status).toBe('idle')
  })
  return events
}

function message(text: string) {
  return { text, clientTimeZone: 'UTC' }
}

function unavailable(w: World) {
  return vi.waitFor(() => expect(w.recovery.pending.size).toBe(1))
}

const storageUnavailable = {
  status: 503,
  body: { error: { code: 'storage-unavailable', message: 'storage for session s is unavailable; retry later', details: { retryAfterSeconds: 1 } } },
}

describe('write failures (SPEC 2.6)', () => {
  it.each<[string, FaultRule]>([
    ['ENOSPC at write', { op: 'write', code: 'ENOSPC' }],
    ['EIO at write', { op: 'write', code: 'EIO' }],
    ['EPERM at write', { op: 'write', code: 'EPERM' }],
    ['EIO at the barrier', { op: 'datasync', code: 'EIO', path: SESSION_FILE }],
    ['EDQUOT at the barrier', { op: 'datasync', code: 'EDQUOT', path: SESSION_FILE }],
  ])('%s: 503 with Retry-After, nothing undurable served, one log line each way, healed without a restart', async (_name, rule) => {
    const w = await world()
    expect((await call(w.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })).status).toBe(201)
    w.model.push({ text: 'one' }, { text: 'three' })
    expect((await call(w.app, 'POST', '/api/sessions/s/messages', message('first'))).status).toBe(202)
    const before = await idle(w, 1)

    w.files.inject(rule)
    const refused = await w.app.request('http://127.0.0.1:4280/api/sessions/s/messages', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(message('second')),
    })
    expect({ status: refused.status, retryAfter: refused.headers.get('retry-after'), code: ((await refused.json()) as { error: { code: string } }).error.code }).toEqual({
      status: 503,
      retryAfter: '1',
      code: 'storage-unavailable',
    })
    await unavailable(w)
    expect(await served(w)).toEqual(before)
    expect(await call(w.app, 'POST', '/api/sessions/s/messages', message('again'))).toEqual(storageUnavailable)
    expect(await call(w.app, 'POST', '/api/sessions/s/messages', { text: '/compact', clientTimeZone: 'UTC' })).toEqual(storageUnavailable)
    expect((await call(w.app, 'GET', '/api/sessions/s')).body).toEqual({
      session: { id: 's', createdAt: T0, timeZone: 'UTC', status: 'idle', title: 'first', eventCount: before.length },
    })

    // still failing: the retry fails quietly and backs off (100 ms, then 200 ms)
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.recovery.requested).toEqual([100, 200]))
    w.files.heal()
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session s: storage available again'))
    expect(w.logs).toEqual([
      expect.stringMatching(/^session s: storage unavailable, writes are refused until it recovers: storage for session s is unavailable: \w+: injected failure, \w+ '.*s\.jsonl'$/),
      'session s: storage available again',
    ])
    expect(w.recovery.requested).toEqual([100, 200])
    expect(await served(w)).toEqual(before)

    expect((await call(w.app, 'POST', '/api/sessions/s/messages', message('third'))).status).toBe(202)
    const after = await idle(w, 2)
    expect(after.slice(0, before.length)).toEqual(before)
    expect(after[before.length]).toMatchObject({ seq: before.length, type: 'inbox/enqueued', data: { message: { content: [{ type: 'text', text: 'third' }] } } })
    const texts = after.flatMap((e) => (e.type === 'user/message' && e.data.source.kind === 'user' ? [e.data.content[0].text] : []))
    expect(texts).toEqual(['first', 'third'])
    const onDisk = (await readFile(join(w.dir, 'sessions/s.jsonl'), 'utf8')).trimEnd().split('\n').slice(1)
    expect(onDisk).toEqual(after.map((e) => JSON.stringify(e)))
    expect(await checkFile(join(w.dir, 'sessions/s.jsonl'), await checkFolds())).toEqual({ ok: true, line: `ok ${join(w.dir, 'sessions/s.jsonl')}` })
    await w.host.close()
  })

  it('stops a turn whose writes fail without spinning, and runs its message exactly once after recovery', async () => {
    const w = await world()
    await w.host.createSession({ id: 's', timeZone: 'UTC' })
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    w.model.push(async () => {
      await gate
      return { text: 'late' }
    })
    expect((await call(w.app, 'POST', '/api/sessions/s/messages', message('slow'))).status).toBe(202)
    await vi.waitFor(async () => {
      expect(w.model.requests).toHaveLength(1)
      expect((await served(w)).map((e) => e.type)).toContain('request/header')
    })
    const durableBefore = (await served(w)).length
    w.files.inject({ op: 'datasync', code: 'EIO', path: SESSION_FILE })
    release()
    await unavailable(w)
    const attempts = w.files.count('write', SESSION_FILE) + w.files.count('datasync', SESSION_FILE)
    // nothing is left running: no reminder timer, one recovery timer, no new write attempts
    expect({ recovery: w.recovery.pending.size, reminders: w.reminders.pending.size, requests: w.model.requests.length }).toEqual({
      recovery: 1,
      reminders: 0,
      requests: 1,
    })
    await new Promise((resolve) => setImmediate(resolve))
    expect(w.files.count('write', SESSION_FILE) + w.files.count('datasync', SESSION_FILE)).toBe(attempts)
    expect(w.logs).toHaveLength(1)

    w.files.heal()
    w.model.push({ text: 'again' })
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session s: storage available again'))
    const events = await vi.waitFor(async () => {
      const all = await served(w)
      expect(all.at(-1)?.type).toBe('turn/end')
      return all
    })
    expect(events.length).toBeGreaterThanOrEqual(durableBefore)
    const entered = events.filter((e) => e.type === 'user/message' && e.data.source.kind === 'user')
    expect(entered.map((e) => (e.type === 'user/message' ? e.data.content[0].text : ''))).toEqual(['slow'])
    const ends = events.flatMap((e) => (e.type === 'turn/end' ? [e.data] : []))
    expect(ends[0]).toEqual({ turn: 1, reason: 'error', message: 'interrupted: the host stopped during this turn' })
    expect(await checkFile(join(w.dir, 'sessions/s.jsonl'), await checkFolds())).toMatchObject({ ok: true })
    await w.host.close()
  })

  it('answers /compact with 503 when its barrier fails, and the compaction leaves no trace', async () => {
    const w = await world()
    await w.host.createSession({ id: 's', timeZone: 'UTC' })
    w.model.push({ text: 'one' })
    await call(w.app, 'POST', '/api/sessions/s/messages', message('first'))
    const before = await idle(w, 1)
    w.files.inject({ op: 'datasync', code: 'EIO', path: SESSION_FILE })
    expect((await call(w.app, 'POST', '/api/sessions/s/messages', { text: '/compact', clientTimeZone: 'UTC' })).status).toBe(503)
    w.files.heal()
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session s: storage available again'))
    expect(await served(w)).toEqual(before)
    expect(before.some((e) => e.type === 'compact/summary')).toBe(false)
    expect((await call(w.app, 'POST', '/api/sessions/s/messages', { text: '/compact', clientTimeZone: 'UTC' })).status).toBe(202)
    expect((await served(w)).filter((e) => e.type === 'compact/summary')).toHaveLength(1)
    await w.host.close()
  })

  it('refuses to create a session on a full disk with 503 and leaves no file behind', async () => {
    const w = await world()
    w.files.inject({ op: 'write', code: 'ENOSPC' })
    expect(await call(w.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'n' })).toEqual({
      status: 503,
      body: {
        error: {
          code: 'storage-unavailable',
          message: expect.stringContaining('storage for session n is unavailable: ENOSPC: injected failure'),
          details: { retryAfterSeconds: 1 },
        },
      },
    })
    expect(await readdir(join(w.dir, 'sessions'))).toEqual([])
    w.files.heal()
    expect((await call(w.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'n' })).status).toBe(201)
    await w.host.close()
  })

  it('delivers a reminder that came due while the store was unavailable once it returns, exactly once', async () => {
    const w = await world()
    await w.host.createSession({ id: 's', timeZone: 'UTC' })
    w.model.push(
      { text: '', toolCalls: [{ callId: 'c1', name: 'schedule_create', arguments: JSON.stringify({ prompt: 'stretch', after_seconds: 300 }) }] },
      { text: 'set' },
    )
    await call(w.app, 'POST', '/api/sessions/s/messages', message('remind me'))
    await idle(w, 1)
    expect(w.reminders.pending.size).toBe(1)
    w.clock.advance(300_000)
    w.files.inject({ op: 'datasync', code: 'ENOSPC', path: SESSION_FILE })
    w.reminders.fireAll()
    await unavailable(w)
    expect(w.logs).toEqual([expect.stringMatching(/^session s: storage unavailable/)])
    expect(w.reminders.pending.size).toBe(0)
    w.files.heal()
    w.model.push({ text: 'Reminder: stretch' })
    w.recovery.fireAll()
    const events = await idle(w, 2)
    const followUps = events.filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin' && e.data.source.plugin === 'schedule')
    const dispatches = events.filter((e) => e.type === 'schedule/change' && (e.data as { operation: string }).operation === 'dispatch')
    expect({ followUps: followUps.length, dispatches: dispatches.length }).toEqual({ followUps: 1, dispatches: 1 })
    expect(w.logs).toEqual([expect.stringMatching(/^session s: storage unavailable/), 'session s: storage available again'])
    await w.host.close()
  })
  it('lists reminders from the durable log while the store is unavailable, never a refused change left in the file', async () => {
    const w = await world()
    await w.host.createSession({ id: 's', timeZone: 'UTC' })
    expect((await call(w.app, 'POST', '/api/sessions/s/schedules', { prompt: 'stretch', after_seconds: 300 })).status).toBe(201)
    const listed = await call(w.app, 'GET', '/api/sessions/s/schedules')
    expect(listed).toMatchObject({ status: 200, body: { schedules: [{ prompt: 'stretch' }] } })
    // the refused reminder's change stays in the file: its barrier fails, and so does the cut back to the durable bytes
    w.files.inject({ op: 'datasync', code: 'ENOSPC', path: SESSION_FILE })
    w.files.inject({ op: 'truncate', code: 'EIO', path: SESSION_FILE })
    expect((await call(w.app, 'POST', '/api/sessions/s/schedules', { prompt: 'drink water', after_seconds: 600 })).status).toBe(503)
    await unavailable(w)
    expect(await readFile(join(w.dir, 'sessions/s.jsonl'), 'utf8')).toContain('drink water')
    // a file that cannot be read either: the list is unavailable too (on the code before, every list was)
    w.files.inject({ op: 'open', code: 'EIO', path: SESSION_FILE })
    expect(await call(w.app, 'GET', '/api/sessions/s/schedules')).toMatchObject({ status: 503, body: { error: { code: 'storage-unavailable' } } })
    w.files.heal()
    w.files.inject({ op: 'datasync', code: 'ENOSPC', path: SESSION_FILE })
    // readable again, writes still failing: the durable reminders, and only those
    expect(await call(w.app, 'GET', '/api/sessions/s/schedules')).toEqual(listed)
    expect(await call(w.app, 'GET', '/api/sessions/s/schedules')).toEqual(listed)
    expect(await call(w.app, 'POST', '/api/sessions/s/schedules', { prompt: 'drink water', after_seconds: 600 })).toEqual(storageUnavailable)
    expect(w.recovery.pending.size).toBe(1)
    w.files.heal()
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session s: storage available again'))
    expect(await call(w.app, 'GET', '/api/sessions/s/schedules')).toEqual(listed)
    expect(await readFile(join(w.dir, 'sessions/s.jsonl'), 'utf8')).not.toContain('drink water')
    await w.host.close()
  })
})
