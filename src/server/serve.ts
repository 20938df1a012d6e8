import { getRequestListener, RequestError } from '@hono/node-server'
import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type { Host } from '../host/index.ts'
import type { ApiErrorCode } from '../protocol/index.ts'
import { createApp } from './app.ts'
import { hostPolicy, isLoopbackBind, parseAuthority, type HostPolicy } from './authority.ts'
import { capConnections, connectionCap, descriptorLimit } from './connection-cap.ts'
import type { ScheduleService } from '../schedule/index.ts'
import { SECURITY_HEADERS } from './security-headers.ts'
import { staticOverlay } from './static.ts'
import { tokenWeakness } from './token.ts'

/** How long a client may take to send its request (SPEC 12.2). */
export type RequestTimeouts = { headersMs: number; bodyMs: number }

/** Headers within 10 s, the whole request within 30 s. */
export const DEFAULT_TIMEOUTS: RequestTimeouts = { headersMs: 10_000, bodyMs: 30_000 }

/** An answer written below the app, with the same JSON body and security headers as the app's. */
type RawAnswer = { status: number; headers: Record<string, string | number>; body: string }

function rawAnswer(status: number, code: ApiErrorCode, message: string): RawAnswer {
  const body = JSON.stringify({ error: { code, message } })
  return {
    status,
    headers: {
      ...SECURITY_HEADERS,
      'Cache-Control': 'no-store',
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    },
    body,
  }
}

/** The SPEC 8 answer to a request Node's HTTP parser refused (the app never sees it). */
function parserRefusal(error: NodeJS.ErrnoException): RawAnswer {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return rawAnswer(431, 'bad-request', 'request headers are too large')
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return rawAnswer(413, 'payload-too-large', 'chunk extensions are too large')
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return rawAnswer(408, 'request-timeout', 'the request was not received in time')
    default:
      return rawAnswer(400, 'bad-request', 'malformed HTTP request')
  }
}

function forbidden(authority: string): RawAnswer {
  return rawAnswer(403, 'forbidden', `host ${JSON.stringify(authority)} is not allowed`)
}

/**
 * Refusals the app cannot see: a missing Host on HTTP/1.1 (400), a Host that does not name this
 * server (403; a look-alike such as `127.256.0.1` would otherwise fail URL parsing), and an
 * absolute-form target whose scheme or authority differs from the Host (403).
 */
function targetRefusal(incoming: IncomingMessage, policy: HostPolicy): RawAnswer | null {
  const host = incoming.headers.host
  if (host === undefined) {
    return incoming.httpVersion === '1.1' ? rawAnswer(400, 'bad-request', 'an HTTP/1.1 request needs a Host header') : null
  }
  if (policy(host) === null) return forbidden(host)
  const target = incoming.url ?? ''
  if (target.startsWith('/') || target === '*') return null
  const match = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#]*)/.exec(target)
  if (match === null) return null
  const authority = match[2] ?? ''
  const named = parseAuthority(authority)
  const reached = parseAuthority(host)
  const same = named !== null && reached !== null && named.name === reached.name && named.port === reached.port
  return match[1]?.toLowerCase() === 'http' && same && policy(authority) !== null ? null : forbidden(authority)
}

function writeAnswer(outgoing: ServerResponse, answer: RawAnswer): void {
  outgoing.writeHead(answer.status, answer.headers)
  outgoing.end(answer.body)
}

function errorAnswer(answer: RawAnswer): Response {
  const headers = { ...answer.headers }
  delete headers.Connection
  delete headers['Content-Length']
  return new Response(answer.body, { status: answer.status, headers: headers as Record<string, string> })
}

/**
 * A Node HTTP server for the app: requests refused below the app (parser errors, Host and target
 * refusals, timeouts) get the same JSON error body and security headers as the app's answers.
 */
