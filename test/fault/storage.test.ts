import { execFileSync } from 'node:child_process'
import { mkdir, open, readFile, readdir, rename, rm, symlink, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { generateSession } from '../../bench/generate.ts'
import { tempDir } from '../support/temp-dir.ts'
import { runCheckCli, startServer, type CliProcess } from './support.ts'

const IS_ROOT = process.getuid?.() === 0
const children: CliProcess[] = []
const mounts: string[] = []

afterEach(async () => {
  for (const child of children.splice(0)) child.child.kill('SIGKILL')
  for (const dir of mounts.splice(0)) execFileSync('umount', ['-l', dir])
})

async function api(url: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown; retryAfter: string | null }> {
  const response = await fetch(`${url}${path}`, {
    method,
    ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
  })
  const text = await response.text()
  return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown), retryAfter: response.headers.get('retry-after') }
}

async function events(url: string, id: string): Promise<SessionEvent[]> {
  const answer = await api(url, 'GET', `/api/sessions/${id}/events`)
  expect(answer.status).toBe(200)
  return (answer.body as { events: SessionEvent[] }).events
}

async function turnsEnded(url: string, id: string, n: number): Promise<SessionEvent[]> {
  return vi.waitFor(
    async () => {
      const all = await events(url, id)
      expect(all.filter((e) => e.type === 'turn/end')).toHaveLength(n)
      return all
    },
    { timeout: 15_000, interval: 20 },
  )
}

async function serve(dataDir: string): Promise<CliProcess & { url: string }> {
  const server = await startServer(dataDir)
  children.push(server)
  return server
}

/** Fills the file system under dir until it refuses with ENOSPC; returns the filler's path. */
async function fill(dir: string): Promise<string> {
  const path = join(dir, 'filler')
  const handle = await open(path, 'w')
  const block = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) await handle.write(block)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    await handle.close()
  }
  return path
}

/** A real server on a 4 MiB tmpfs with session `full` and its first turn done; resolves with that turn's events. */
async function onSmallDisk(prefix: string): Promise<{ dataDir: string; server: CliProcess & { url: string }; before: SessionEvent[] }> {
  const dataDir = await tempDir(prefix)
  execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m', 'tmpfs', dataDir])
  mounts.push(dataDir)
  const server = await serve(dataDir)
  expect((await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'full' })).status).toBe(201)
  expect((await api(server.url, 'POST', '/api/sessions/full/messages', { text: 'before', clientTimeZone: 'UTC' })).status).toBe(202)
  return { dataDir, server, before: await turnsEnded(server.url, 'full', 1) }
}

function storageLines(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line.includes('storage'))
}

