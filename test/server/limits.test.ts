import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ScriptedModel, type Host, type Session } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { createApp } from '../../src/server/app.ts'
import { composeHost } from '../../src/server/compose.ts'
import { connectionCap, openSessionCap } from '../../src/server/connection-cap.ts'
import { CONTENT_SECURITY_POLICY } from '../../src/server/security-headers.ts'
import { DEFAULT_TIMEOUTS, listen, type RequestTimeouts, type RunningServer } from '../../src/server/serve.ts'
import { MAX_UNREAD_SSE_BYTES, sseFrame } from '../../src/server/sse.ts'
import { diffSnapshots, snapshotDir } from '../fault/support.ts'
import { countSubscriptions } from '../support/feed-subscriptions.ts'
import { probeHealth, probeWhile, slowClient, type SlowResult } from '../support/slow-client.ts'
import { SseReader } from '../support/sse-reader.ts'
import { tempDir } from '../support/temp-dir.ts'

/**
 * SPEC 12.2 limits for slow clients, on a real listening server with the real mechanisms (Node's
 * header and request timeouts, the connection cap, the SSE unread budget); the timeouts are
 * injected shorter than the 10 s / 30 s defaults, which test/server/cli.test.ts runs for real.
 */

const servers: RunningServer[] = []
const sockets: net.Socket[] = []
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy()
  for (const server of servers.splice(0)) await server.close()
})

async function start(options: { timeouts?: RequestTimeouts; maxConnections?: number } = {}): Promise<{ server: RunningServer; host: Host; session: Session; dataDir: string }> {
  const dataDir = await tempDir('sw-limits-')
  const host = await composeHost({ dataDir, model: new ScriptedModel(), log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0, ...options })
  servers.push(server)
  const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
  return { server, host, session, dataDir }
}

/** Appends one event and waits until it is durable (what streams send). */
async function appendDurable(session: Session, reason: string): Promise<SessionEvent> {
  const [event] = await session.append([{ type: 'inbox/dropped', data: { ids: [], reason } }])
  await session.flush()
  return event as SessionEvent
}

const TIMEOUT_BODY = '{"error":{"code":"request-timeout","message":"the request was not received in time"}}'

function timedOut(result: SlowResult): { status: number | null; body: string; csp: string | undefined; cache: string | undefined } {
  return { status: result.status, body: result.body, csp: result.headers['content-security-policy'], cache: result.headers['cache-control'] }
}

const TIMED_OUT = { status: 408, body: TIMEOUT_BODY, csp: CONTENT_SECURITY_POLICY, cache: 'no-store' }

describe('request timeouts (SPEC 12.2)', () => {
  it('defaults to 10 s for the headers and 30 s for the whole request', async () => {
    const { server } = await start()
    const { headersTimeout, requestTimeout } = server.server
    expect({ headersTimeout, requestTimeout, defaults: DEFAULT_TIMEOUTS }).toEqual({ headersTimeout: 10_000, requestTimeout: 30_000, defaults: { headersMs: 10_000, bodyMs: 30_000 } })
  })

  it('cuts 500 clients trickling a body at the body timeout with 408 JSON, while health probes keep answering, and writes nothing', async () => {
    const timeouts = { headersMs: 1_000, bodyMs: 2_000 }
    const { server, dataDir } = await start({ timeouts })
    const before = await snapshotDir(dataDir)
    const head = `POST /api/sessions/s/messages HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"text":"`
    const slow = Promise.all(Array.from({ length: 500 }, () => slowClient(server.port, head, 'x', 250)))
    const probes = await probeWhile(server.port, slow, 50)
    const results = await slow
    expect(results.map(timedOut)).toEqual(results.map(() => TIMED_OUT))
    expect(Math.min(...results.map((r) => r.closedAfterMs))).toBeGreaterThanOrEqual(timeouts.bodyMs)
    expect(probes.length).toBeGreaterThanOrEqual(5)
    expect(probes).toEqual(probes.map(() => ({ status: 200, body: '{"ok":true}' })))
    expect(diffSnapshots(before, await snapshotDir(dataDir))).toBeNull()
  }, 30_000)

  it('cuts clients that trickle their headers, or send nothing, at the headers timeout with 408 JSON', async () => {
    const timeouts = { headersMs: 1_000, bodyMs: 5_000 }
    const { server } = await start({ timeouts })
    const trickling = Array.from({ length: 50 }, () => slowClient(server.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`, 'X-Slow: y\r\n', 100))
    const silent = Array.from({ length: 50 }, () => slowClient(server.port, '', '', 60_000))
    const results = await Promise.all([...trickling, ...silent])
    expect(results.map(timedOut)).toEqual(results.map(() => TIMED_OUT))
    expect(Math.min(...results.map((r) => r.closedAfterMs))).toBeGreaterThanOrEqual(timeouts.headersMs)
    // every one was cut by the headers timeout, long before the body timeout could have applied
    expect(Math.max(...results.map((r) => r.closedAfterMs))).toBeLessThan(timeouts.bodyMs)
  }, 30_000)

  it('answers a request once: one answered before its body came is not answered again with 408 when the body times out', async () => {
    const { server } = await start({ timeouts: { headersMs: 300, bodyMs: 600 } })
    const { socket, closed } = await openSocket(server.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Length: 100\r\n\r\nx`)
    let received = ''
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    await closed
    // on the code before, a second answer nobody asked for: "HTTP/1.1 408 Request Timeout" after the 200
    expect(received.match(/HTTP\/1\.1 \d{3}[^\r]*/g)).toEqual(['HTTP/1.1 200 OK'])
  })

  it('leaves an event stream open past both timeouts: a stream is a complete request being answered', async () => {
    const timeouts = { headersMs: 300, bodyMs: 600 }
    const { server, session } = await start({ timeouts })
    const controller = new AbortController()
    const response = await fetch(`${server.url}/api/sessions/s/stream`, { signal: controller.signal })
    const sse = new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
    expect(await sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    // wait on the server's own timeout check rather than a sleep: a client sending nothing is cut first
    await slowClient(server.port, '', '', 60_000)
    await slowClient(server.port, '', '', 60_000)
    const event = await appendDurable(session, 'after the timeouts')
    expect(await sse.next()).toEqual({ event: 'session-event', id: '0', data: JSON.stringify(event) })
    controller.abort()
  })
})

function openSocket(port: number, bytes: string): Promise<{ socket: net.Socket; closed: Promise<void> }> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(bytes)
      resolve({ socket, closed })
    })
    sockets.push(socket)
    socket.on('error', () => undefined)
    const closed = new Promise<void>((done) => socket.once('close', () => done()))
  })
}

