import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ModelResponse } from '../../src/host/models/model.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { composeHost } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { settle } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'
import { SseReader, type Frame } from '../support/sse-reader.ts'

const servers: RunningServer[] = []
const controllers: AbortController[] = []

afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.abort()
  for (const server of servers.splice(0)) await server.close()
})

async function start(dataDir: string, model: ScriptedModel): Promise<RunningServer> {
  const host = await composeHost({ dataDir, model, clock: new FakeClock(), log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0 })
  servers.push(server)
  return server
}

async function post(server: RunningServer, path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

async function openStream(server: RunningServer, path: string, headers: Record<string, string> = {}): Promise<{ response: Response; sse: SseReader }> {
  const controller = new AbortController()
  controllers.push(controller)
  const response = await fetch(`${server.url}${path}`, { headers, signal: controller.signal })
  if (!response.body) throw new Error('no body')
  return { response, sse: new SseReader(response.body.getReader()) }
}

async function fileLines(dataDir: string, id: string): Promise<string[]> {
  return (await readFile(join(dataDir, `sessions/${id}.jsonl`), 'utf8')).split('\n').slice(1, -1)
}

function sessionEvent(line: string): Frame {
  return { event: 'session-event', id: String((JSON.parse(line) as { seq: number }).seq), data: line }
}

function typeOf(frame: Frame): string | undefined {
  return frame.event === 'session-event' ? (JSON.parse(frame.data) as { type: string }).type : undefined
}

/** A model whose next answer waits for release(). */
function gated(): { step: () => Promise<Partial<ModelResponse>>; release: (text: string) => void } {
  let release: (text: string) => void = () => undefined
  const answer = new Promise<Partial<ModelResponse>>((resolve) => {
    release = (text) => resolve({ text })
  })
  return { step: () => answer, release: (text) => release(text) }
}

describe('GET /api/sessions/:id/stream', () => {
  it('sends the status first, replays every event byte for byte, then streams live events of a new message', async () => {
    const dir = await tempDir()
    const gate = gated()
    const model = new ScriptedModel().push({ text: 'one' }, gate.step)
    const server = await start(dir, model)
    expect(await post(server, '/api/sessions', { timeZone: 'Asia/Shanghai', sessionId: 'live' })).toMatchObject({ status: 201 })
    expect(await post(server, '/api/sessions/live/messages', { text: 'first', clientTimeZone: 'UTC' })).toMatchObject({ status: 202 })
    const session = await server.host.openSession('live')
    await settle(session)

    const fromEnd = await openStream(server, '/api/sessions/live/stream')
    expect(await fromEnd.sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    const { response, sse } = await openStream(server, '/api/sessions/live/stream?after=-1')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream')
    expect(response.headers.get('cache-control')).toBe('no-store')
    const replayed = await sse.until((f) => f.id === '8')
    expect(replayed).toEqual([{ event: 'status', data: '{"status":"idle"}' }, ...(await fileLines(dir, 'live')).map(sessionEvent)])

    const sent = await post(server, '/api/sessions/live/messages', { text: 'second', clientTimeZone: 'America/New_York' })
    expect(sent.status).toBe(202)
    // a stream opened without a cursor starts at the end: its first event is the new one, no replay (SPEC 8)
    expect((await fromEnd.sse.until((f) => f.event === 'session-event')).at(-1)?.id).toBe('9')
    const before = await sse.until((f) => typeOf(f) === 'user/message' && f.data.includes('"id":"time-context-2-1"'))
    gate.release('two')
    const after = await sse.until((f) => f.event === 'status' && f.data === '{"status":"idle"}')
    const live = [...before, ...after]
    await settle(session)
    const lines = await fileLines(dir, 'live')
    expect(lines.length).toBe(17)
    expect(live.filter((f) => f.event === 'session-event')).toEqual(lines.slice(9).map(sessionEvent))
    expect(live.filter((f) => f.event === 'status')).toEqual([
      { event: 'status', data: '{"status":"running"}' },
      { event: 'status', data: '{"status":"idle"}' },
    ])
    expect(JSON.parse(lines[9])).toMatchObject({ seq: 9, type: 'inbox/enqueued', data: { message: { id: (sent.body as { messageId: string }).messageId } } })
    expect(lines.slice(9).map((l) => (JSON.parse(l) as { type: string }).type)).toEqual([
      'inbox/enqueued',
      'turn/start',
      'step/start',
      'user/message',
      'user/message',
      'assistant/message',
      'step/end',
      'turn/end',
    ])
  })

  it('resumes after Last-Event-ID: n with seq n+1', async () => {
    const dir = await tempDir()
    const server = await start(dir, new ScriptedModel().push({ text: 'one' }))
    await post(server, '/api/sessions', { timeZone: 'UTC', sessionId: 'r' })
    await post(server, '/api/sessions/r/messages', { text: 'first', clientTimeZone: 'UTC' })
    await settle(await server.host.openSession('r'))
    const lines = await fileLines(dir, 'r')
    expect(lines.length).toBe(9)

    const resumed = await openStream(server, '/api/sessions/r/stream', { 'last-event-id': '4' })
    expect(await resumed.sse.until((f) => f.id === '8')).toEqual([
      { event: 'status', data: '{"status":"idle"}' },
      ...lines.slice(5).map(sessionEvent),
    ])

    const caughtUp = await openStream(server, '/api/sessions/r/stream', { 'last-event-id': '8' })
    expect(await caughtUp.sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    await post(server, '/api/sessions/r/messages', { text: 'again', clientTimeZone: 'UTC' })
    const next = await caughtUp.sse.until((f) => f.event === 'session-event')
    expect(next.at(-1)).toEqual(sessionEvent((await fileLines(dir, 'r'))[9]))
  })

  it.each(['-1', '-3'])('replays from seq 0 after Last-Event-ID: %s', async (lastId) => {
    const dir = await tempDir()
    const server = await start(dir, new ScriptedModel().push({ text: 'one' }))
    await post(server, '/api/sessions', { timeZone: 'UTC', sessionId: 'r' })
    await post(server, '/api/sessions/r/messages', { text: 'first', clientTimeZone: 'UTC' })
    await settle(await server.host.openSession('r'))
    const { sse } = await openStream(server, '/api/sessions/r/stream', { 'last-event-id': lastId })
    expect(await sse.until((f) => f.id === '8')).toEqual([
      { event: 'status', data: '{"status":"idle"}' },
      ...(await fileLines(dir, 'r')).map(sessionEvent),
    ])
  })

  it('rejects a Last-Event-ID that is not an integer seq, and an unknown session, with JSON errors', async () => {
    const dir = await tempDir()
    const server = await start(dir, new ScriptedModel())
    await post(server, '/api/sessions', { timeZone: 'UTC', sessionId: 'r' })
    const bad = await fetch(`${server.url}/api/sessions/r/stream`, { headers: { 'last-event-id': 'x' } })
    expect({ status: bad.status, body: await bad.json() }).toEqual({
      status: 400,
      body: { error: { code: 'bad-request', message: 'Last-Event-ID must be an integer seq' } },
    })
    // the same cursor in the query is named as it was sent (on the code before, "Last-Event-ID must be …")
    const query = await fetch(`${server.url}/api/sessions/r/stream?after=abc`)
    expect({ status: query.status, body: await query.json() }).toEqual({
      status: 400,
      body: { error: { code: 'bad-request', message: 'after must be an integer seq' } },
    })
    const twice = await fetch(`${server.url}/api/sessions/r/stream?after=1&after=2`)
    expect({ status: twice.status, body: await twice.json() }).toEqual({
      status: 400,
      body: { error: { code: 'bad-request', message: 'after must be given at most once' } },
    })
    const unknown = await fetch(`${server.url}/api/sessions/nope/stream`)
    expect({ status: unknown.status, body: await unknown.json() }).toEqual({
      status: 404,
      body: { error: { code: 'session-not-found', message: 'session nope does not exist', details: { sessionId: 'nope' } } },
    })
  })
})

describe('listen', () => {
  it('prints its loopback URL with the picked port', async () => {
    const server = await start(await tempDir(), new ScriptedModel())
    expect(server.url).toBe(`http://127.0.0.1:${server.port}`)
    expect(server.port).toBeGreaterThan(0)
    const health = await fetch(`${server.url}/api/health`)
    expect({ status: health.status, body: await health.json() }).toEqual({ status: 200, body: { ok: true } })
  })

  it.each([
    ['0.0.0.0', 'refusing to bind to 0.0.0.0 without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['::', 'refusing to bind to :: without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['192.168.1.10', 'refusing to bind to 192.168.1.10 without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
  ])('refuses to bind to %s without a token', async (bindHost, message) => {
    const host = await composeHost({ dataDir: await tempDir(), model: new ScriptedModel(), log: () => undefined })
    await expect(listen({ host, bindHost, port: 0 })).rejects.toThrow(message)
    await host.close()
  })

  it('binds to 0.0.0.0 with a token and then requires it', async () => {
    const host = await composeHost({ dataDir: await tempDir(), model: new ScriptedModel(), log: () => undefined })
    const server = await listen({ host, bindHost: '0.0.0.0', port: 0, token: 'a-token-of-16-chr' })
    servers.push(server)
    expect(server.url).toBe(`http://0.0.0.0:${server.port}`)
    const base = `http://127.0.0.1:${server.port}`
    const without = await fetch(`${base}/api/sessions`)
    expect({ status: without.status, body: await without.json() }).toEqual({
      status: 401,
      body: { error: { code: 'unauthorized', message: 'a valid bearer token is required' } },
    })
    const withToken = await fetch(`${base}/api/sessions`, { headers: { authorization: 'Bearer a-token-of-16-chr' } })
    expect({ status: withToken.status, body: await withToken.json() }).toEqual({ status: 200, body: { sessions: [], nextCursor: null } })
  })
})

describe('assistant-delta (SPEC 9 streaming text)', () => {
  it('sends the text of an answer as the model streams it (the text so far to a reader who joins mid-answer), before the durable assistant/message, never stored', async () => {
    const dir = await tempDir()
    let release: () => void = () => undefined
    const held = new Promise<void>((resolve) => (release = resolve))
    const model = new ScriptedModel().push(async (_request, _signal, onDelta) => {
      onDelta('Hel')
      onDelta('')
      onDelta('lo, ')
      await held
      onDelta('world')
      return { text: 'Hello, world' }
    })
    const server = await start(dir, model)
    await post(server, '/api/sessions', { timeZone: 'UTC', sessionId: 'd' })
    const { sse } = await openStream(server, '/api/sessions/d/stream')
    expect(await sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    await post(server, '/api/sessions/d/messages', { text: 'greet me', clientTimeZone: 'UTC' })
    const early = await sse.until((f) => f.event === 'assistant-delta' && f.data.includes('lo, '))
    expect(early.filter((f) => f.event === 'assistant-delta')).toEqual([
      { event: 'assistant-delta', data: JSON.stringify({ turn: 1, step: 1, text: 'Hel' }) },
      { event: 'assistant-delta', data: JSON.stringify({ turn: 1, step: 1, text: 'lo, ' }) },
    ])
    expect(early.some((f) => typeOf(f) === 'assistant/message')).toBe(false)
    // a reader that joins mid-answer gets the text so far first, then the rest live
    const { sse: joiner } = await openStream(server, '/api/sessions/d/stream')
    expect([await joiner.next(), await joiner.next()]).toEqual([
      { event: 'status', data: '{"status":"running"}' },
      { event: 'assistant-delta', data: JSON.stringify({ turn: 1, step: 1, text: 'Hello, ' }) },
    ])
    release()
    const rest = await sse.until((f) => typeOf(f) === 'assistant/message')
    expect(rest.filter((f) => f.event === 'assistant-delta')).toEqual([{ event: 'assistant-delta', data: JSON.stringify({ turn: 1, step: 1, text: 'world' }) }])
    const joined = await joiner.until((f) => typeOf(f) === 'assistant/message')
    expect(joined.filter((f) => f.event === 'assistant-delta')).toEqual([{ event: 'assistant-delta', data: JSON.stringify({ turn: 1, step: 1, text: 'world' }) }])
    // a reader that joins later replays the durable events only: deltas are never stored
    const { sse: later } = await openStream(server, '/api/sessions/d/stream?after=-1')
    const replay = await later.until((f) => typeOf(f) === 'assistant/message')
    // once the answer is written there is nothing streaming to give
    expect(replay.some((f) => f.event === 'assistant-delta')).toBe(false)
    expect(await fileLines(dir, 'd')).not.toContain(expect.stringContaining('assistant-delta'))
  })
})
