import { spawn, type ChildProcessByStdio } from 'node:child_process'
import net from 'node:net'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { diffSnapshots, snapshotDir } from '../fault/support.ts'
import { CONTENT_SECURITY_POLICY } from '../../src/server/security-headers.ts'
import { probeHealth, probeWhile, slowClient } from '../support/slow-client.ts'
import { tempDir } from '../support/temp-dir.ts'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

type Child = ChildProcessByStdio<null, Readable, Readable>
type Running = { child: Child; stdout: () => string; stderr: () => string; exited: Promise<number | null> }

const children: Child[] = []

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

/**
 * Runs the CLI in one node process (`node --import tsx`, what `npx tsx` runs without its extra
 * parent process), so that SIGKILL really kills the server mid-write.
 */
function cli(args: string[], options: { env?: Record<string, string>; wrapper?: string[] } = {}): Running {
  const command = [...(options.wrapper ?? []), process.execPath, '--import', 'tsx', 'src/server/cli.ts', ...args]
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCHEDULE_WEB_TOKEN: '', PORT: '', DATABASE_URL: '', ...options.env },
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, stdout: () => out, stderr: () => err, exited }
}

async function serve(dataDir: string, extra: string[] = ['--model-delay-ms', '500'], wrapper?: string[]): Promise<Running & { url: string }> {
  const running = cli(['serve', '--port', '0', '--data-dir', dataDir, '--no-build', ...extra], wrapper ? { wrapper } : {})
  const deadline = Date.now() + 15_000
  while (!running.stdout().includes('\n')) {
    if (running.child.exitCode !== null || Date.now() > deadline) {
      throw new Error(`server did not start: ${running.stdout()} ${running.stderr()}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  const match = /^listening on (http:\/\/127\.0\.0\.1:\d+)\n$/.exec(running.stdout())
  if (!match) throw new Error(`unexpected first output ${JSON.stringify(running.stdout())}`)
  return { ...running, url: match[1] }
}

async function run(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = cli(args, { env })
  const code = await running.exited
  return { code, stdout: running.stdout(), stderr: running.stderr() }
}

async function post(url: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** Polls the events route until the predicate holds; returns the served events. */
async function pollEvents(base: string, id: string, predicate: (events: SessionEvent[]) => boolean): Promise<SessionEvent[]> {
  const deadline = Date.now() + 10_000
  for (;;) {
    const response = await fetch(`${base}/api/sessions/${id}/events`)
    const { events } = (await response.json()) as { events: SessionEvent[] }
    if (predicate(events)) return events
    if (Date.now() > deadline) throw new Error(`condition not reached; events: ${events.map((e) => e.type).join(' ')}`)
    await new Promise((resolve) => setTimeout(resolve, 15))
  }
}

function turnEnded(events: readonly SessionEvent[], turn: number): boolean {
  return events.some((e) => e.type === 'turn/end' && e.data.turn === turn)
}

function isReadingOf(event: SessionEvent, turn: number): boolean {
  return event.type === 'user/message' && event.data.id === `time-context-${turn}-1`
}

describe('CLI serve, kill -9 and check', () => {
  it('keeps every served event and every 202-acknowledged message across kill -9; check passes on the data dir', async () => {
    const dir = await tempDir()
    const first = await serve(dir)
    const api = `${first.url}/api/sessions`
    expect(await post(api, { timeZone: 'Asia/Shanghai', sessionId: 'crash' })).toEqual({
      status: 201,
      body: { session: { id: 'crash', createdAt: expect.any(Number), timeZone: 'Asia/Shanghai', status: 'idle', eventCount: 0 } },
    })
    const m1 = await post(`${api}/crash/messages`, { text: 'hello', clientTimeZone: 'America/New_York' })
    expect(m1.status).toBe(202)
    const afterTurn1 = await pollEvents(first.url, 'crash', (events) => turnEnded(events, 1))
    expect(afterTurn1.find((e) => e.type === 'assistant/message')?.data).toEqual({
      turn: 1,
      step: 1,
      id: expect.stringMatching(/^asst-/),
      content: [
        {
          type: 'text',
          text: expect.stringMatching(
            /^It is \d\d:\d\d on [A-Z][a-z]+day \d{1,2} [A-Z][a-z]+ \d{4} in Shanghai \(Asia\/Shanghai\), the Session's zone; your browser is in New York \(America\/New_York\), where it is \d\d:\d\d\. You said: hello$/,
          ),
        },
      ],
    })

    const m2 = await post(`${api}/crash/messages`, { text: 'second', clientTimeZone: 'America/New_York' })
    expect(m2.status).toBe(202)
    await pollEvents(first.url, 'crash', (events) => events.some((e) => isReadingOf(e, 2)))
    const m3 = await post(`${api}/crash/messages`, { text: 'third', clientTimeZone: 'Europe/London' })
    expect(m3.status).toBe(202)
    const servedResponse = await fetch(`${api}/crash/events`)
    const served = ((await servedResponse.json()) as { events: SessionEvent[] }).events
    first.child.kill('SIGKILL')
    await first.exited
    expect(first.stdout()).toBe(`listening on ${first.url}\n`)

    // the kill really landed mid-conversation: turn 2 was open and the third message still queued
    expect(turnEnded(served, 2)).toBe(false)
    expect(served.at(-1)).toMatchObject({ type: 'inbox/enqueued', data: { target: 'next-turn', message: { id: m3.body.messageId } } })

    const second = await serve(dir)
    expect((await fetch(`${second.url}/api/sessions/crash`)).status).toBe(200)
    const after = await pollEvents(second.url, 'crash', (events) => turnEnded(events, 3))
    const lines = (await readFile(join(dir, 'sessions/crash.jsonl'), 'utf8')).split('\n').slice(1, -1)
    expect(lines.slice(0, served.length)).toEqual(served.map((e) => JSON.stringify(e)))
    expect(after.slice(0, served.length).map((e) => JSON.stringify(e))).toEqual(served.map((e) => JSON.stringify(e)))

    const tail = after.slice(served.length)
    const message3 = {
      id: m3.body.messageId,
      role: 'user',
      content: [{ type: 'text', text: 'third' }],
      source: { kind: 'user', rpcId: m3.body.rpcId, clientTimeZone: 'Europe/London' },
    }
    expect(tail.map((e) => ({ type: e.type, data: e.data }))).toEqual([
      { type: 'step/end', data: { turn: 2, step: 1 } },
      { type: 'turn/end', data: { turn: 2, reason: 'error', message: 'interrupted: the host stopped during this turn' } },
      { type: 'turn/start', data: { turn: 3 } },
      { type: 'step/start', data: { turn: 3, step: 1 } },
      { type: 'user/message', data: message3 },
      { type: 'user/message', data: expect.objectContaining({ id: 'time-context-3-1' }) },
      {
        type: 'assistant/message',
        data: {
          turn: 3,
          step: 1,
          id: expect.stringMatching(/^asst-/),
          content: [{ type: 'text', text: expect.stringMatching(/your browser is in London \(Europe\/London\), where it is \d\d:\d\d\. You said: third$/) }],
        },
      },
      { type: 'step/end', data: { turn: 3, step: 1 } },
      { type: 'turn/end', data: { turn: 3, reason: 'completed' } },
    ])

    second.child.kill('SIGTERM')
    expect(await second.exited).toBe(0)
    expect(second.stdout()).toBe(`listening on ${second.url}\n`)

    // copies of the file with one character of the first reading's text changed: in the content
    // text only, and in both the content and the source section (c is an unchanged copy)
    const path = join(dir, 'sessions/crash.jsonl')
    const copies = await tempDir()
    const original = await readFile(path, 'utf8')
    const readingLine = original.split('\n').find((line) => line.includes('"id":"time-context-1-1"')) as string
    const seq = (JSON.parse(readingLine) as SessionEvent).seq
    const contentOnly = readingLine.replace('request: America/New_York.', 'request: America/New_Yorq.')
    const both = readingLine.replaceAll('request: America/New_York.', 'request: America/New_Yorq.')
    expect(contentOnly).not.toBe(both)
    for (const name of ['a', 'b', 'c']) await mkdir(join(copies, name))
    await writeFile(join(copies, 'a/crash.jsonl'), original.replace(readingLine, contentOnly))
    await writeFile(join(copies, 'b/crash.jsonl'), original.replace(readingLine, both))
    await writeFile(join(copies, 'c/crash.jsonl'), original)
    const [good, bad] = await Promise.all([run(['check', dir]), run(['check', copies])])
    expect(good).toEqual({ code: 0, stdout: `ok ${path}\n`, stderr: '' })
    expect(bad).toEqual({
      code: 1,
      stdout: [
        `FAIL ${join(copies, 'a/crash.jsonl')} seq ${seq}: invariant violated by "time-context": time-context source must carry only the exact snapshot text`,
        `FAIL ${join(copies, 'b/crash.jsonl')} seq ${seq}: invariant violated by "time-context": time-context text does not match the Session and current request zones`,
        `ok ${join(copies, 'c/crash.jsonl')}`,
        '',
      ].join('\n'),
      stderr: '',
    })
  })
})

describe('CLI serve refuses weak tokens (SPEC 12.3)', () => {
  const port = ['serve', '--port', '0', '--no-build']
  it.each([
    ['a short --token', [...port, '--token', 's3cret'], {}, 'refusing to start: the token must have at least 16 characters (it has 6) (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['a blank SCHEDULE_WEB_TOKEN on 0.0.0.0', [...port, '--host', '0.0.0.0'], { SCHEDULE_WEB_TOKEN: ' ' }, 'refusing to start: the token must not contain spaces (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['16 spaces', [...port, '--host', '0.0.0.0', '--token', ' '.repeat(16)], {}, 'refusing to start: the token must not contain spaces (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['a pass phrase with spaces', [...port, '--token', 'correct horse battery staple'], {}, 'refusing to start: the token must not contain spaces (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['15 characters', [...port, '--token', 'a'.repeat(15)], {}, 'refusing to start: the token must have at least 16 characters (it has 15) (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['an empty --token', [...port, '--token', ''], {}, 'refusing to start: the token must have at least 16 characters (it has 0) (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
    ['no token on 0.0.0.0', [...port, '--host', '0.0.0.0'], {}, 'refusing to bind to 0.0.0.0 without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)'],
  ])('exits 2 with one line for %s, before touching the data dir', async (_label, args, env, message) => {
    const dir = await tempDir()
    const result = await run([...args, '--data-dir', join(dir, 'data')], env)
    expect(result).toEqual({ code: 2, stdout: '', stderr: `${message}\n` })
    expect(await snapshotDir(dir)).toEqual(new Map())
  })

  it('starts on 0.0.0.0 with a 16-character token and requires it', async () => {
    const dir = await tempDir()
    const running = cli(['serve', '--port', '0', '--no-build', '--data-dir', dir, '--host', '0.0.0.0'], { env: { SCHEDULE_WEB_TOKEN: 'kV9s-2Qx_7bLm.Tz' } })
    await expect.poll(running.stdout, { timeout: 15_000 }).toMatch(/^listening on http:\/\/0\.0\.0\.0:\d+\n$/)
    const port = /:(\d+)\n$/.exec(running.stdout())?.[1]
    const sessions = `http://127.0.0.1:${port}/api/sessions`
    expect((await fetch(sessions)).status).toBe(401)
    expect((await fetch(sessions, { headers: { authorization: 'Bearer kV9s-2Qx_7bLm.Tz' } })).status).toBe(200)
    running.child.kill('SIGTERM')
    await running.exited
  })

  it('reads the token from --token-file, so that it shows neither in ps nor in the environment, and refuses a file it cannot read', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'token'), 'kV9s-2Qx_7bLm.Tz\n')
    const running = await serve(join(dir, 'data'), ['--token-file', join(dir, 'token')])
    expect((await fetch(`${running.url}/api/sessions`)).status).toBe(401)
    expect((await fetch(`${running.url}/api/sessions`, { headers: { authorization: 'Bearer kV9s-2Qx_7bLm.Tz' } })).status).toBe(200)
    expect(running.stderr()).toBe('')
    running.child.kill('SIGTERM')
    await running.exited
    const missing = join(dir, 'missing')
    expect(await run(['serve', '--port', '0', '--no-build', '--data-dir', join(dir, 'other'), '--token-file', missing])).toEqual({
      code: 2,
      stdout: '',
      stderr: `refusing to start: --token-file ${missing} cannot be read (ENOENT)\n`,
    })
    await writeFile(join(dir, 'weak'), 's3cret\n')
    expect(await run(['serve', '--port', '0', '--no-build', '--data-dir', join(dir, 'other'), '--host', '0.0.0.0', '--token-file', join(dir, 'weak')])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'refusing to start: the token must have at least 16 characters (it has 6) (--token, --token-file or SCHEDULE_WEB_TOKEN)\n',
    })
  })

  it('warns on stderr when it serves a public host on loopback without a token, and is quiet with one', async () => {
    const open = await serve(await tempDir(), ['--public-host', 'https://schedule.example.com'])
    await expect.poll(open.stderr).toBe(
      'warning: https://schedule.example.com is served without a token: anyone who reaches it can read and write every Session (set --token, --token-file or SCHEDULE_WEB_TOKEN)\n',
    )
    expect((await fetch(`${open.url}/api/sessions`)).status).toBe(200)
    const guarded = await serve(await tempDir(), ['--public-host', 'https://schedule.example.com', '--token', 'kV9s-2Qx_7bLm.Tz'])
    expect((await fetch(`${guarded.url}/api/sessions`)).status).toBe(401)
    expect(guarded.stderr()).toBe('')
    const loopback = await serve(await tempDir(), [])
    expect(loopback.stderr()).toBe('')
    for (const running of [open, guarded, loopback]) {
      running.child.kill('SIGTERM')
      await running.exited
    }
  })
})

