import type { Context } from 'hono'
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ApiErrorCode } from '../protocol/index.ts'
import { HostError, isStoreError, ReplicaError } from '../host/index.ts'
import { isScheduleError, type ScheduleError } from '../schedule/index.ts'

/**
 * The one table of HTTP statuses (SPEC 8): every error code always answers the same status. Schedule
 * domain codes (SPEC 7.1) answer 422, but a reminder that is not there is 404, a Schedule history
 * that cannot be read is the session's corruption, and an unknown outcome of a write is storage's.
 */
export const API_ERROR_STATUS: Readonly<Record<ApiErrorCode, ContentfulStatusCode>> = {
  'bad-request': 400,
  'invalid-time-zone': 400,
  unauthorized: 401,
  forbidden: 403,
  'session-not-found': 404,
  'not-found': 404,
  schedule_not_found: 404,
  'request-timeout': 408,
  'session-conflict': 409,
  'session-corrupt': 409,
  'session-busy': 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'idempotency-key-reused': 422,
  invalid_prompt: 422,
  invalid_selector: 422,
  invalid_rule: 422,
  invalid_time_zone: 422,
  timezone_confirmation_required: 422,
  not_future: 422,
  time_out_of_range: 422,
  frequency_too_high: 422,
  corrupt_schedule_log: 409,
  persistence_uncertain: 503,
  internal_error: 500,
  internal: 500,
  'storage-unavailable': 503,
}

/** An error the API answers with `{ error: { code, message, details? } }` and the status of its code. */
export class ApiError extends Error {
  readonly status: ContentfulStatusCode

  constructor(
    readonly code: ApiErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message)
    this.name = 'ApiError'
    this.status = API_ERROR_STATUS[code]
  }
}

/** Renders an API error response. */
export function errorResponse(c: Context, error: ApiError): Response {
  return c.json(
    { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } },
    error.status,
  )
}

/** What may follow the quote that ends a quoted path: the message's end, a space or punctuation. */
const AFTER_PATH = /[\s,.:;)]/

/** The quote that ends a path quoted from `from` on, or -1. */
function pathEnd(text: string, from: number): number {
  for (let quote = text.indexOf("'", from); quote >= 0; quote = text.indexOf("'", quote + 1)) {
    if (quote + 1 === text.length || AFTER_PATH.test(text[quote + 1])) return quote
  }
  return -1
}

/**
 * A store's message as a client may read it: without the file paths it names (the layout of the data directory),
 * which the server's log keeps. `EIO: i/o error, write '/x'` says `EIO: i/o error, write`; `'/a' -> '/b'` goes
 * whole. A path may hold quotes (`/srv/it's/`): it ends at the first quote that ends the message or comes before a
 * space or punctuation. One pass, whatever the message holds.
 */
export function withoutPaths(message: string): string {
  let out = ''
  let from = 0
  for (;;) {
    const open = message.indexOf("'/", from)
    if (open < 0) break
    const close = pathEnd(message, open + 2)
    // no quote ends it, nor any path quoted after it
    if (close < 0) break
    let cut = open
    if (message.startsWith('-> ', cut - 3)) cut -= 3
    if (message[cut - 1] === ' ') cut -= 1
    out += message.slice(from, cut)
    from = close + 1
  }
  return out + message.slice(from)
}

function retryAfterSeconds(ms: unknown): number {
  return Math.max(1, Math.ceil((typeof ms === 'number' ? ms : 1000) / 1000))
}

/** The API error of a Schedule domain error (SPEC 8: its own code; a corrupt history is the session's corruption). */
export function scheduleApiError(error: Pick<ScheduleError, 'code' | 'message' | 'details'>): ApiError {
  const details = { ...error.details } as Record<string, unknown>
  if (error.code === 'corrupt_schedule_log') return new ApiError('session-corrupt', error.message, { seq: details.seq ?? -1, reason: error.message })
  if (error.code === 'persistence_uncertain') return new ApiError('storage-unavailable', error.message, { ...details, retryAfterSeconds: 1 })
  return new ApiError(error.code, error.message, details)
}

/** The API error of anything a route threw: store, host and Schedule errors by their codes; anything else is a bug (500). */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error
  if (isStoreError(error)) {
    const message = withoutPaths(error.message)
    switch (error.code) {
      case 'unavailable':
        return new ApiError('storage-unavailable', message, { retryAfterSeconds: retryAfterSeconds(error.details?.retryAfterMs) })
      case 'corrupt':
        return new ApiError('session-corrupt', `session cannot be opened: ${message}`, {
          seq: error.details?.seq ?? -1,
          reason: typeof error.details?.reason === 'string' ? withoutPaths(error.details.reason) : message,
        })
      case 'not-found':
        return new ApiError('session-not-found', message)
      case 'conflict':
        return new ApiError('session-conflict', message, error.details)
      default: {
        const never: never = error.code
        return new ApiError('internal', String(never))
      }
    }
  }
  if (error instanceof HostError) {
    if (error.code === 'session-elsewhere') return new ApiError('storage-unavailable', error.message, { retryAfterSeconds: 1 })
    return new ApiError(error.code, error.message, error.details)
  }
  if (error instanceof ReplicaError && error.name === 'ScheduleError' && error.code !== undefined) {
    return scheduleApiError({ code: error.code as ScheduleError['code'], message: error.message, details: error.details ?? {} })
  }
  if (isScheduleError(error)) return scheduleApiError(error)
  if ((error as NodeJS.ErrnoException | null)?.code === 'ECONNRESET') {
    return new ApiError('bad-request', 'the request body was cut off before it ended')
  }
  // a bug: its message and stack go to the server's log, never to the client (they can name files and internals)
  return new ApiError('internal', 'the server failed to answer this request; its log says why')
}
