import type { Context, MiddlewareHandler } from 'hono'
import { ApiError, errorResponse } from './api-error.ts'

/** True iff a Content-Type value is `application/json` (any case, parameters allowed). */
export function isJsonMediaType(value: string | undefined): boolean {
  return value !== undefined && value.split(';', 1)[0]?.trim().toLowerCase() === 'application/json'
}

/** The 415 answer to a body that is not declared as JSON (SPEC 8, 12.3). */
function unsupportedMediaType(contentType: string | undefined): ApiError {
  return new ApiError(
    'unsupported-media-type',
    contentType === undefined
      ? 'request body must be sent with Content-Type: application/json'
      : `request body must be sent with Content-Type: application/json, not ${JSON.stringify(contentType)}`,
  )
}

/** Throws 415 unless the request declares a JSON body; routes call it before reading one. */
export function requireJsonBody(c: Context): void {
  const type = c.req.header('content-type')
  if (!isJsonMediaType(type)) throw unsupportedMediaType(type)
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Refuses (415), before anything is read, a state-changing request whose Content-Type is anything
 * but JSON: the form and text/plain bodies another page can send without a CORS preflight.
 */
export function jsonBodiesOnly(): MiddlewareHandler {
  return async (c, next) => {
    const type = c.req.header('content-type')
    if (type !== undefined && !SAFE_METHODS.has(c.req.method) && !isJsonMediaType(type)) {
      return errorResponse(c, unsupportedMediaType(type))
    }
    await next()
  }
}