describe('CLI serve holds against slow clients with its real defaults (SPEC 12.2)', () => {
  it('cuts 500 clients trickling a body at 30 s with 408 JSON while health keeps answering, and writes nothing', async () => {
    const dir = await tempDir()
    const server = await serve(dir, [])
    const port = Number(new URL(server.url).port)
    await post(`${server.url}/api/sessions`, { timeZone: 'UTC', sessionId: 's' })
    const before = await snapshotDir(dir)
    const head = `POST /api/sessions/s/messages HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"text":"`
    // one byte every 5 s, as the attack in the issue did: far too slow to finish 100 bytes in 30 s
    const slow = Promise.all(Array.from({ length: 500 }, () => slowClient(port, head, 'x', 5_000)))
    const probes = await probeWhile(port, slow, 1_000)
    const results = await slow
    expect(results.map((r) => ({ status: r.status, body: r.body, csp: r.headers['content-security-policy'] }))).toEqual(
      results.map(() => ({ status: 408, body: '{"error":{"code":"request-timeout","message":"the request was not received in time"}}', csp: CONTENT_SECURITY_POLICY })),
    )
    expect(Math.min(...results.map((r) => r.closedAfterMs))).toBeGreaterThanOrEqual(30_000)
    expect(probes.length).toBeGreaterThanOrEqual(20)
    expect(probes).toEqual(probes.map(() => ({ status: 200, body: '{"ok":true}' })))
    expect(diffSnapshots(before, await snapshotDir(dir))).toBeNull()
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
  }, 60_000)
})

