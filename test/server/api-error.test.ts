import { describe, expect, it } from 'vitest'
import { HostError, StoreError } from '../../src/host/index.ts'
import { ApiError, toApiError } from '../../src/server/api-error.ts'

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
})