function createApiServer(
  fetch: (request: Request) => Response | Promise<Response>,
  options: { bindHost: string; policy: HostPolicy; timeouts: RequestTimeouts },
): Server {
  const listener = getRequestListener(fetch, {
    hostname: options.bindHost,
    errorHandler: (error) =>
      error instanceof RequestError
        ? errorAnswer(rawAnswer(400, 'bad-request', `malformed request: ${error.message}`))
        : errorAnswer(rawAnswer(500, 'internal', 'internal error')),
  })
  const { headersMs, bodyMs } = options.timeouts
  const answeredEarly = new WeakSet<Duplex>()
  const server = createServer(
    {
      requireHostHeader: false,
      headersTimeout: headersMs,
      requestTimeout: bodyMs,
      connectionsCheckingInterval: Math.max(10, Math.min(1_000, Math.floor(Math.min(headersMs, bodyMs) / 10))),
    },
    (incoming, outgoing) => {
      // answered before its body came: what the parser then refuses of that body (a timeout) gets no second answer
      outgoing.once('finish', () => {
        if (!incoming.complete) answeredEarly.add(incoming.socket)
      })
      incoming.once('end', () => answeredEarly.delete(incoming.socket))
      const refusal = targetRefusal(incoming, options.policy)
      if (refusal !== null) writeAnswer(outgoing, refusal)
      else void listener(incoming, outgoing)
    },
  )
  const refusing = new WeakSet<Duplex>()
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (refusing.has(socket)) return
    refusing.add(socket)
    const refuse = (): void => {
      if (socket.writable && !answeredEarly.has(socket)) {
        const { status, headers, body } = parserRefusal(error)
        const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`)
        socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head.join('')}\r\n${body}`)
      }
      socket.destroy()
    }
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
    if (!inFlight) return refuse()
    if (inFlight.headersSent) return void socket.destroy()
    // the bytes refused came after a whole request (a body longer than its Content-Length): that request is answered first
    if (inFlight.req.complete) return void inFlight.once('close', refuse)
    refuse()
  })
  return server
}

/** A listening server. */
export type RunningServer = { url: string; port: number; host: Host; server: Server; close(): Promise<void> }

/**
 * Throws the one-line reason a configuration must not start (SPEC 12.3): a weak token, a
 * non-loopback bind without a token, or a public host that is neither a name nor an origin.
 */
export function assertSafeToStart(options: { bindHost: string; token?: string; publicHost?: string }): void {
  const { bindHost, token } = options
  if (token !== undefined) {
    const weakness = tokenWeakness(token)
    if (weakness !== null) throw new Error(`refusing to start: ${weakness} (--token, --token-file or SCHEDULE_WEB_TOKEN)`)
  }
  if (!isLoopbackBind(bindHost) && token === undefined) {
    throw new Error(`refusing to bind to ${bindHost} without a token (--token, --token-file or SCHEDULE_WEB_TOKEN)`)
  }
  hostPolicy(options.publicHost)
}

/**
 * Listens on host:port with the app; refuses a weak token and a non-loopback bind without one
 * (SPEC 12.3); cuts slow clients (timeouts) and caps connections below the descriptor limit (SPEC 12.2).
 */
export async function listen(options: {
  host: Host
  bindHost: string
  port: number
  token?: string
  publicHost?: string
  overlayRoot?: string
  schedules?: ScheduleService
  timeouts?: RequestTimeouts
  /** Most open connections; derived from the descriptor limit when absent. */
  maxConnections?: number
}): Promise<RunningServer> {
  assertSafeToStart(options)
  const bracketed = options.bindHost.includes(':') ? `[${options.bindHost}]` : options.bindHost
  const publicHost = options.publicHost ?? (isLoopbackBind(options.bindHost) ? undefined : options.bindHost)
  const security = { ...(options.token === undefined ? {} : { token: options.token }), ...(publicHost === undefined ? {} : { publicHost }) }
  const app = createApp({
    host: options.host,
    ...(options.schedules ? { schedules: options.schedules } : {}),
    security,
    ...(options.overlayRoot ? { staticHandler: staticOverlay(join(options.overlayRoot, 'dist/overlay')) } : {}),
  })
  const server = createApiServer(app.fetch, {
    bindHost: options.bindHost,
    policy: hostPolicy(publicHost),
    timeouts: options.timeouts ?? DEFAULT_TIMEOUTS,
  })
  capConnections(server, options.maxConnections ?? connectionCap(descriptorLimit()))
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.bindHost, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://${bracketed}:${address.port}`,
    port: address.port,
    host: options.host,
    server,
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await options.host.close()
    },
  }
}
