import { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'
import { ApiError, errorResponse } from './api-error.ts'
import { SAFE_METHODS } from './security.ts'

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

/** Bodies the middleware read, by request. */
const bodies = new WeakMap<Request, Buffer>()
const decoder = new TextDecoder()

/** The body's bytes read straight from the Node request, or null once they exceed `maxSize`. */
function readIncoming(incoming: IncomingMessage, maxSize: number): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const done = (): void => {
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', onError)
      incoming.off('aborted', onAborted)
    }
    const onData = (chunk: Buffer): void => {
      size += chunk.length
      if (size > maxSize) {
        done()
        incoming.pause()
        resolve(null)
      } else chunks.push(chunk)
    }
    const onEnd = (): void => {
      done()
      resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
    }
    const onError = (error: Error): void => {
      done()
      reject(error)
    }
    const onAborted = (): void => onError(new Error('the request body was cut off'))
    incoming.on('data', onData)
    incoming.once('end', onEnd)
    incoming.once('error', onError)
    incoming.once('aborted', onAborted)
  })
}

/**
 * Reads every state-changing request's body, at most `maxSize` bytes (a larger one answers
 * `onTooLarge`, before any route runs): on the Node server straight from its request — no web
 * stream per request — and elsewhere through Hono's body limit. Routes read it with `bodyText`.
 */
export function boundedBody(maxSize: number, onTooLarge: (c: Context) => Response): MiddlewareHandler {
  const fallback = bodyLimit({ maxSize, onError: onTooLarge })
  return async (c, next) => {
    const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming
    if (!(incoming instanceof IncomingMessage)) return fallback(c, next)
    if (SAFE_METHODS.has(c.req.method)) return next()
    const declared = incoming.headers['content-length']
    if (declared !== undefined && incoming.headers['transfer-encoding'] === undefined && Number.parseInt(declared, 10) > maxSize) return onTooLarge(c)
    let body: Buffer | null
    try {
      body = await readIncoming(incoming, maxSize)
    } catch {
      throw new ApiError('bad-request', 'the request body was not received whole')
    }
    if (body === null) return onTooLarge(c)
    bodies.set(c.req.raw, body)
    return next()
  }
}

/** The request body as text (UTF-8, a leading BOM dropped, as `Request.text()` decodes it). */
export async function bodyText(c: Context): Promise<string> {
  const body = bodies.get(c.req.raw)
  return body === undefined ? c.req.text() : decoder.decode(body)
}

/** Arrays and objects a request body may nest: every body the API takes is a flat object; deeper ones are refused before they are parsed. */
export const MAX_JSON_DEPTH = 32

/** How deep a JSON text nests arrays and objects (brackets inside strings are not counted); stops counting past `limit`. */
export function jsonDepth(text: string, limit: number): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (inString) {
      if (code === 0x5c) i++
      else if (code === 0x22) inString = false
    } else if (code === 0x22) inString = true
    else if (code === 0x5b || code === 0x7b) {
      depth++
      if (depth > deepest && (deepest = depth) > limit) return deepest
    } else if (code === 0x5d || code === 0x7d) depth--
  }
  return deepest
}
