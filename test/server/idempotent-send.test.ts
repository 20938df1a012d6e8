import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { SENT_KEPT, sentFold } from '../../src/host/folds.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import type { SessionEvent } from '../../src/protocol/events.ts'
import { createApp } from '../../src/server/app.ts'
import { compose } from '../../src/server/compose.ts'
import { header } from '../store/fixtures.ts'
import { FailingFiles } from '../support/failing-files.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, call, makeApp, type Answer } from './app-harness.ts'

/** A model answer that never comes: the first turn stays in its step, so later messages stay queued in the inbox. */
const untilAborted = (_request: unknown, signal: AbortSignal): Promise<never> =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }))

const KEY = '6f1c0a52-3b7e-4d0a-9c51-2a8e5f7d9b10'

type Enqueued = { target: string; message: { id: string; content: { text: string }[]; source: { rpcId?: string; clientTimeZone?: string } } }

/** The `inbox/enqueued` events on disk, in order. */
async function enqueuedOnDisk(dir: string, id: string): Promise<Enqueued[]> {
  const lines = (await readFile(join(dir, `sessions/${id}.jsonl`), 'utf8')).split('\n').slice(1).filter((line) => line !== '')
  return lines.map((line) => JSON.parse(line) as { type: string; data: Enqueued }).filter((e) => e.type === 'inbox/enqueued').map((e) => e.data)
}

function keyed(key: string): Record<string, string> {
  return { 'idempotency-key': key }
}

async function sessionApp(dir: string) {
  const made = await makeApp(dir, { model: new ScriptedModel().push(untilAborted) })
  await call(made.app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })
  return made
}

describe('POST /api/sessions/:id/messages with an Idempotency-Key', () => {
  it('enters a message sent again under the same key once, and answers the repeat with the first answer', async () => {
    const dir = await tempDir()
    const { app, host } = await sessionApp(dir)
    const message = { text: 'Call the dentist', clientTimeZone: 'US/Eastern' }
    const first = await call(app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))
    expect(first).toEqual({ status: 202, body: { rpcId: `key-${KEY}`, messageId: expect.stringMatching(/^msg-[A-Za-z0-9_-]{22}$/) } })
    // the structured-field form of the header (a quoted string) is the same key
    expect(await call(app, 'POST', '/api/sessions/s/messages', message, keyed(`"${KEY}"`))).toEqual(first)
    expect(await call(app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))).toEqual(first)
    const { messageId } = first.body as { messageId: string }
    expect(await enqueuedOnDisk(dir, 's')).toEqual([
      {
        target: 'next-turn',
        message: {
          id: messageId,
          role: 'user',
          content: [{ type: 'text', text: 'Call the dentist' }],
          source: { kind: 'user', rpcId: `key-${KEY}`, clientTimeZone: 'America/New_York' },
        },
      },
    ])
    await host.close()
  })

  it('remembers the key across a restart', async () => {
    const dir = await tempDir()
    const before = await sessionApp(dir)
    const message = { text: 'before the restart', clientTimeZone: 'UTC' }
    const first = await call(before.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))
    await before.host.close()
    const after = await makeApp(dir, { model: new ScriptedModel().push(untilAborted) })
    expect(await call(after.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))).toEqual(first)
    expect((await enqueuedOnDisk(dir, 's')).map((e) => e.message.content[0].text)).toEqual(['before the restart'])
    await after.host.close()
  })

  it('refuses the same key for a different message (text, mode or zone) with 422 and writes nothing', async () => {
    const dir = await tempDir()
    const { app, host } = await sessionApp(dir)
    const first = await call(app, 'POST', '/api/sessions/s/messages', { text: 'one', clientTimeZone: 'UTC' }, keyed(KEY))
    const { messageId } = first.body as { messageId: string }
    const reused = {
      status: 422,
      body: apiError('idempotency-key-reused', `Idempotency-Key "${KEY}" was already used for a different message`, { messageId }),
    }
    for (const other of [
      { text: 'two', clientTimeZone: 'UTC' },
      { text: 'one', clientTimeZone: 'UTC', mode: 'steer' },
      { text: 'one', clientTimeZone: 'Europe/Berlin' },
    ]) {
      expect(await call(app, 'POST', '/api/sessions/s/messages', other, keyed(KEY))).toEqual(reused)
    }
    expect((await enqueuedOnDisk(dir, 's')).map((e) => e.message.id)).toEqual([messageId])
    await host.close()
  })

  it('keeps keys apart per Session, and messages without a key are never taken for a repeat', async () => {
    const dir = await tempDir()
    const { app, host } = await sessionApp(dir)
    await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 't' })
    const message = { text: 'same words', clientTimeZone: 'UTC' }
    const inS = await call(app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))
    const inT = await call(app, 'POST', '/api/sessions/t/messages', message, keyed(KEY))
    expect(inT.status).toBe(202)
    expect((inT.body as { messageId: string }).messageId).not.toBe((inS.body as { messageId: string }).messageId)
    const plain = [await call(app, 'POST', '/api/sessions/s/messages', message), await call(app, 'POST', '/api/sessions/s/messages', message)]
    expect(plain.map((a) => a.status)).toEqual([202, 202])
    expect((await enqueuedOnDisk(dir, 's')).map((e) => e.message.source.rpcId?.slice(0, 4))).toEqual(['key-', 'rpc-', 'rpc-'])
    expect((await enqueuedOnDisk(dir, 't')).length).toBe(1)
    await host.close()
  })

  it.each([
    ['empty', ''],
    ['empty quoted', '""'],
    ['129 characters', 'k'.repeat(129)],
    ['a space inside', 'two words'],
    ['a non-ASCII letter', 'schlüssel'],
    ['a half-quoted value', '"abc'],
  ])('refuses a key that is %s with 400 bad-request and writes nothing', async (_label, key) => {
    const dir = await tempDir()
    const { app, host } = await sessionApp(dir)
    expect(await call(app, 'POST', '/api/sessions/s/messages', { text: 'hi', clientTimeZone: 'UTC' }, keyed(key))).toEqual({
      status: 400,
      body: apiError('bad-request', 'Idempotency-Key must be 1 to 128 letters, digits or - _ . : ~ + / ='),
    })
    expect(await enqueuedOnDisk(dir, 's')).toEqual([])
    await host.close()
  })
})

