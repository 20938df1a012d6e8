import type { MiddlewareHandler } from 'hono'
import { ApiError, errorResponse } from './api-error.ts'

/** What the server accepts as its own name, and the bearer token when one is required. */
export type SecurityOptions = { publicHost?: string; token?: string }

const LOOPBACK_NAMES = new Set(['localhost', '[::1]', '::1'])

/** True iff a host name (without port) is a loopback name or address. */
export function isLoopbackHost(name: string): boolean {
  const host = name.toLowerCase()
  if (LOOPBACK_NAMES.has(host) || host.endsWith('.localhost')) return true
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

function hostName(hostHeader: string): string {
  const value = hostHeader.trim().toLowerCase()
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    return end === -1 ? value : value.slice(0, end + 1)
  }
  const colon = value.lastIndexOf(':')
  return colon === -1 ? value : value.slice(0, colon)
}

function allowedHost(name: string, options: SecurityOptions): boolean {
  return isLoopbackHost(name) || (options.publicHost !== undefined && name === options.publicHost.toLowerCase())
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** DNS-rebinding and cross-origin guard plus the optional bearer token (SPEC 12.3). */
export function security(options: SecurityOptions): MiddlewareHandler {
  return async (c, next) => {
    const hostHeader = c.req.header('host') ?? new URL(c.req.url).host
    if (!allowedHost(hostName(hostHeader), options)) {
      return errorResponse(c, new ApiError(403, 'forbidden', `host ${JSON.stringify(hostHeader)} is not allowed`))
    }
    const origin = c.req.header('origin')
    if (origin !== undefined && !SAFE_METHODS.has(c.req.method)) {
      let ok = false
      try {
        const url = new URL(origin)
        ok = (url.protocol === 'http:' || url.protocol === 'https:') && allowedHost(hostName(url.host), options)
      } catch {
        ok = false
      }
      if (!ok) return errorResponse(c, new ApiError(403, 'forbidden', `origin ${JSON.stringify(origin)} is not allowed`))
    }
    if (options.token !== undefined && c.req.path.startsWith('/api/') && c.req.path !== '/api/health') {
      const header = c.req.header('authorization')
      const query = c.req.query('access_token')
      const given = header?.startsWith('Bearer ') ? header.slice(7) : query
      if (given !== options.token) {
        return errorResponse(c, new ApiError(401, 'unauthorized', 'a valid bearer token is required'))
      }
    }
    await next()
  }
}
