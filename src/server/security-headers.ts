import type { MiddlewareHandler } from 'hono'
import { secureHeaders } from 'hono/secure-headers'

/** The Content-Security-Policy directives (SPEC 12.3), named as Hono's `secureHeaders` names them. */
const CSP_DIRECTIVES = {
  defaultSrc: ["'self'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", 'data:'],
  connectSrc: ["'self'"],
  frameAncestors: ["'none'"],
  baseUri: ["'none'"],
  formAction: ["'self'"],
}

/** The Content-Security-Policy of every response, as the header spells the directives (SPEC 12.3). */
export const CONTENT_SECURITY_POLICY = Object.entries(CSP_DIRECTIVES)
  .map(([name, sources]) => `${name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`)} ${sources.join(' ')}`)
  .join('; ')

/** The headers every response carries, including answers written below the app (parser refusals, Host refusals, timeouts). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Referrer-Policy': 'no-referrer',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
}

/** Hono's `secureHeaders`, set to exactly `SECURITY_HEADERS` (no HSTS: the server speaks plain HTTP and cannot know a proxy's TLS). */
export function securityHeaders(): MiddlewareHandler {
  const header = (name: string): string => SECURITY_HEADERS[name] as string
  return secureHeaders({
    contentSecurityPolicy: CSP_DIRECTIVES,
    crossOriginOpenerPolicy: header('Cross-Origin-Opener-Policy'),
    crossOriginResourcePolicy: header('Cross-Origin-Resource-Policy'),
    referrerPolicy: header('Referrer-Policy'),
    xContentTypeOptions: header('X-Content-Type-Options'),
    xFrameOptions: header('X-Frame-Options'),
    strictTransportSecurity: false,
    originAgentCluster: false,
    xDnsPrefetchControl: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xXssProtection: false,
  })
}

/** `Cache-Control: no-store` on every API answer, streams and errors included (SPEC 12.3). */
export function noStore(): MiddlewareHandler {
  return async (c, next) => {
    await next()
    c.res.headers.set('Cache-Control', 'no-store')
  }
}