const SESSION_FILE = /sessions\/s\.jsonl$/

/** The app over the real files of a temp dir with a disk that can be held (slow) or made to fail, and its recovery timers. */
async function diskWorld() {
  const dir = await tempDir('sw-keyed-')
  const files = new FailingFiles()
  const recovery = new ManualTimers()
  const logs: string[] = []
  const { host, schedules } = await compose({
    dataDir: dir,
    model: new ScriptedModel().push(untilAborted),
    clock: new FakeClock(),
    files,
    recoveryTimers: recovery,
    log: (line) => logs.push(line),
  })
  const app = createApp({ host, schedules })
  expect((await call(app, 'POST', '/api/sessions', { timeZone: 'UTC', sessionId: 's' })).status).toBe(201)
  return { dir, files, recovery, logs, app, host }
}

/** A request whose answer is noted when it arrives. */
function pending(answer: Promise<Answer>): { answer: Promise<Answer>; settled: () => boolean } {
  let settled = false
  void answer.then(() => (settled = true))
  return { answer, settled: () => settled }
}

/**
 * A keyed message whose write is held at its barrier (written, not yet durable), and its repeat sent then: both still
 * unanswered 50 ms later. `release` lets the disk go on.
 */
async function repeatWhileHeld(w: Awaited<ReturnType<typeof diskWorld>>, text: string) {
  const release = w.files.hold('datasync', SESSION_FILE)
  const message = { text, clientTimeZone: 'UTC' }
  const writes = w.files.count('write', SESSION_FILE)
  const first = pending(call(w.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY)))
  await vi.waitFor(() => expect(w.files.count('write', SESSION_FILE)).toBe(writes + 1))
  const repeat = pending(call(w.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY)))
  await new Promise((resolve) => setTimeout(resolve, 50))
  expect(repeat.settled()).toBe(false)
  return { first, repeat, release }
}

