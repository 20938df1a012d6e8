import { isIPv6 } from 'node:net'
import { memoized } from '../protocol/index.ts'

/** A request authority (`host[:port]`): the lower-cased name (IPv6 bracketed) and the port if one was given. */
export type Authority = { name: string; port: number | null }

/** How a request reached the server when its authority is allowed: the origin a same-origin page of it has. */
export type Site = { ownOrigin: string }

/** Decides whether an authority names this server (SPEC 12.3) and, if so, which origin it is. */
export type HostPolicy = (authority: string) => Site | null

const AUTHORITY_CHARS = /^[A-Za-z0-9.:[\]-]+$/
const PORT = /^[1-9]\d{0,4}$/
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/
const LOOPBACK_V4 = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/

/** A bracketed IPv6 literal in the canonical (compressed, lower-case) spelling browsers send, else null. */
function ipv6Name(literal: string): string | null {
  if (!isIPv6(literal)) return null
  try {
    const name = new URL(`http://[${literal}]/`).hostname
    return name === `[${literal}]` ? name : null
  } catch {
    return null
  }
}

/**
 * Splits `host[:port]` strictly: only letters, digits, dots, hyphens, a bracketed IPv6 literal in
 * canonical spelling (no zone) and a port 1–65535 without leading zeros. Userinfo, paths, escapes,
 * spaces, empty ports, bare and non-canonical IPv6 are refused (null).
 */
export function parseAuthority(value: string): Authority | null {
  if (!AUTHORITY_CHARS.test(value)) return null
  let name: string
  let rest: string
  if (value.startsWith('[')) {
    const end = value.indexOf(']')
    if (end === -1) return null
    const literal = ipv6Name(value.slice(1, end))
    if (literal === null) return null
    name = literal
    rest = value.slice(end + 1)
  } else {
    const colon = value.indexOf(':')
    name = (colon === -1 ? value : value.slice(0, colon)).toLowerCase()
    rest = colon === -1 ? '' : value.slice(colon)
    if (name.includes('[') || name.includes(']')) return null
  }
  if (rest === '') return { name, port: null }
  if (!rest.startsWith(':') || !PORT.test(rest.slice(1))) return null
  const port = Number(rest.slice(1))
  return port <= 65535 ? { name, port } : null
}

function isDnsName(name: string): boolean {
  return name.length <= 253 && name.split('.').every((label) => LABEL.test(label))
}

function isLoopbackV4(name: string): boolean {
  const match = LOOPBACK_V4.exec(name)
  if (match === null) return false
  return match.slice(1).every((octet) => (octet === '0' || !octet.startsWith('0')) && Number(octet) <= 255)
}

/** True iff a parsed name is a loopback name or address: `localhost`, `*.localhost`, `127.0.0.0/8` in dotted decimal, `[::1]`. */
export function isLoopbackName(name: string): boolean {
  if (name === '[::1]') return true
  if (name === 'localhost' || name.endsWith('.localhost')) return isDnsName(name)
  return isLoopbackV4(name)
}

/** True iff a bind address (as given to `--host`, IPv6 unbracketed) is a loopback address or name. */
export function isLoopbackBind(bindHost: string): boolean {
  const authority = parseAuthority(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost)
  return authority !== null && authority.port === null && isLoopbackName(authority.name)
}

function originOf(scheme: 'http:' | 'https:', authority: Authority): string {
  const defaultPort = scheme === 'http:' ? 80 : 443
  return `${scheme}//${authority.name}${authority.port === null || authority.port === defaultPort ? '' : `:${authority.port}`}`
}

/**
 * An `Origin` header as the origin it names (`http(s)://host[:port]`, the default port dropped, the
 * name lower-cased), so that `https://x:443` is `https://x`; null for anything else (`null`, paths,
 * other schemes, a bad authority), which is never the own origin.
 */
export function normalOrigin(value: string): string | null {
  const match = /^(https?):\/\/(.*)$/.exec(value)
  const authority = match === null ? null : parseAuthority(match[2] as string)
  return match === null || authority === null ? null : originOf(`${match[1] as 'http' | 'https'}:`, authority)
}

/** A configured public host: a name (`schedule.example.com`, reached over http) or an origin (`https://schedule.example.com`, behind a TLS proxy). */
type PublicHost = { name: string; scheme: 'http:' | 'https:'; origin?: string }

function parsePublicHost(value: string): PublicHost {
  const schemeEnd = value.indexOf('://')
  if (schemeEnd === -1) {
    const authority = parseAuthority(value.includes(':') && !value.startsWith('[') ? `[${value}]` : value)
    if (authority === null || authority.port !== null) throw new Error(`--public-host ${JSON.stringify(value)} is not a host name or address`)
    return { name: authority.name, scheme: 'http:' }
  }
  const scheme = value.slice(0, schemeEnd + 1).toLowerCase()
  const authority = parseAuthority(value.slice(schemeEnd + 3).replace(/\/$/, ''))
  if ((scheme !== 'http:' && scheme !== 'https:') || authority === null) {
    throw new Error(`--public-host ${JSON.stringify(value)} is not a host name or an http(s) origin`)
  }
  return { name: authority.name, scheme, origin: originOf(scheme, authority) }
}

/**
 * The Host rule of SPEC 12.3: a loopback name or address, or the configured public host; anything
 * else — foreign names, look-alike addresses (`127.256.0.1`), trailing dots, userinfo, bad ports —
 * is refused. The own origin is `http://` plus the authority as reached, or the configured origin.
 */
export function hostPolicy(publicHost?: string): HostPolicy {
  const configured = publicHost === undefined ? null : parsePublicHost(publicHost)
  const judge = (value: string): ReturnType<HostPolicy> => {
    const authority = parseAuthority(value)
    if (authority === null) return null
    if (configured !== null && authority.name === configured.name) {
      return { ownOrigin: configured.origin ?? originOf(configured.scheme, authority) }
    }
    return isLoopbackName(authority.name) ? { ownOrigin: originOf('http:', authority) } : null
  }
  // every request is judged by its Host (twice: below the app and in it), and a server is reached by a few names
  return memoized(judge, 64)
}
