import { createHash, timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Context, MiddlewareHandler } from 'hono'
import { bearerAuth } from 'hono/bearer-auth'
import type { ApiErrorBody } from '../protocol/index.ts'

/** Fewest characters a token may have (SPEC 12.3). */
const MIN_TOKEN_LENGTH = 16

const TOKEN68 = /^[A-Za-z0-9._~+/-]+=*$/

/** Why a token is too weak to start with (one line), or null when it is acceptable: at least 16 characters, none of them spaces, sendable as a bearer token. */
export function tokenWeakness(token: string): string | null {
  if (/\s/.test(token)) return 'the token must not contain spaces'
  if (token.length < MIN_TOKEN_LENGTH) return `the token must have at least ${MIN_TOKEN_LENGTH} characters (it has ${token.length})`
  if (!TOKEN68.test(token)) return 'the token may only contain letters, digits and - . _ ~ + / (then = padding)'
  return null
}

/** The token in a `--token-file`: its text less one trailing newline (as `echo` and editors leave it); anything else in it is the token, and judged as one. */
export async function readTokenFile(path: string): Promise<string> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new Error(`refusing to start: --token-file ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  return text.replace(/\r?\n$/, '')
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

/** Compares a presented token with the expected one in time independent of where they differ (equal-length SHA-256 digests). */
export function tokenMatches(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected))
}

/** Paths where the token may also come as `?access_token=` (EventSource cannot send headers). */
const STREAM_PATH = /^\/api\/(?:stream|sessions\/[^/]+\/stream)$/

const UNAUTHORIZED: ApiErrorBody = { error: { code: 'unauthorized', message: 'a valid bearer token is required' } }

function unauthorized(c: Context): Response {
  return c.json(UNAUTHORIZED, 401)
}

/**
 * Requires the bearer token on `/api` (except health) through Hono's `bearerAuth`, compared in
 * constant time; `?access_token=` counts only on the two stream routes and only without an
 * Authorization header. Every refusal is `401 unauthorized` with a `WWW-Authenticate` challenge.
 */
export function requireToken(token: string): MiddlewareHandler {
  const header = bearerAuth({
    verifyToken: (presented) => tokenMatches(presented, token),
    noAuthenticationHeader: { message: unauthorized },
    invalidAuthenticationHeader: { message: unauthorized },
    invalidToken: { message: unauthorized },
  })
  return async (c, next) => {
    const path = c.req.path
    if (!path.startsWith('/api/') || path === '/api/health') return next()
    const query = STREAM_PATH.test(path) && c.req.header('authorization') === undefined ? c.req.query('access_token') : undefined
    if (query === undefined) return header(c, next)
    if (!tokenMatches(query, token)) {
      c.header('WWW-Authenticate', 'Bearer error="invalid_token"')
      return unauthorized(c)
    }
    return next()
  }
}
