import { appendFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'
import { HostError, StoreError } from '../../src/host/index.ts'
import { ApiError, toApiError } from '../../src/server/api-error.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, call, makeApp } from './app-harness.ts'

describe('toApiError (SPEC 8)', () => {
  it('answers a bug with 500 internal and a message that tells nothing of the server', () => {
    const bug = toApiError(new RangeError('Maximum call stack size exceeded at /srv/app/src/server/app.ts:133'))
    expect({ status: bug.status, code: bug.code, message: bug.message, details: bug.details }).toEqual({
      status: 500,
      code: 'internal',
      message: 'the server failed to answer this request; its log says why',
      details: undefined,
    })
  })

  it('keeps the codes and messages of the errors it knows', () => {
    const known = [
      toApiError(new ApiError('bad-request', 'text must not be empty')),
      toApiError(new StoreError('unavailable', 'storage for session s is unavailable; retry later', { retryAfterMs: 2500 })),
      toApiError(new HostError('session-not-found', 'session s does not exist', { sessionId: 's' })),
    ].map((e) => ({ status: e.status, code: e.code, message: e.message, details: e.details }))
    expect(known).toEqual([
      { status: 400, code: 'bad-request', message: 'text must not be empty', details: undefined },
      { status: 503, code: 'storage-unavailable', message: 'storage for session s is unavailable; retry later', details: { retryAfterSeconds: 3 } },
      { status: 404, code: 'session-not-found', message: 'session s does not exist', details: { sessionId: 's' } },
    ])
  })

  it('answers storage failures and corrupt sessions without the file paths the store names (its log keeps them)', () => {
    const errno = Object.assign(new Error("EACCES: permission denied, open '/var/lib/schedule web/sessions/abc.jsonl'"), { code: 'EACCES' })
    const answers = [
      toApiError(new StoreError('unavailable', `storage for session abc is unavailable: ${errno.message}`, undefined, { cause: errno })),
      toApiError(new StoreError('unavailable', "the sessions folder cannot be read: EIO: i/o error, rename '/srv/data/sessions/a.jsonl.1.tmp' -> '/srv/data/sessions/a.jsonl'")),
      toApiError(new StoreError('unavailable', "storage for session abc is unavailable: session file '/srv/data/sessions/abc.jsonl' was replaced")),
      toApiError(new StoreError('corrupt', "session file '/srv/data/sessions/abc.jsonl' is corrupt at seq 2: line is not valid JSON", { seq: 2, reason: 'line is not valid JSON' })),
      // a path holding quotes goes whole (on the code before, `s/sessions/a.jsonl'` and the like were left)
      toApiError(new StoreError('unavailable', "the sessions folder cannot be read: EIO: i/o error, rename '/srv/it's 'here'/sessions/a.jsonl.1.tmp' -> '/srv/it's 'here'/sessions/a.jsonl'")),
      toApiError(new StoreError('unavailable', "storage for session abc is unavailable: session file '/home/o'brien/.data/sessions/abc.jsonl' was replaced")),
    ].map((e) => ({ status: e.status, code: e.code, message: e.message, details: e.details }))
    expect(answers).toEqual([
      { status: 503, code: 'storage-unavailable', message: 'storage for session abc is unavailable: EACCES: permission denied, open', details: { retryAfterSeconds: 1 } },
      { status: 503, code: 'storage-unavailable', message: 'the sessions folder cannot be read: EIO: i/o error, rename', details: { retryAfterSeconds: 1 } },
      { status: 503, code: 'storage-unavailable', message: 'storage for session abc is unavailable: session file was replaced', details: { retryAfterSeconds: 1 } },
      {
        status: 409,
        code: 'session-corrupt',
        message: 'session cannot be opened: session file is corrupt at seq 2: line is not valid JSON',
        details: { seq: 2, reason: 'line is not valid JSON' },
      },
      { status: 503, code: 'storage-unavailable', message: 'the sessions folder cannot be read: EIO: i/o error, rename', details: { retryAfterSeconds: 1 } },
      { status: 503, code: 'storage-unavailable', message: 'storage for session abc is unavailable: session file was replaced', details: { retryAfterSeconds: 1 } },
    ])
  })

  it('answers a corrupt session without its path when the data directory was given relative (the default ./.data)', async () => {
    const dataDir = relative(process.cwd(), await tempDir())
    const first = await makeApp(dataDir)
    expect((await call(first.app, 'POST', '/api/sessions', { sessionId: 'abc', timeZone: 'UTC' })).status).toBe(201)
    await first.host.close()
    await appendFile(join(dataDir, 'sessions', 'abc.jsonl'), '{"broken\n')
    const { app, host } = await makeApp(dataDir)
    // on the code before, the message named '../../tmp/…/sessions/abc.jsonl': the filter of quoted paths takes absolute ones only
    expect(await call(app, 'GET', '/api/sessions/abc/events')).toEqual({
      status: 409,
      body: apiError('session-corrupt', 'session cannot be opened: session file is corrupt at seq 0: line is not valid JSON', { seq: 0, reason: 'line is not valid JSON' }),
    })
    await host.close()
  })
})