describe('CLI serve under a small descriptor limit (prlimit --nofile)', () => {
  const LIMIT = 256
  const prlimit = ['prlimit', `--nofile=${LIMIT}:${LIMIT}`, '--']

  /** Opens `count` connections that send half a request head and then nothing. */
  async function flood(port: number, count: number): Promise<net.Socket[]> {
    const sockets: net.Socket[] = []
    for (let i = 0; i < count; i++) {
      const socket = net.connect(port, '127.0.0.1')
      socket.on('error', () => undefined)
      socket.write(`GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`)
      sockets.push(socket)
    }
    await Promise.all(sockets.map((socket) => new Promise((resolve) => (socket.connecting ? socket.once('connect', resolve).once('close', resolve) : resolve(null)))))
    return sockets
  }

  it(`keeps answering health and writing Sessions while ${LIMIT * 2} idle connections flood it (the cap, derived from the limit, evicts them)`, async () => {
    const dir = await tempDir()
    const server = await serve(dir, [], prlimit)
    const port = Number(new URL(server.url).port)
    const sockets = await flood(port, LIMIT * 2)
    const probes = []
    for (let i = 0; i < 20; i++) probes.push(await probeHealth(port, 3_000))
    expect(probes).toEqual(probes.map(() => ({ status: 200, body: '{"ok":true}' })))
    expect(await post(`${server.url}/api/sessions`, { timeZone: 'UTC', sessionId: 'during-flood' })).toEqual({
      status: 201,
      body: { session: { id: 'during-flood', createdAt: expect.any(Number), timeZone: 'UTC', status: 'idle', eventCount: 0 } },
    })
    // the cap (128 of 256 descriptors) evicted the oldest flood connections to make room
    expect(sockets.filter((s) => s.destroyed || s.readableEnded).length).toBeGreaterThanOrEqual(LIMIT * 2 - 128)
    for (const socket of sockets) socket.destroy()
    expect(server.stderr()).not.toMatch(/EMFILE/)
    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
  }, 60_000)

  it('fails its health probes under the same flood without the cap (so the cap is what holds)', async () => {
    const dir = await tempDir()
    const server = await serve(dir, ['--max-connections', '100000'], prlimit)
    const port = Number(new URL(server.url).port)
    const sockets = await flood(port, LIMIT * 2)
    const probes = []
    for (let i = 0; i < 5; i++) probes.push(await probeHealth(port, 1_000))
    expect(probes.filter((p) => 'error' in p).length).toBeGreaterThan(0)
    for (const socket of sockets) socket.destroy()
    server.child.kill('SIGKILL')
    await server.exited
  }, 60_000)
})
