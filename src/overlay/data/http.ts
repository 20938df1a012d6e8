import { accessToken, reportUnauthorized } from './auth.ts'

/** An API failure: the server's `{error:{code,message,details?}}`, or a network/format failure. */
export class ApiError extends Error {
  override readonly name = 'ApiError'
  /** HTTP status, or 0 when no response arrived. */
  readonly status: number
  /** The server's error code, or `network` / `bad-response`. */
  readonly code: string
  /** The server's error details, when it sent any. */
  readonly details: Record<string, unknown> | undefined

  constructor(status: number, code: string, message: string, details?: Record<string, unknown>) {
    super(message)
    this.status = status
    this.code = code
    this.details = details
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function errorFromBody(status: number, body: unknown): ApiError {
  if (isRecord(body) && isRecord(body.error)) {
    const { code, message, details } = body.error
    return new ApiError(
      status,
      typeof code === 'string' ? code : 'unknown',
      typeof message === 'string' ? message : `Request failed (${status})`,
      isRecord(details) ? details : undefined,
    )
  }
  return new ApiError(status, 'bad-response', `Request failed (${status})`)
}

/** Calls the API and returns its JSON body; non-2xx answers throw an ApiError. */
export async function apiRequest<T>(
  path: string,
  init: { method?: string; body?: unknown; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...init.headers, accept: 'application/json' }
  if (init.body !== undefined) headers['content-type'] = 'application/json'
  const token = accessToken()
  if (token !== null) headers.authorization = `Bearer ${token}`
  let response: Response
  try {
    response = await fetch(path, {
      method: init.method ?? 'GET',
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: init.signal,
    })
  } catch (error) {
    if (init.signal?.aborted === true) throw error
    throw new ApiError(0, 'network', 'Cannot reach the server.')
  }
  let body: unknown = undefined
  const text = await response.text()
  if (text.length > 0) {
    try {
      body = JSON.parse(text)
    } catch {
      throw new ApiError(response.status, 'bad-response', `The server sent an unreadable answer (${response.status}).`)
    }
  }
  if (response.status === 401) reportUnauthorized()
  if (!response.ok) throw errorFromBody(response.status, body)
  return body as T
}

/**
 * A new idempotency key (128 random bits, hex): a request sent again under the same key is done once by the server.
 * Made with getRandomValues, which a page served over plain HTTP on a local network has too (randomUUID needs HTTPS).
 */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (byte) => byte.toString(16).padStart(2, '0')).join('')
}

/** Whether a request went unanswered (the connection failed): the server may have done it, and a keyed repeat does it once. */
export function answerLost(error: unknown): boolean {
  return error instanceof ApiError && error.status === 0
}

/** What a failed Snooze says: with no answer it may have been snoozed (snoozing again snoozes once), else why not. */
export function snoozeFailure(error: unknown): string {
  if (answerLost(error)) return `Not confirmed: ${errorMessage(error)} Snooze it again; it will be snoozed once.`
  return `Could not snooze: ${errorMessage(error)}`
}

/** The text a person sees for any error. */
export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message
  if (error instanceof Error) return error.message
  return 'Something went wrong.'
}

/** The path of a Session's API resource. */
export function sessionApiPath(id: string, suffix = ''): string {
  return `/api/sessions/${encodeURIComponent(id)}${suffix}`
}
