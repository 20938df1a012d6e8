import { afterEach, describe, expect, it } from 'vitest'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { compose } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { SseReader, type Frame } from '../support/sse-reader.ts'
import { tempDir } from '../support/temp-dir.ts'

const T0 = Date.parse('2026-07-15T07:00:00.000Z')
const servers: RunningServer[] = []
const controllers: AbortController[] = []

afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.abort()
  for (const server of servers.splice(0)) await server.close()
})

async function start(options: { dataDir?: string; at?: number } = {}) {
  const clock = new FakeClock(options.at ?? T0)
  const reminders = new ManualTimers()
  const model = new ScriptedModel()
  const { host, schedules } = await compose({ dataDir: options.dataDir ?? (await tempDir()), model, clock, timers: reminders, log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0, schedules })
  servers.push(server)
  return { server, clock, reminders, model }
}

async function post(server: RunningServer, path: string, body: unknown): Promise<number> {
  const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  await response.arrayBuffer()
  return response.status
}

async function open(server: RunningServer, headers: Record<string, string> = {}): Promise<SseReader> {
  const controller = new AbortController()
  controllers.push(controller)
  const response = await fetch(`${server.url}/api/stream`, { headers, signal: controller.signal })
  expect({ status: response.status, type: response.headers.get('content-type') }).toEqual({ status: 200, type: 'text/event-stream' })
  return new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
}

async function until(sse: SseReader, done: (frame: Frame) => boolean): Promise<Frame[]> {
  const frames: Frame[] = []
  for (;;) {
    const frame = await sse.next()
    frames.push(frame)
    if (done(frame)) return frames
  }
}

describe('GET /api/stream (SPEC 8)', () => {
  it('announces every session change and a due reminder of any session, and replays what a reader missed', async () => {
    const { server, clock, reminders } = await start()
    const sse = await open(server)
    expect(await post(server, '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 'a' })).toBe(201)
    const created = await until(sse, (f) => f.event === 'session')
    expect(created.map((f) => [f.event, JSON.parse(f.data)])).toEqual([
      ['session', { session: { id: 'a', createdAt: T0, timeZone: 'Asia/Shanghai', status: 'idle', eventCount: 0 } }],
    ])
    expect(await post(server, '/api/sessions/a/schedules', { prompt: 'water the plants', after_seconds: 300 })).toBe(201)
    await until(sse, (f) => f.event === 'session' && (JSON.parse(f.data) as { session: { eventCount: number } }).session.eventCount === 1)

    clock.advance(300_000)
    reminders.fireAll()
    const due = await until(sse, (f) => f.event === 'reminder-due')
    const notice = due.at(-1) as Frame
    expect(JSON.parse(notice.data)).toEqual({
      sessionId: 'a',
      scheduleId: 'schedule-1',
      prompt: 'water the plants',
      occurrenceAt: new Date(T0 + 300_000).toISOString(),
    })
    expect(Number(notice.id)).toBeGreaterThan(0)
    const later = await until(sse, (f) => f.event === 'session' && (JSON.parse(f.data) as { session: { status: string } }).session.status === 'idle' && Number(f.id) > Number(notice.id))

    // a reader that was away gets everything after its Last-Event-ID, in order, then live notices
    const resumed = await open(server, { 'last-event-id': String(Number(notice.id) - 1) })
    const replay = await until(resumed, (f) => f.id === later.at(-1)?.id)
    expect(replay[0]).toEqual(notice)
    expect(replay.map((f) => Number(f.id))).toEqual([...replay.map((f) => Number(f.id))].sort((x, y) => x - y))
    expect(await post(server, '/api/sessions', { timeZone: 'UTC', sessionId: 'b' })).toBe(201)
    const fresh = await until(resumed, (f) => f.event === 'session' && (JSON.parse(f.data) as { session: { id: string } }).session.id === 'b')
    expect(Number(fresh.at(-1)?.id)).toBeGreaterThan(Number(later.at(-1)?.id))
  })

  it('after a restart, a reader resuming with its cursor from before gets what the new server said before it came back', async () => {
    const dataDir = await tempDir()
    const before = await start({ dataDir })
    const sse = await open(before.server)
    expect(await post(before.server, '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 'a' })).toBe(201)
    const [seen] = await until(sse, (f) => f.event === 'session')
    expect(Number(seen.id)).toBe(T0 * 1000)
    await before.server.close()
    servers.splice(servers.indexOf(before.server), 1)

    // a minute later the server is back; a Session changes (as a reminder that came due at start would) before the reader reconnects
    const after = await start({ dataDir, at: T0 + 60_000 })
    expect(await post(after.server, '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 'b' })).toBe(201)
    const live = await open(after.server)
    await until(live, (f) => f.event === 'session')
    const resumed = await open(after.server, { 'last-event-id': seen.id as string })
    const [missed] = await until(resumed, (f) => f.event === 'session')
    // numbered from 1 again, the new server's notice was under the old cursor and never sent
    expect(Number(missed.id)).toBe((T0 + 60_000) * 1000)
    expect((JSON.parse(missed.data) as { session: { id: string } }).session.id).toBe('b')
  })

  it('refuses a Last-Event-ID or an ?after= that is not a notice cursor, naming the one sent', async () => {
    const { server } = await start()
    const response = await fetch(`${server.url}/api/stream`, { headers: { 'last-event-id': 'x' } })
    expect({ status: response.status, body: await response.json() }).toEqual({
      status: 400,
      body: { error: { code: 'bad-request', message: 'Last-Event-ID must be a notice cursor' } },
    })
    // on the code before, "Last-Event-ID must be …" for a cursor sent in the query
    const query = await fetch(`${server.url}/api/stream?after=x`)
    expect({ status: query.status, body: await query.json() }).toEqual({
      status: 400,
      body: { error: { code: 'bad-request', message: 'after must be a notice cursor' } },
    })
  })
})
