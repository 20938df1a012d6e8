import type { Context, MiddlewareHandler } from 'hono'
import { ApiError, errorResponse } from './api-error.ts'
import { hostPolicy, normalOrigin } from './authority.ts'
import { requireToken } from './token.ts'

/** What the server accepts as its own name (a host name, or an origin behind a TLS proxy), and the bearer token when one is required. */
export type SecurityOptions = { publicHost?: string; token?: string }

/** Methods that change nothing: no same-origin or body checks apply to them. */
export const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS'])
const SAME_SITE_VALUES = new Set(['same-origin', 'none'])

/** The authority a request was made to: its Host header, else the host of its URL (read without a URL parser, which can throw). */
function requestAuthority(c: Context): string {
  const header = c.req.header('host')
  if (header !== undefined) return header
  const match = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/([^/?#]*)/.exec(c.req.url)
  return match?.[1] ?? ''
}

/** The 403 answer to an authority that does not name this server. */
function forbiddenHost(authority: string): ApiError {
  return new ApiError('forbidden', `host ${JSON.stringify(authority)} is not allowed`)
}

/**
 * SPEC 12.3: the Host must name this server (DNS rebinding); a write must come from the server's
 * own origin exactly (scheme, host and port as reached, or the configured public origin; a default
 * port spelled out is the same origin) when it carries an `Origin`; a
 * `Sec-Fetch-Site` other than `same-origin` or `none` is refused on writes and on every `/api`
 * request; then the bearer token when one is configured. Clients that send neither header (curl,
 * scripts) pass on to the routes.
 *
 * Hono's `csrf` middleware checks only form-like content types and refuses requests that carry
 * neither header, so it cannot express this rule.
 */
export function security(options: SecurityOptions): MiddlewareHandler {
  const policy = hostPolicy(options.publicHost)
  const token = options.token === undefined ? null : requireToken(options.token)
  return async (c, next) => {
    const authority = requestAuthority(c)
    const site = policy(authority)
    if (site === null) return errorResponse(c, forbiddenHost(authority))
    const writes = !SAFE_METHODS.has(c.req.method)
    const fetchSite = c.req.header('sec-fetch-site')
    const api = c.req.path === '/api' || c.req.path.startsWith('/api/')
    if (fetchSite !== undefined && !SAME_SITE_VALUES.has(fetchSite) && (writes || api)) {
      return errorResponse(c, new ApiError('forbidden', `Sec-Fetch-Site ${JSON.stringify(fetchSite)} is not allowed`))
    }
    const origin = c.req.header('origin')
    if (writes && origin !== undefined && normalOrigin(origin) !== site.ownOrigin) {
      return errorResponse(c, new ApiError('forbidden', `origin ${JSON.stringify(origin)} is not allowed`))
    }
    if (token !== null) return token(c, next)
    await next()
  }
}