describe('storage faults through the real server (SPEC 2.5, 2.6)', () => {
  // Without root a tmpfs cannot be mounted; the injected failing file layer covers ENOSPC then (test/host/write-failures.test.ts).
  it.runIf(IS_ROOT)('a full disk (real tmpfs): 503 with Retry-After, health keeps answering, one log line, back by itself when space returns', async () => {
    const { dataDir, server, before } = await onSmallDisk('sw-enospc-')
    const made = await api(server.url, 'POST', '/api/sessions/full/schedules', { prompt: 'stretch', after_seconds: 3600 })
    expect(made.status).toBe(201)
    const reminder = (made.body as { schedule: { id: string } }).schedule
    const filler = await fill(dataDir)

    // a write that still fits in a page the file already has succeeds, durably; the first that needs space is refused
    const accepted: string[] = []
    for (let i = 0; accepted.length < 50; i++) {
      const text = `while full ${i}`
      const answer = await api(server.url, 'POST', '/api/sessions/full/messages', { text, clientTimeZone: 'UTC' })
      if (answer.status !== 202) {
        expect({ status: answer.status, code: (answer.body as { error: { code: string } }).error.code }).toEqual({ status: 503, code: 'storage-unavailable' })
        break
      }
      accepted.push(text)
    }
    expect(accepted.length).toBeLessThan(50)
    const refusals: { status: number; code: unknown; retryAfter: string | null }[] = []
    for (let i = 0; i < 10; i++) {
      const answer = await api(server.url, 'POST', '/api/sessions/full/messages', { text: `refused ${i}`, clientTimeZone: 'UTC' })
      refusals.push({ status: answer.status, code: (answer.body as { error?: { code: string } }).error?.code, retryAfter: answer.retryAfter })
      expect((await api(server.url, 'GET', '/api/health')).status).toBe(200)
    }
    expect(refusals.filter((r) => !(r.status === 503 && r.code === 'storage-unavailable' && /^[1-5]$/.test(r.retryAfter ?? '')))).toEqual([])
    expect(await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'other' })).toMatchObject({ status: 503 })
    // reminders are still listed, from the durable log, and a new one is refused
    expect(await api(server.url, 'POST', '/api/sessions/full/schedules', { prompt: 'refused', after_seconds: 60 })).toMatchObject({ status: 503 })
    const listed = await api(server.url, 'GET', '/api/sessions/full/schedules')
    expect({ status: listed.status, ids: (listed.body as { schedules: { id: string; prompt: string }[] }).schedules.map((r) => [r.id, r.prompt]) }).toEqual({
      status: 200,
      ids: [[reminder.id, 'stretch']],
    })
    const whileFull = await events(server.url, 'full')
    expect(whileFull.slice(0, before.length)).toEqual(before)
    expect(storageLines(server.stderr())).toHaveLength(1)

    await rm(filler)
    await vi.waitFor(
      async () => expect((await api(server.url, 'POST', '/api/sessions/full/messages', { text: 'after', clientTimeZone: 'UTC' })).status).toBe(202),
      { timeout: 15_000, interval: 100 },
    )
    const after = await vi.waitFor(
      async () => {
        const all = await events(server.url, 'full')
        const texts = all.flatMap((e) => (e.type === 'user/message' && e.data.source.kind === 'user' ? [e.data.content[0].text] : []))
        expect(texts).toEqual(['before', ...accepted, 'after'])
        expect(all.at(-1)?.type).toBe('turn/end')
        return all
      },
      { timeout: 15_000, interval: 50 },
    )
    expect(after.slice(0, whileFull.length)).toEqual(whileFull)
    expect(storageLines(server.stderr())).toEqual([
      expect.stringMatching(/^session full: storage unavailable, writes are refused until it recovers: .*ENOSPC/),
      'session full: storage available again',
    ])
    server.child.kill('SIGTERM')
    await server.exited
    expect(await runCheckCli([dataDir])).toEqual({ code: 0, stdout: `ok ${join(dataDir, 'sessions/full.jsonl')}\n`, stderr: '' })
  })

  it.runIf(IS_ROOT)('a message refused on a full disk (real tmpfs) is not in the session after kill -9 and a start with space again', async () => {
    const { dataDir, server } = await onSmallDisk('sw-enospc-kill-')
    const filler = await fill(dataDir)
    // messages until one is refused: each refused one's bytes that reached the file (a whole line, or part) are cut
    const accepted: string[] = []
    let refused: string | null = null
    for (let i = 0; refused === null && i < 200; i++) {
      const text = `while full ${i} ${'x'.repeat(300)}`
      const answer = await api(server.url, 'POST', '/api/sessions/full/messages', { text, clientTimeZone: 'UTC' })
      if (answer.status === 202) accepted.push(text)
      else {
        expect({ status: answer.status, code: (answer.body as { error: { code: string } }).error.code }).toEqual({ status: 503, code: 'storage-unavailable' })
        refused = text
      }
    }
    expect(refused).not.toBeNull()
    const path = join(dataDir, 'sessions', 'full.jsonl')
    // on the code before, the file kept the refused message's inbox/enqueued line, and the start after the kill ran it
    expect((await readFile(path, 'utf8')).includes('while full')).toBe(accepted.length > 0)
    expect((await readFile(path, 'utf8')).includes(refused ?? '')).toBe(false)
    server.child.kill('SIGKILL')
    await server.exited
    await rm(filler)

    const again = await serve(dataDir)
    const all = await vi.waitFor(
      async () => {
        const list = await events(again.url, 'full')
        expect(list.at(-1)?.type).toBe('turn/end')
        return list
      },
      { timeout: 15_000, interval: 50 },
    )
    const queued = all.flatMap((e) => (e.type === 'inbox/enqueued' ? [e.data.message.content[0].text] : []))
    expect(queued.includes(refused ?? '')).toBe(false)
    expect(queued).toEqual(['before', ...accepted])
    again.child.kill('SIGTERM')
    await again.exited
    expect(await runCheckCli([dataDir])).toEqual({ code: 0, stdout: `ok ${path}\n`, stderr: '' })
  })

  it('a session file deleted under the running server: no 202 into the detached file, then the session is gone', async () => {
    const dataDir = await tempDir('sw-deleted-')
    const server = await serve(dataDir)
    await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'gone' })
    await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'kept' })
    await rm(join(dataDir, 'sessions/gone.jsonl'))
    expect(await api(server.url, 'POST', '/api/sessions/gone/messages', { text: 'lost?', clientTimeZone: 'UTC' })).toEqual({
      status: 503,
      retryAfter: '1',
      body: { error: { code: 'storage-unavailable', message: 'storage for session gone is unavailable: session file was deleted', details: { retryAfterSeconds: 1 } } },
    })
    await vi.waitFor(async () => expect((await api(server.url, 'GET', '/api/sessions/gone')).status).toBe(404), { timeout: 10_000, interval: 50 })
    expect((await api(server.url, 'POST', '/api/sessions/kept/messages', { text: 'fine', clientTimeZone: 'UTC' })).status).toBe(202)
    expect(storageLines(server.stderr())).toEqual([
      `session gone: storage unavailable, writes are refused until it recovers: storage for session gone is unavailable: session file '${join(dataDir, 'sessions/gone.jsonl')}' was deleted`,
      'session gone: cannot be reopened after the storage failure: session gone does not exist',
    ])
  })

  it('the sessions folder deleted under the running server: 503, then new sessions work again', async () => {
    const dataDir = await tempDir('sw-nodir-')
    const server = await serve(dataDir)
    await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'a' })
    await rm(join(dataDir, 'sessions'), { recursive: true })
    expect((await api(server.url, 'POST', '/api/sessions/a/messages', { text: 'x', clientTimeZone: 'UTC' })).status).toBe(503)
    await vi.waitFor(async () => expect((await api(server.url, 'GET', '/api/sessions/a')).status).toBe(404), { timeout: 10_000, interval: 50 })
    expect((await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'b' })).status).toBe(201)
    expect(await readdir(join(dataDir, 'sessions'))).toEqual(['b.jsonl'])
  })

  it('a session file replaced under the running server: 503 for the write, then the replacement is what is served', async () => {
    const dataDir = await tempDir('sw-replaced-')
    const server = await serve(dataDir)
    await api(server.url, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 'r' })
    const path = join(dataDir, 'sessions/r.jsonl')
    const header = (await readFile(path, 'utf8')).split('\n')[0]
    const note = { seq: 0, time: 1, type: 'inbox/dropped', data: { ids: [], reason: 'replaced by hand' } }
    await writeFile(`${path}.by-hand`, `${header}\n${JSON.stringify(note)}\n`)
    await rename(`${path}.by-hand`, path)
    expect((await api(server.url, 'POST', '/api/sessions/r/messages', { text: 'x', clientTimeZone: 'UTC' })).status).toBe(503)
    await vi.waitFor(async () => expect(await events(server.url, 'r')).toEqual([note]), { timeout: 10_000, interval: 50 })
    expect((await api(server.url, 'POST', '/api/sessions/r/messages', { text: 'y', clientTimeZone: 'UTC' })).status).toBe(202)
    expect((await readFile(path, 'utf8')).split('\n')[1]).toBe(JSON.stringify(note))
  })

  it('special and corrupt entries never block startup, answer 409 session-corrupt on every route, and check agrees', async () => {
    const dataDir = await tempDir('sw-special-')
    const outside = await tempDir('sw-outside-')
    const sessions = join(dataDir, 'sessions')
    await mkdir(sessions)
    const header = (id: string) => JSON.stringify({ type: 'session', version: 1, id, createdAt: 5, timeZone: 'UTC' })
    const victim = `${header('escape')}\n`
    await writeFile(join(outside, 'escape.jsonl'), victim)
    await symlink(join(outside, 'escape.jsonl'), join(sessions, 'escape.jsonl'))
    await symlink('/dev/zero', join(sessions, 'zero.jsonl'))
    await symlink(join(outside, 'nothing.jsonl'), join(sessions, 'dangling.jsonl'))
    await mkdir(join(sessions, 'folder.jsonl'))
    execFileSync('mkfifo', [join(sessions, 'fifo.jsonl')])
    await writeFile(join(sessions, 'badhead.jsonl'), '{"type":"session","version":3}\n')
    await writeFile(join(sessions, 'baddata.jsonl'), `${header('baddata')}\n${JSON.stringify({ seq: 0, time: 1, type: 'step/start', data: { turn: 1 } })}\n`)
    await writeFile(join(sessions, 'ok.jsonl'), `${header('ok')}\n`)
    await writeFile(join(sessions, 'ok.jsonl.00112233aabb.tmp'), `${header('ok')}\n`)
    // corrupt in its middle only: its first and last pages read well (they answered 200, and so did its stream)
    generateSession({ path: join(sessions, 'middle.jsonl'), id: 'middle', targetEvents: 60, seed: 7, sessionZone: 'UTC' })
    const middle = (await readFile(join(sessions, 'middle.jsonl'), 'utf8')).split('\n')
    await writeFile(join(sessions, 'middle.jsonl'), [...middle.slice(0, 31), ...middle.slice(32)].join('\n'))
    // good logs under names that are no session's: the server does not read them, and check no longer calls them ok
    await writeFile(join(sessions, '.hidden.jsonl'), `${header('hidden')}\n`)
    await writeFile(join(sessions, 'bad name.jsonl'), `${header('x1')}\n`)

    const server = await serve(dataDir)
    const list = await api(server.url, 'GET', '/api/sessions')
    expect((list.body as { sessions: { id: string }[] }).sessions.map((s) => s.id)).toEqual(['ok'])
    const expected: Record<string, { seq: number; reason: string }> = {
      escape: { seq: -1, reason: 'not a regular file (a symbolic link)' },
      zero: { seq: -1, reason: 'not a regular file (a symbolic link)' },
      dangling: { seq: -1, reason: 'not a regular file (a symbolic link)' },
      folder: { seq: -1, reason: 'not a regular file (a directory)' },
      fifo: { seq: -1, reason: 'not a regular file (a FIFO)' },
      badhead: { seq: -1, reason: 'not a version 1 session header' },
      baddata: { seq: 0, reason: 'step/start data: step must be a positive safe integer' },
      middle: { seq: 30, reason: 'expected seq 30, found 31' },
    }
    for (const [id, details] of Object.entries(expected)) {
      for (const [method, path, body] of [
        ['GET', `/api/sessions/${id}`, undefined],
        ['GET', `/api/sessions/${id}/events`, undefined],
        ['GET', `/api/sessions/${id}/events?limit=2`, undefined],
        ['GET', `/api/sessions/${id}/events?after=0&limit=1`, undefined],
        ['GET', `/api/sessions/${id}/stream`, undefined],
        ['GET', `/api/sessions/${id}/schedules`, undefined],
        ['POST', `/api/sessions/${id}/messages`, { text: 'hi', clientTimeZone: 'UTC' }],
        ['POST', `/api/sessions/${id}/cancel`, undefined],
      ] as const) {
        const answer = await api(server.url, method, path, body)
        // the message says what is wrong, never where the data directory is (the server's log says that)
        expect({ id, path, status: answer.status, error: (answer.body as { error: unknown }).error }).toEqual({
          id,
          path,
          status: 409,
          error: { code: 'session-corrupt', message: `session cannot be opened: session file is corrupt at seq ${details.seq}: ${details.reason}`, details },
        })
      }
    }
    expect(await readFile(join(outside, 'escape.jsonl'), 'utf8')).toBe(victim)
    expect((await readdir(sessions)).filter((n) => n.endsWith('.tmp'))).toEqual([])

    const checked = await runCheckCli([sessions])
    const lines = checked.stdout.trimEnd().split('\n').sort()
    const fail = (id: string) => `FAIL ${join(sessions, `${id}.jsonl`)} seq ${expected[id].seq}: ${expected[id].reason}`
    expect({ code: checked.code, lines }).toEqual({
      code: 1,
      lines: [
        ...Object.keys(expected).map(fail),
        ...['.hidden.jsonl', 'bad name.jsonl'].map(
          (name) => `FAIL ${join(sessions, name)} seq -1: the file name is not <session id>.jsonl (letters, digits, - and _, at most 64), so the server does not read it`,
        ),
        `ok ${join(sessions, 'ok.jsonl')}`,
      ].sort(),
    })
  })
})