async function connectionsOf(server: RunningServer): Promise<number> {
  return new Promise((resolve, reject) => server.server.getConnections((error, count) => (error ? reject(error) : resolve(count))))
}

describe('connection cap (SPEC 12.2)', () => {
  it.each([
    [256, 128],
    [1024, 512],
    [2048, 1024],
    [20_000, 16_384],
    [1_048_576, 16_384],
    [100, 50],
    [64, 24],
  ])('caps connections under a descriptor limit of %i at %i, leaving the rest for files', (limit, cap) => {
    expect(connectionCap(limit)).toBe(cap)
  })

  it.each([
    [64, 8],
    [100, 18],
    [256, 96],
    [1024, 256],
    [null, 256],
  ])('holds at most this many sessions open under a descriptor limit of %s: %i, within the reserve the connections leave', (limit, sessions) => {
    expect(openSessionCap(limit, 256)).toBe(sessions)
    if (limit !== null) expect(connectionCap(limit) + sessions).toBeLessThanOrEqual(limit - 32)
  })

  it('answers 1024 connections when the descriptor limit is unknown', () => {
    expect(connectionCap(null)).toBe(1024)
  })

  it('evicts the oldest connection that has not completed a request to answer a new one', async () => {
    const { server } = await start({ maxConnections: 20 })
    const head = `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n`
    const pending: { socket: net.Socket; closed: Promise<void> }[] = []
    for (let i = 0; i < 20; i++) pending.push(await openSocket(server.port, head))
    await expect.poll(() => connectionsOf(server)).toBe(20)
    expect(await probeHealth(server.port)).toEqual({ status: 200, body: '{"ok":true}' })
    await pending[0]?.closed
    expect(pending.map((p) => p.socket.destroyed)).toEqual(pending.map((_, i) => i === 0))
    // back at the cap with one more slow client; the next probe evicts the next oldest
    pending.push(await openSocket(server.port, head))
    await expect.poll(() => connectionsOf(server)).toBe(20)
    expect(await probeHealth(server.port)).toEqual({ status: 200, body: '{"ok":true}' })
    await pending[1]?.closed
    expect(pending.map((p) => p.socket.destroyed)).toEqual(pending.map((_, i) => i <= 1))
  })

  it('evicts an idle keep-alive connection before a request in progress', async () => {
    const { server } = await start({ maxConnections: 3 })
    const idle = await openSocket(server.port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    await new Promise((resolve) => idle.socket.once('data', resolve))
    const streams = [new AbortController(), new AbortController()]
    for (const controller of streams) {
      const response = await fetch(`${server.url}/api/sessions/s/stream`, { signal: controller.signal })
      expect(await new SseReader((response.body as ReadableStream<Uint8Array>).getReader()).next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    }
    await expect.poll(() => connectionsOf(server)).toBe(3)
    expect(await probeHealth(server.port)).toEqual({ status: 200, body: '{"ok":true}' })
    await idle.closed
    for (const controller of streams) controller.abort()
  })

  it('keeps streams that are being answered and refuses a newcomer when every connection is one', async () => {
    const { server, session } = await start({ maxConnections: 5 })
    const controllers = Array.from({ length: 5 }, () => new AbortController())
    const readers: SseReader[] = []
    for (const controller of controllers) {
      const response = await fetch(`${server.url}/api/sessions/s/stream`, { signal: controller.signal })
      const sse = new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
      expect(await sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
      readers.push(sse)
    }
    await expect.poll(() => connectionsOf(server)).toBe(5)
    expect(await probeHealth(server.port)).toEqual({ error: 'socket hang up' })
    const event = await appendDurable(session, 'still streaming')
    for (const sse of readers) expect(await sse.next()).toEqual({ event: 'session-event', id: '0', data: JSON.stringify(event) })
    // one stream ends: its place is free again
    controllers[0]?.abort()
    await expect.poll(() => connectionsOf(server)).toBe(4)
    expect(await probeHealth(server.port)).toEqual({ status: 200, body: '{"ok":true}' })
    for (const controller of controllers) controller.abort()
  })
})

describe('SSE readers that do not read (SPEC 12.2)', () => {
  const reason = (i: number): string => `${String(i).padStart(6, '0')}${'x'.repeat(100_000)}`

  it(`drops a stream once more than ${MAX_UNREAD_SSE_BYTES} bytes of live events are unread, not before`, async () => {
    const dataDir = await tempDir('sw-sse-')
    const host = await composeHost({ dataDir, model: new ScriptedModel(), log: () => undefined })
    const { session } = await host.createSession({ id: 's', timeZone: 'UTC' })
    const subscriptions = countSubscriptions(await host.feed('s'))
    const app = createApp({ host })
    const response = await app.request('http://127.0.0.1:4280/api/sessions/s/stream')
    const reader = (response.body as ReadableStream<Uint8Array>).getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('event: status\ndata: {"status":"idle"}\n\n')
    const frames: number[] = []
    let i = 0
    // the reader reads nothing more; live events pile up in its stream
    while (subscriptions() === 1) {
      const event = await appendDurable(session, reason(i++))
      frames.push(Buffer.byteLength(sseFrame({ event: 'session-event', id: String(event.seq), data: JSON.stringify(event) })))
      await new Promise((resolve) => setImmediate(resolve))
    }
    // the response stream pulls nothing ahead of its reader: every frame after the status is unread
    const unread = frames.reduce((a, b) => a + b, 0)
    expect({ heldAt: unread - (frames.at(-1) ?? 0) <= MAX_UNREAD_SSE_BYTES, droppedAt: unread > MAX_UNREAD_SSE_BYTES }).toEqual({ heldAt: true, droppedAt: true })
    // what the reader gets is a stream that ends, not a hang
    for (;;) {
      const next = await reader.read().catch(() => ({ done: true as const, value: undefined }))
      if (next.done) break
    }
    await host.close()
  })

  it('resets a non-reading client on a real socket while a reading client gets every event and health answers', async () => {
    const { server, host, session } = await start()
    const subscriptions = countSubscriptions(await host.feed('s'))
    const controller = new AbortController()
    const response = await fetch(`${server.url}/api/sessions/s/stream`, { signal: controller.signal })
    const reading = new SseReader((response.body as ReadableStream<Uint8Array>).getReader())
    expect(await reading.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    const { socket: stalled } = await openSocket(server.port, `GET /api/sessions/s/stream HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\n\r\n`)
    stalled.once('data', () => stalled.pause())
    await expect.poll(subscriptions).toBe(2)
    let appended = 0
    const received: string[] = []
    while (subscriptions() === 2 && appended < 400) {
      const event = await appendDurable(session, reason(appended))
      appended++
      const frame = await reading.next()
      received.push(frame.id ?? '')
      expect(frame.data).toBe(JSON.stringify(event))
    }
    expect(subscriptions()).toBe(1)
    expect(appended * 100_000).toBeGreaterThan(MAX_UNREAD_SSE_BYTES)
    expect(received).toEqual(Array.from({ length: appended }, (_, i) => String(i)))
    expect(await probeHealth(server.port)).toEqual({ status: 200, body: '{"ok":true}' })
    // the stalled client, once it reads again, finds its connection gone
    const closed = new Promise<void>((resolve) => stalled.once('close', () => resolve()))
    stalled.resume()
    await closed
    expect(stalled.bytesRead).toBeLessThan(appended * 100_000)
    controller.abort()
  })
})