describe('a repeated keyed message and the disk (SPEC 2.6)', () => {
  it('a repeat that arrives while the first is still being written answers only once it is durable, with the same answer', async () => {
    const w = await diskWorld()
    const { first, repeat, release } = await repeatWhileHeld(w, 'while the disk is slow')
    expect(first.settled()).toBe(false)
    release()
    const answers = await Promise.all([first.answer, repeat.answer])
    expect(answers[0].status).toBe(202)
    expect(answers[1]).toEqual(answers[0])
    expect((await enqueuedOnDisk(w.dir, 's')).map((e) => e.message.content[0].text)).toEqual(['while the disk is slow'])
    await w.host.close()
  })

  it('a repeat of a message whose write failed fails too (503), and once the disk is back the same key enters it once', async () => {
    const w = await diskWorld()
    const message = { text: 'when the disk failed', clientTimeZone: 'UTC' }
    const { first, repeat, release } = await repeatWhileHeld(w, message.text)
    w.files.inject({ op: 'datasync', code: 'EIO', path: SESSION_FILE })
    release()
    const failure = 'storage for session s is unavailable: EIO: injected failure, datasync'
    const unavailable = { status: 503, body: apiError('storage-unavailable', failure, { retryAfterSeconds: 1 }) }
    expect(await first.answer).toEqual(unavailable)
    expect(await repeat.answer).toEqual(unavailable)
    w.files.heal()
    await vi.waitFor(() => expect(w.recovery.pending.size).toBe(1))
    w.recovery.fireAll()
    await vi.waitFor(() => expect(w.logs.at(-1)).toBe('session s: storage available again'))
    expect(await enqueuedOnDisk(w.dir, 's')).toEqual([])
    const retried = await call(w.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))
    expect(retried).toEqual({ status: 202, body: { rpcId: `key-${KEY}`, messageId: expect.stringMatching(/^msg-/) } })
    expect(await call(w.app, 'POST', '/api/sessions/s/messages', message, keyed(KEY))).toEqual(retried)
    expect((await enqueuedOnDisk(w.dir, 's')).map((e) => e.message.id)).toEqual([(retried.body as { messageId: string }).messageId])
    await w.host.close()
  })
})

describe('the fold of sent messages', () => {
  const enqueued = (seq: number, rpcId: string | null, text = `message ${seq}`): SessionEvent => ({
    seq,
    time: 0,
    type: 'inbox/enqueued',
    data: {
      target: 'next-turn',
      message: { id: `msg-${seq}`, role: 'user', content: [{ type: 'text', text }], source: rpcId === null ? { kind: 'user' } : { kind: 'user', rpcId, clientTimeZone: 'UTC' } },
    },
  })

  it(`keeps the newest ${SENT_KEPT} messages sent with an rpcId, keyed or not, skips one without, and a key sent again counts as new`, () => {
    let state = sentFold.init(header('s', 'UTC'))
    state = sentFold.apply(state, enqueued(0, 'key-oldest'))
    state = sentFold.apply(state, enqueued(1, null))
    state = sentFold.apply(state, enqueued(2, 'key-again'))
    state = sentFold.apply(state, enqueued(3, 'rpc-made-by-the-server'))
    for (let i = 0; i < SENT_KEPT - 3; i++) state = sentFold.apply(state, enqueued(4 + i, `key-${i}`))
    expect(state.size).toBe(SENT_KEPT)
    expect(state.get('key-oldest')).toEqual({ messageId: 'msg-0', target: 'next-turn', text: 'message 0', clientTimeZone: 'UTC' })
    expect(state.get('rpc-made-by-the-server')).toEqual({ messageId: 'msg-3', target: 'next-turn', text: 'message 3', clientTimeZone: 'UTC' })
    // a key that entered again is the newest; one more message and the oldest is forgotten
    state = sentFold.apply(state, enqueued(5000, 'key-again', 'later'))
    state = sentFold.apply(state, enqueued(5001, 'key-newest'))
    expect(state.size).toBe(SENT_KEPT)
    expect(state.has('key-oldest')).toBe(false)
    expect(state.get('key-again')).toEqual({ messageId: 'msg-5000', target: 'next-turn', text: 'later', clientTimeZone: 'UTC' })
    expect([...state.keys()].slice(-2)).toEqual(['key-again', 'key-newest'])
  })
})
