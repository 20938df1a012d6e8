import { appendFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HostError } from '../../src/host/errors.ts'
import { makeHost } from '../support/host-harness.ts'
import { tempDir } from '../support/temp-dir.ts'

describe('JSONL session store', () => {
  it('writes the immutable header as the first line with the canonical zone', async () => {
    const dir = await tempDir()
    const { host, clock } = await makeHost(dir)
    const { session, created } = await host.createSession({ id: 'abc', timeZone: 'America/New_York' })
    expect(created).toBe(true)
    await host.close()
    const text = await readFile(join(dir, 'sessions/abc.jsonl'), 'utf8')
    expect(text).toBe(
      `{"type":"session","version":1,"id":"abc","createdAt":${clock.current},"timeZone":"America/New_York"}\n`,
    )
    expect(session.header).toEqual({ type: 'session', version: 1, id: 'abc', createdAt: clock.current, timeZone: 'America/New_York' })
  })

  it('omits timeZone for a headerless session', async () => {
    const dir = await tempDir()
    const { host, clock } = await makeHost(dir)
    await host.createSession({ id: 'cli' })
    await host.close()
    expect(await readFile(join(dir, 'sessions/cli.jsonl'), 'utf8')).toBe(
      `{"type":"session","version":1,"id":"cli","createdAt":${clock.current}}\n`,
    )
  })

  it('generates URL-safe unguessable ids', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir)
    const a = (await host.createSession({ timeZone: 'UTC' })).session.id
    const b = (await host.createSession({ timeZone: 'UTC' })).session.id
    expect(a).toMatch(/^[A-Za-z0-9_-]{22}$/)
    expect(a).not.toBe(b)
    await host.close()
  })

  it('is idempotent for an equal zone and refuses a different one', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir)
    await host.createSession({ id: 's1', timeZone: 'America/New_York' })
    const again = await host.createSession({ id: 's1', timeZone: 'America/New_York' })
    expect(again.created).toBe(false)
    await expect(host.createSession({ id: 's1', timeZone: 'Asia/Shanghai' })).rejects.toMatchObject({
      code: 'session-conflict',
      details: { sessionId: 's1', requestedTimeZone: 'Asia/Shanghai', existingTimeZone: 'America/New_York' },
    })
    await host.createSession({ id: 's2' })
    await expect(host.createSession({ id: 's2', timeZone: 'UTC' })).rejects.toMatchObject({
      code: 'session-conflict',
      details: { sessionId: 's2', requestedTimeZone: 'UTC', existingTimeZone: null },
    })
    await host.close()
  })

  it('detects conflicts against a session that is only on disk', async () => {
    const dir = await tempDir()
    const first = await makeHost(dir)
    await first.host.createSession({ id: 's1', timeZone: 'Europe/Berlin' })
    await first.host.close()
    const second = await makeHost(dir)
    expect((await second.host.createSession({ id: 's1', timeZone: 'Europe/Berlin' })).created).toBe(false)
    await expect(second.host.createSession({ id: 's1', timeZone: 'UTC' })).rejects.toBeInstanceOf(HostError)
    await second.host.close()
  })

  it('appends contiguous seqs with the clock time and reopens them', async () => {
    const dir = await tempDir()
    const { host, clock } = await makeHost(dir)
    const { session } = await host.createSession({ id: 'x', timeZone: 'UTC' })
    await session.append([{ type: 'turn/start', data: { turn: 1 } }])
    clock.advance(5)
    await session.append([
      { type: 'turn/end', data: { turn: 1, reason: 'completed' } },
      { type: 'inbox/dropped', data: { ids: [], reason: 'test' } },
    ])
    expect(await session.flush()).toBe(true)
    await host.close()
    const again = await makeHost(dir)
    const reopened = await again.host.openSession('x')
    expect(reopened.events()).toEqual([
      { seq: 0, time: clock.current - 5, type: 'turn/start', data: { turn: 1 } },
      { seq: 1, time: clock.current, type: 'turn/end', data: { turn: 1, reason: 'completed' } },
      { seq: 2, time: clock.current, type: 'inbox/dropped', data: { ids: [], reason: 'test' } },
    ])
    await again.host.close()
  })

  it('cuts a torn final line away, keeps every complete line and reports it once', async () => {
    const dir = await tempDir()
    const first = await makeHost(dir)
    const { session } = await first.host.createSession({ id: 't', timeZone: 'UTC' })
    await session.append([{ type: 'inbox/dropped', data: { ids: [], reason: 'test' } }])
    await first.host.close()
    const path = join(dir, 'sessions/t.jsonl')
    const whole = await readFile(path, 'utf8')
    await appendFile(path, '{"seq":1,"time":17,"type":"turn/e')
    const second = await makeHost(dir)
    const reopened = await second.host.openSession('t')
    expect(reopened.length).toBe(1)
    expect(second.logs).toEqual([
      'catalog: 1 session summaries are stale and will be rebuilt from their logs',
      'session t: recovered a torn final line (33 bytes cut)',
    ])
    expect(await readFile(path, 'utf8')).toBe(whole)
    await reopened.append([{ type: 'inbox/dropped', data: { ids: [], reason: 'again' } }])
    await second.host.close()
    const third = await makeHost(dir)
    expect((await third.host.openSession('t')).length).toBe(2)
    expect(third.logs).toEqual([])
    await third.host.close()
  })

  it.each([
    ['bad JSON mid-file', (lines: string[]) => [lines[0], '{oops', lines[1]], { seq: 0, reason: 'line is not valid JSON' }],
    ['a gap in seq', (lines: string[]) => [lines[0], lines[1].replace('"seq":0', '"seq":3')], { seq: 0, reason: 'expected seq 0, found 3' }],
    [
      'a changed header',
      (lines: string[]) => [lines[0].replace('"version":1', '"version":2'), lines[1]],
      { seq: -1, reason: 'not a version 1 session header' },
    ],
  ])('refuses to open a file with %s and never rewrites it', async (_name, damage, details) => {
    const dir = await tempDir()
    const first = await makeHost(dir)
    const { session } = await first.host.createSession({ id: 'c', timeZone: 'UTC' })
    await session.append([{ type: 'turn/start', data: { turn: 1 } }])
    await first.host.close()
    const path = join(dir, 'sessions/c.jsonl')
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n')
    const damaged = `${damage(lines).join('\n')}\n`
    await writeFile(path, damaged)
    const second = await makeHost(dir)
    await expect(second.host.openSession('c')).rejects.toMatchObject({ code: 'corrupt', details })
    expect(await readFile(path, 'utf8')).toBe(damaged)
    await second.host.close()
  })

  it('answers session-not-found for a missing id', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir)
    await expect(host.openSession('nope')).rejects.toMatchObject({ code: 'session-not-found' })
    await expect(host.openSession('../etc')).rejects.toMatchObject({ code: 'session-not-found' })
    await host.close()
  })
})

