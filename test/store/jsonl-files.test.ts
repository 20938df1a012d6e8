import { execFileSync } from 'node:child_process'
import { mkdir, readdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { corruptSession, JsonlStore, type OpenVisitor, type SessionWriter } from '../../src/host/index.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { FailingFiles } from '../support/failing-files.ts'
import { tempDir } from '../support/temp-dir.ts'

const HEADER = { type: 'session', version: 1, id: 'x', createdAt: 5, timeZone: 'UTC' }

function line(value: unknown): string {
  return `${JSON.stringify(value)}\n`
}

const noop = { header: () => undefined, event: () => undefined }

async function storeIn(dir: string, log: string[] = []): Promise<JsonlStore> {
  return JsonlStore.open({ dataDir: dir, log: (l) => log.push(l) })
}

function userEvent(seq: number): SessionEvent {
  return {
    seq,
    time: 10 + seq,
    type: 'user/message',
    data: { id: `m${seq}`, role: 'user', content: [{ type: 'text', text: 'hi' }], source: { kind: 'user' } },
    surfaceOp: 'append',
  }
}

/** A store on a file layer that fails on demand, with session x holding one durable event. */
async function oneDurableEvent(): Promise<{ files: FailingFiles; store: JsonlStore; writer: SessionWriter; path: string }> {
  const dir = await tempDir()
  const files = new FailingFiles()
  const store = await JsonlStore.open({ dataDir: dir, files })
  await store.createSession(HEADER as never)
  const writer = await store.openSession('x', noop)
  writer.append([userEvent(0)])
  await writer.barrier()
  return { files, store, writer, path: join(dir, 'sessions/x.jsonl') }
}

describe('JSONL store files (SPEC 2.5)', () => {
  it('removes staged files of interrupted creations at start and keeps sessions', async () => {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'))
    await writeFile(join(dir, 'sessions/a.jsonl'), line({ ...HEADER, id: 'a' }))
    await writeFile(join(dir, 'sessions/a.jsonl.0123456789ab.tmp'), line({ ...HEADER, id: 'a' }))
    await writeFile(join(dir, 'sessions/b.jsonl.ba9876543210.tmp'), '')
    await writeFile(join(dir, 'sessions/.probe-77-abcd'), ' ')
    await writeFile(join(dir, 'sessions/notes.txt'), 'kept')
    const log: string[] = []
    await storeIn(dir, log)
    expect((await readdir(join(dir, 'sessions'))).sort()).toEqual(['a.jsonl', 'notes.txt'])
    expect(log.sort()).toEqual([
      'removed the staged file .probe-77-abcd of an interrupted session creation',
      'removed the staged file a.jsonl.0123456789ab.tmp of an interrupted session creation',
      'removed the staged file b.jsonl.ba9876543210.tmp of an interrupted session creation',
    ])
  })

  it('never follows or reads symlinks, directories, FIFOs, devices or sockets, and never blocks on them', async () => {
    const dir = await tempDir()
    const outside = await tempDir()
    const sessions = join(dir, 'sessions')
    await mkdir(sessions)
    const target = join(outside, 'victim.jsonl')
    const victim = line({ ...HEADER, id: 'link' })
    await writeFile(target, victim)
    await symlink(target, join(sessions, 'link.jsonl'))
    await symlink('/dev/zero', join(sessions, 'zero.jsonl'))
    await symlink(join(outside, 'missing.jsonl'), join(sessions, 'dangling.jsonl'))
    await mkdir(join(sessions, 'folder.jsonl'))
    execFileSync('mkfifo', [join(sessions, 'fifo.jsonl')])
    const socketServer = createServer()
    await new Promise<void>((resolve) => socketServer.listen(join(sessions, 'sock.jsonl'), resolve))
    await writeFile(join(sessions, 'fine.jsonl'), line({ ...HEADER, id: 'fine' }))
    try {
      const store = await storeIn(dir)
      const listed = (await store.listSessions()).map((entry) =>
        'header' in entry ? { id: entry.id, ok: true } : { id: entry.id, code: entry.problem.code, details: entry.problem.details },
      )
      const kind = (id: string, what: string) => ({ id, code: 'corrupt', details: { seq: -1, reason: `not a regular file (${what})` } })
      expect(listed.sort((a, b) => (a.id < b.id ? -1 : 1))).toEqual([
        kind('dangling', 'a symbolic link'),
        kind('fifo', 'a FIFO'),
        { id: 'fine', ok: true },
        kind('folder', 'a directory'),
        kind('link', 'a symbolic link'),
        kind('sock', 'a socket'),
        kind('zero', 'a symbolic link'),
      ])
      for (const [id, what] of [
        ['link', 'a symbolic link'],
        ['zero', 'a symbolic link'],
        ['dangling', 'a symbolic link'],
        ['folder', 'a directory'],
        ['fifo', 'a FIFO'],
        ['sock', 'a socket'],
      ]) {
        await expect(store.openSession(id, noop)).rejects.toMatchObject({
          code: 'corrupt',
          details: { seq: -1, reason: `not a regular file (${what})` },
        })
        await expect(store.readHeader(id)).rejects.toMatchObject({ code: 'corrupt' })
      }
      await expect(store.createSession({ ...HEADER, id: 'link' } as never)).rejects.toMatchObject({ code: 'corrupt' })
      expect(await readFile(target, 'utf8')).toBe(victim)
    } finally {
      await new Promise<void>((resolve) => socketServer.close(() => resolve()))
    }
  })

  it.each([
    ['a header that is not JSON', '{"type":"sess\n', { seq: -1, reason: 'header line is not valid JSON' }],
    ['a header with unknown keys', line({ ...HEADER, extra: 1 }), { seq: -1, reason: 'header has unknown keys' }],
    ['a header with a bad zone', line({ ...HEADER, timeZone: 'PST' }), { seq: -1, reason: 'bad timeZone' }],
    ['a header naming another session', line({ ...HEADER, id: 'other' }), { seq: -1, reason: 'the header names session other' }],
    [
      'an event with malformed data',
      line(HEADER) + line({ seq: 0, time: 1, type: 'turn/start', data: { turn: 'one' } }),
      { seq: 0, reason: 'turn/start data: turn must be a positive safe integer' },
    ],
    [
      'a user message without content blocks',
      line(HEADER) + line({ seq: 0, time: 1, type: 'user/message', data: { id: 'm', role: 'user', content: 'hi', source: { kind: 'user' } } }),
      { seq: 0, reason: 'user/message data: message content must be an array of text blocks' },
    ],
    ['an unknown event type', line(HEADER) + line({ seq: 0, time: 1, type: 'mystery', data: {} }), { seq: 0, reason: 'unknown event type "mystery"' }],
    ['an event that is not an object', line(HEADER) + '[1,2]\n', { seq: 0, reason: 'event is not an object' }],
    ['bad JSON mid-file', line(HEADER) + '{oops\n' + line({ seq: 1, time: 1, type: 'turn/start', data: { turn: 1 } }), { seq: 0, reason: 'line is not valid JSON' }],
  ])('refuses %s with the seq and reason, and never rewrites the file', async (_name, text, details) => {
    const dir = await tempDir()
    await mkdir(join(dir, 'sessions'))
    const path = join(dir, 'sessions/x.jsonl')
    await writeFile(path, text)
    const store = await storeIn(dir)
    await expect(store.openSession('x', noop)).rejects.toMatchObject({ name: 'StoreError', code: 'corrupt', details })
    expect(await readFile(path, 'utf8')).toBe(text)
  })

  it('fails the writer when its file is deleted, and repair leaves the path alone', async () => {
    const dir = await tempDir()
    const store = await storeIn(dir)
    await store.createSession(HEADER as never)
    const writer: SessionWriter = await store.openSession('x', noop)
    writer.append([userEvent(0)])
    await writer.barrier()
    await rm(join(dir, 'sessions/x.jsonl'))
    writer.append([userEvent(1)])
    await expect(writer.barrier()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining('was deleted'),
    })
    expect(writer.durableCount).toBe(1)
    await writer.repair()
    await expect(store.openSession('x', noop)).rejects.toMatchObject({ code: 'not-found' })
  })

  it('acknowledges nothing into a file replaced while its barrier ran: the path is looked at once the barrier passed', async () => {
    const { files, writer, path } = await oneDurableEvent()
    const release = files.hold('datasync', /x\.jsonl$/)
    const before = (await stat(path)).size
    writer.append([userEvent(1)])
    const barrier = writer.barrier()
    // the event is written and its fdatasync held
    await vi.waitFor(async () => expect((await stat(path)).size).toBeGreaterThan(before))
    // replaced while the fdatasync runs (on the code before, the path was looked at beside it, before the rename)
    await writeFile(`${path}.new`, line(HEADER))
    await rename(`${path}.new`, path)
    release()
    await expect(barrier).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('was replaced') })
    expect(writer.durableCount).toBe(1)
  })

  it('fails the writer when its file is replaced, and repair never cuts the replacement', async () => {
    const dir = await tempDir()
    const store = await storeIn(dir)
    await store.createSession(HEADER as never)
    const writer = await store.openSession('x', noop)
    const path = join(dir, 'sessions/x.jsonl')
    const replacement = line(HEADER) + line(userEvent(0)) + line(userEvent(1))
    await writeFile(`${path}.new`, replacement)
    await rename(`${path}.new`, path)
    writer.append([userEvent(0)])
    await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('was replaced') })
    await writer.repair()
    expect(await readFile(path, 'utf8')).toBe(replacement)
    const seen: SessionEvent[] = []
    const again = await store.openSession('x', { header: () => undefined, event: (e) => seen.push(e) })
    expect(seen).toEqual([userEvent(0), userEvent(1)])
    await again.close()
  })

  it('cuts what a failed barrier wrote off the file at once, so a refused event is never read back, and on repair when the cut failed too', async () => {
    const { files, store, writer, path } = await oneDurableEvent()
    const durable = await readFile(path, 'utf8')
    // the barrier fails: the line it wrote is gone as the writer fails (on the code before, it stayed until a repair,
    // and a server stopped or killed before one read the refused event back when it opened the session again)
    files.inject({ op: 'datasync', code: 'EIO', path: /x\.jsonl$/, times: 1 })
    // and the sender hears of the failure only once the cut is made: a server killed in between must not read it back
    const release = files.hold('truncate', /x\.jsonl$/)
    writer.append([userEvent(1)])
    let told = false
    const refused = writer
      .barrier()
      .then(() => null, (error: unknown) => error)
      .finally(() => (told = true))
    await vi.waitFor(() => expect(files.count('datasync', /x\.jsonl$/)).toBe(2))
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(told).toBe(false)
    release()
    expect(await refused).toMatchObject({ code: 'unavailable', message: expect.stringContaining('EIO') })
    expect(await readFile(path, 'utf8')).toBe(durable)
    await writer.repair()
    expect(await readFile(path, 'utf8')).toBe(durable)

    // the cut fails as well: the line stays until the repair that follows the store's recovery
    const again = await store.openSession('x', noop)
    files.inject({ op: 'datasync', code: 'EIO', path: /x\.jsonl$/ })
    files.inject({ op: 'truncate', code: 'EIO', path: /x\.jsonl$/ })
    again.append([userEvent(1)])
    await expect(again.barrier()).rejects.toMatchObject({ code: 'unavailable' })
    expect(await readFile(path, 'utf8')).toBe(durable + line(userEvent(1)))
    await expect(again.repair()).rejects.toMatchObject({ code: 'unavailable' })
    files.heal()
    await again.repair()
    expect(await readFile(path, 'utf8')).toBe(durable)
  })

  it('a file cut short under the writer is not acknowledged into, and nothing of it is cut further', async () => {
    const dir = await tempDir()
    const store = await storeIn(dir)
    await store.createSession(HEADER as never)
    const writer = await store.openSession('x', noop)
    writer.append([userEvent(0), userEvent(1)])
    await writer.barrier()
    const path = join(dir, 'sessions/x.jsonl')
    const header = line(HEADER)
    await writeFile(path, header + line(userEvent(0)))
    // longer than event 1: a repair that cut to the durable length would leave part of it
    const long = { ...userEvent(2), data: { ...userEvent(2).data, content: [{ type: 'text', text: 'a longer message than the first one' }] } } as SessionEvent
    writer.append([long])
    // on the code before, the append was acknowledged: the file read seq 0 then 2, and event 1, served already, was lost
    await expect(writer.barrier()).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringContaining(`session file '${path}' was changed by another writer`),
    })
    const changed = header + line(userEvent(0)) + line(long)
    expect(await readFile(path, 'utf8')).toBe(changed)
    // nor by the repair after it: opening the file again judges what it holds
    await writer.repair()
    expect(await readFile(path, 'utf8')).toBe(changed)
  })

  it('never cuts bytes another writer added, when its own write then fails', async () => {
    const { files, writer, path } = await oneDurableEvent()
    const foreign = `${await readFile(path, 'utf8')}FOREIGN\n`
    await writeFile(path, foreign)
    files.inject({ op: 'write', code: 'ENOSPC', path: /x\.jsonl$/, times: 1 })
    writer.append([userEvent(1)])
    await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('ENOSPC') })
    expect(await readFile(path, 'utf8')).toBe(foreign)
    await writer.repair()
    expect(await readFile(path, 'utf8')).toBe(foreign)
  })
})

