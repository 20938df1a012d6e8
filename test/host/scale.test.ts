import { rm, writeFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { JsonlStore, StoreError, type Store } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { compose } from '../../src/server/compose.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { settle } from '../support/host-harness.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.parse('2026-07-15T07:00:00.000Z')

/** The JSONL store with every log read counted (opening for writing, and read-only scans). */
async function countingStore(dataDir: string): Promise<{ store: Store; opened: string[]; scanned: string[] }> {
  const inner = await JsonlStore.open({ dataDir })
  const opened: string[] = []
  const scanned: string[] = []
  const store = new Proxy(inner, {
    get(target, key, receiver) {
      if (key === 'openSession') return (id: string, visit: never) => (opened.push(id), target.openSession(id, visit))
      if (key === 'scanSession') return (id: string, visit: never) => (scanned.push(id), target.scanSession(id, visit))
      const value: unknown = Reflect.get(target, key, receiver)
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value
    },
  })
  return { store, opened, scanned }
}

async function build(dataDir: string, options: { store?: Store; maxOpenSessions?: number; model?: ScriptedModel; clock?: FakeClock; log?: (line: string) => void } = {}) {
  const timers = new ManualTimers()
  const reminders = new ManualTimers()
  const model = options.model ?? new ScriptedModel()
  const clock = options.clock ?? new FakeClock(T0)
  const { host, schedules } = await compose({
    dataDir,
    model,
    clock,
    timers: reminders,
    recoveryTimers: timers,
    log: options.log ?? (() => undefined),
    ...(options.store ? { store: options.store } : {}),
    ...(options.maxOpenSessions ? { maxOpenSessions: options.maxOpenSessions } : {}),
  })
  return { host, schedules, timers, reminders, model, clock }
}

function rpc(text: string) {
  return { text, clientTimeZone: 'UTC' }
}

/** Session `remind` asks for a reminder in 10 minutes ("stretch"), which the model creates. */
async function remindIn10Minutes(world: Awaited<ReturnType<typeof build>>): Promise<void> {
  await world.host.createSession({ id: 'remind', timeZone: 'UTC' })
  world.model.push(
    { text: '', toolCalls: [{ callId: 'c1', name: 'schedule_create', arguments: JSON.stringify({ prompt: 'stretch', after_seconds: 600 }) }] },
    { text: 'set' },
  )
  await world.host.send('remind', rpc('remind me in 10 minutes'))
  await settle(await world.host.openSession('remind'))
}

/**
 * Session `queued` holds a message accepted but never run (the process died before the turn: only its
 * inbox/enqueued is on disk), and the catalog of summaries is gone, so only a start-up's work reopens it.
 */
async function leaveQueuedMessage(dir: string): Promise<void> {
  const message = { id: 'm-late', role: 'user', content: [{ type: 'text', text: 'run me' }], source: { kind: 'user', rpcId: 'r', clientTimeZone: 'UTC' } }
  await writeFile(
    join(dir, 'sessions/queued.jsonl'),
    `${JSON.stringify({ type: 'session', version: 1, id: 'queued', createdAt: T0, timeZone: 'UTC' })}\n${JSON.stringify({ seq: 0, time: T0, type: 'inbox/enqueued', data: { target: 'next-turn', message } })}\n`,
  )
  await rm(join(dir, 'catalog.json'))
}

describe('sessions on demand (SPEC 12.1)', () => {
  it('rebuilds a missing summary for readers with one scan of the log, shared by the requests that come at once', async () => {
    const dir = await tempDir()
    const first = await build(dir)
    await first.host.createSession({ id: 'lost', timeZone: 'UTC' })
    await first.host.send('lost', rpc('hello'))
    await settle(await first.host.openSession('lost'))
    await first.host.close()
    // the catalog of summaries gone: start-up rebuilds it; a summary lost after that is rebuilt when a reader asks
    const counted = await countingStore(dir)
    const second = await build(dir, { store: counted.store })
    const inner = counted.store as unknown as { readEntry(id: string): Promise<{ summary: unknown }> }
    const readEntry = inner.readEntry.bind(inner)
    inner.readEntry = async (id: string) => ({ ...(await readEntry(id)), summary: null })
    const [page, stream, described] = await Promise.all([second.host.readEvents('lost', { limit: 2 }), second.host.feed('lost'), second.host.describe('lost')])
    expect(page.page.eventCount).toBe(9)
    expect(stream.header.id).toBe('lost')
    expect(described.eventCount).toBe(9)
    // on the code before, each request ran its own scan
    expect(counted.scanned).toEqual(['lost'])
    await second.host.close()
  })

  it('starts without opening a log and lists and describes sessions from their summaries', async () => {
    const dir = await tempDir()
    const first = await build(dir)
    for (let i = 0; i < 12; i++) {
      first.clock.advance(1000)
      await first.host.createSession({ id: `s${i}`, timeZone: 'UTC' })
      await first.host.send(`s${i}`, rpc(`hello number ${i}`))
      await settle(await first.host.openSession(`s${i}`))
    }
    await first.host.close()

    const counted = await countingStore(dir)
    const second = await build(dir, { store: counted.store })
    await second.host.start()
    const page = await second.host.listSessions({ limit: 5 })
    expect(page.sessions.map((s) => [s.header.id, s.title, s.eventCount, s.status])).toEqual(
      [11, 10, 9, 8, 7].map((i) => [`s${i}`, `hello number ${i}`, 9, 'idle']),
    )
    const rest = await second.host.listSessions({ limit: 50, before: page.nextCursor as string })
    expect(rest.sessions.map((s) => s.header.id)).toEqual([6, 5, 4, 3, 2, 1, 0].map((i) => `s${i}`))
    expect(await second.host.describe('s3')).toEqual({
      header: { type: 'session', version: 1, id: 's3', createdAt: T0 + 4000, timeZone: 'UTC' },
      title: 'hello number 3',
      eventCount: 9,
      status: 'idle',
    })
    const events = await second.host.readEvents('s3', { limit: 3 })
    expect(events.page.events.map((e) => e.seq)).toEqual([6, 7, 8])
    expect({ opened: counted.opened, scanned: counted.scanned, open: second.host.openCount }).toEqual({ opened: [], scanned: [], open: 0 })
    await second.host.close()
  })

  it('rebuilds a missing summary from the log once, and reopens only sessions a restart left with work', async () => {
    const dir = await tempDir()
    const first = await build(dir)
    await first.host.createSession({ id: 'idle', timeZone: 'UTC' })
    await first.host.createSession({ id: 'queued', timeZone: 'UTC' })
    first.model.push({ text: 'one' })
    await first.host.send('idle', rpc('done already'))
    await settle(await first.host.openSession('idle'))
    await first.host.close()
    await leaveQueuedMessage(dir)

    const counted = await countingStore(dir)
    const second = await build(dir, { store: counted.store })
    second.model.push({ text: 'ran' })
    await second.host.start()
    expect({ opened: counted.opened, scanned: counted.scanned.sort() }).toEqual({ opened: ['queued'], scanned: ['idle', 'queued'] })
    await settle(await second.host.openSession('queued'))
    expect(second.model.requests).toHaveLength(1)
    expect((await second.host.describe('idle')).title).toBe('done already')
    await second.host.close()
  })

  it('holds at most --max-open-sessions open, closing the least recently used idle ones, which keep working when reopened', async () => {
    const dir = await tempDir()
    const world = await build(dir, { maxOpenSessions: 2 })
    for (const id of ['a', 'b', 'c', 'd']) {
      await world.host.createSession({ id, timeZone: 'UTC' })
      world.model.push({ text: `answer ${id}` })
      await world.host.send(id, rpc(`to ${id}`))
      await settle(await world.host.openSession(id))
      await vi.waitFor(() => expect(world.host.openCount).toBeLessThanOrEqual(2))
    }
    expect(world.host.openCount).toBe(2)
    world.model.push({ text: 'again a' })
    await world.host.send('a', rpc('back to a'))
    const a = await world.host.openSession('a')
    await settle(a)
    const texts = a.events().flatMap((e: SessionEvent) => (e.type === 'assistant/message' ? [e.data.content[0].text] : []))
    expect(texts).toEqual(['answer a', 'again a'])
    await vi.waitFor(() => expect(world.host.openCount).toBe(2))
    await world.host.close()
  })

  it('delivers a reminder of a session that is not open: the due index reopens it', async () => {
    const dir = await tempDir()
    const world = await build(dir, { maxOpenSessions: 1 })
    await remindIn10Minutes(world)
    await world.host.createSession({ id: 'other', timeZone: 'UTC' })
    await vi.waitFor(() => expect(world.host.openCount).toBe(1))
    await world.host.start()
    // the closed session's reminder is watched by one timer that looks at the clock every 30 s at most
    await vi.waitFor(() => expect(world.timers.requested.at(-1)).toBe(30_000))
    world.clock.advance(600_000)
    world.model.push({ text: 'Reminder: stretch' })
    world.timers.fireAll()
    const reopened = await vi.waitFor(async () => {
      const session = await world.host.openSession('remind')
      const follow = session.events().filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin' && e.data.source.plugin === 'schedule')
      expect(follow).toHaveLength(1)
      return session
    })
    await settle(reopened)
    const assistant = reopened.events().flatMap((e) => (e.type === 'assistant/message' ? [e.data.content[0].text] : []))
    expect(assistant.at(-1)).toBe('Reminder: stretch')
    await world.host.close()
  })

  it('watches the due index from the start even when the store cannot list its sessions, and lists them again until it can', async () => {
    const dir = await tempDir()
    const first = await build(dir)
    await remindIn10Minutes(first)
    await first.host.close()
    await leaveQueuedMessage(dir)

    // the store's list fails while it is "down" (a database that stopped as the server started)
    const counted = await countingStore(dir)
    let down = true
    const store = new Proxy(counted.store, {
      get(target, key, receiver) {
        if (key === 'listSessions') return () => (down ? Promise.reject(new StoreError('unavailable', 'the database is down')) : target.listSessions())
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    const lines: string[] = []
    const second = await build(dir, { store, clock: first.clock, log: (line) => lines.push(line) })
    let started = false
    void second.host.start().then(() => (started = true))
    const failures = () => lines.filter((line) => line.startsWith('startup work failed'))
    await vi.waitFor(() => expect(failures()).toEqual(['startup work failed: the database is down; tried again in 1 s']))

    // the reminder comes due while the list still fails: the due index wakes its session all the same
    // (on the code before, the failed start-up left no due watcher, and the reminder waited for a restart)
    second.clock.advance(600_000)
    second.model.push({ text: 'Reminder: stretch' })
    second.timers.fireAll()
    const reminded = await vi.waitFor(async () => {
      const session = await second.host.openSession('remind')
      expect(session.events().filter((e) => e.type === 'user/message' && e.data.source.kind === 'plugin')).toHaveLength(1)
      return session
    })
    await settle(reminded)
    expect(reminded.events().flatMap((e) => (e.type === 'assistant/message' ? [e.data.content[0].text] : [])).at(-1)).toBe('Reminder: stretch')
    await vi.waitFor(() => expect(failures()).toHaveLength(2))
    expect({ failures: failures(), opened: counted.opened, started }).toEqual({
      failures: ['startup work failed: the database is down; tried again in 1 s', 'startup work failed: the database is down; tried again in 2 s'],
      opened: ['remind'],
      started: false,
    })

    // the store back: the next try reopens the session a restart left with a message
    down = false
    second.model.push({ text: 'ran' })
    second.timers.fireAll()
    await vi.waitFor(() => expect(started).toBe(true))
    await settle(await second.host.openSession('queued'))
    expect({ failures: failures().length, opened: counted.opened, requests: second.model.requests.length }).toEqual({ failures: 2, opened: ['remind', 'queued'], requests: 2 })
    await second.host.close()
  })

  it('refuses to list a malformed cursor and never lists special entries', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'), { recursive: true })
    await mkdir(join(dir, 'sessions/odd.jsonl'))
    const world = await build(dir)
    await world.host.createSession({ id: 'x', timeZone: 'UTC' })
    expect((await world.host.listSessions({ limit: 10 })).sessions.map((s) => s.header.id)).toEqual(['x'])
    await expect(world.host.listSessions({ limit: 10, before: 'nope' })).rejects.toMatchObject({ code: 'corrupt' })
    await world.host.close()
  })
})