describe('interrupted creation', () => {
  it('treats an empty session file as absent and creates the session over it', async () => {
    const dir = await tempDir()
    const { host, clock } = await makeHost(dir)
    await host.createSession({ id: 'first', timeZone: 'UTC' })
    const path = join(dir, 'sessions/e.jsonl')
    await writeFile(path, '')
    await expect(host.openSession('e')).rejects.toMatchObject({ code: 'session-not-found' })
    const { created } = await host.createSession({ id: 'e', timeZone: 'UTC' })
    expect(created).toBe(true)
    await host.close()
    expect(await readFile(path, 'utf8')).toBe(`{"type":"session","version":1,"id":"e","createdAt":${clock.current},"timeZone":"UTC"}\n`)
  })
})

describe('files without a final newline', () => {
  it('appends after a header-only file whose newline is missing without joining the lines', async () => {
    const dir = await tempDir()
    const { host } = await makeHost(dir)
    await host.createSession({ id: 'seed', timeZone: 'UTC' })
    await host.close()
    const path = join(dir, 'sessions/h.jsonl')
    const headerLine = '{"type":"session","version":1,"id":"h","createdAt":5,"timeZone":"UTC"}'
    await writeFile(path, headerLine)
    const again = await makeHost(dir)
    const session = await again.host.openSession('h')
    await session.append([{ type: 'inbox/dropped', data: { ids: [], reason: 'x' } }])
    await again.host.close()
    expect((await readFile(path, 'utf8')).split('\n')).toEqual([
      headerLine,
      `{"seq":0,"time":${again.clock.current},"type":"inbox/dropped","data":{"ids":[],"reason":"x"}}`,
      '',
    ])
  })
})