describe('corrupt verdicts (SPEC 2.5)', () => {
  /** A visitor with the given validators' key that counts what it is shown and refuses events from `refuseAt` on. */
  function counting(trustKey: string, refuseAt = Infinity): { visitor: OpenVisitor; seen: () => number } {
    let seen = 0
    const visitor: OpenVisitor = {
      trustKey,
      header: () => undefined,
      event: (event) => {
        seen++
        if (event.seq >= refuseAt) throw corruptSession('x', event.seq, 'refused by its validator')
      },
    }
    return { visitor, seen: () => seen }
  }

  it('gives a corrupt file the verdict of its last scan with the same validators until the file changes, without reading it again', async () => {
    const dir = await tempDir()
    const store = await storeIn(dir)
    const path = join(dir, 'sessions/x.jsonl')
    const good = line(HEADER) + line(userEvent(0)) + line(userEvent(1))
    await mkdir(join(dir, 'sessions'), { recursive: true })
    await writeFile(path, `${good}{"seq":2,\n${line(userEvent(3))}`)
    const verdict = { code: 'corrupt', message: `session file '${path}' is corrupt at seq 2: line is not valid JSON` }
    const first = counting('k1')
    await expect(store.scanSession('x', first.visitor)).rejects.toMatchObject(verdict)
    expect(first.seen()).toBe(2)
    // the same file and validators: the same answer, and not one event read again (on the code before, 2 more each time)
    const again = counting('k1')
    await expect(store.scanSession('x', again.visitor)).rejects.toMatchObject(verdict)
    await expect(store.openSession('x', again.visitor)).rejects.toMatchObject(verdict)
    expect(again.seen()).toBe(0)
    // other validators read it again
    const other = counting('k2')
    await expect(store.openSession('x', other.visitor)).rejects.toMatchObject(verdict)
    expect(other.seen()).toBe(2)
    // a file mended is read again and opens
    await writeFile(path, good)
    const mended = counting('k2')
    const writer = await store.openSession('x', mended.visitor)
    expect(mended.seen()).toBe(2)
    await writer.close()
  })

  it('keeps a validator’s refusal under its key, and reads the file again once it grew', async () => {
    const dir = await tempDir()
    const store = await storeIn(dir)
    const path = join(dir, 'sessions/x.jsonl')
    await mkdir(join(dir, 'sessions'), { recursive: true })
    await writeFile(path, line(HEADER) + line(userEvent(0)) + line(userEvent(1)) + line(userEvent(2)))
    const refused = { code: 'corrupt', message: 'session x is corrupt at seq 1: refused by its validator' }
    const first = counting('k1', 1)
    await expect(store.openSession('x', first.visitor)).rejects.toMatchObject(refused)
    expect(first.seen()).toBe(2)
    const again = counting('k1', 1)
    await expect(store.scanSession('x', again.visitor)).rejects.toMatchObject(refused)
    expect(again.seen()).toBe(0)
    // validators that accept the events open it: a verdict is never another key's
    const accepting = counting('k2')
    const writer = await store.openSession('x', accepting.visitor)
    expect(accepting.seen()).toBe(3)
    writer.append([userEvent(3)])
    await writer.barrier()
    await writer.close()
    // the file grew: the first validators read it again (and refuse it again)
    const grown = counting('k1', 1)
    await expect(store.scanSession('x', grown.visitor)).rejects.toMatchObject(refused)
    expect(grown.seen()).toBe(2)
  })
})
