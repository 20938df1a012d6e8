import { getRequestListener, RequestError } from '@hono/node-server'
import { createServer, STATUS_CODES, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Duplex } from 'node:stream'
import type { Host } from '../host/host.ts'
import type { ApiErrorCode } from '../protocol/wire.ts'
import { createApp } from './app.ts'
import type { ScheduleService } from '../schedule/plugin.ts'
import { isLoopbackHost } from './security.ts'
import { staticOverlay } from './static.ts'

function errorJson(code: ApiErrorCode, message: string): string {
  return JSON.stringify({ error: { code, message } })
}

/** The SPEC 8 answer to a request Node's HTTP parser refused (the app never sees it). */
function parserRefusal(error: NodeJS.ErrnoException): { status: number; body: string } {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return { status: 431, body: errorJson('bad-request', 'request headers are too large') }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { status: 413, body: errorJson('payload-too-large', 'chunk extensions are too large') }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { status: 408, body: errorJson('bad-request', 'the request was not received in time') }
    default:
      return { status: 400, body: errorJson('bad-request', 'malformed HTTP request') }
  }
}

/**
 * Answers requests refused below the app (parser errors, a missing or unusable Host, a bad request
 * target) with the same JSON error body as the app, instead of Node's bare status lines.
 */
function createApiServer(fetch: (request: Request) => Response | Promise<Response>, bindHost: string): Server {
  const listener = getRequestListener(fetch, {
    hostname: bindHost,
    errorHandler: (error) =>
      error instanceof RequestError
        ? new Response(errorJson('bad-request', `malformed request: ${error.message}`), {
            status: 400,
            headers: { 'content-type': 'application/json' },
          })
        : new Response(errorJson('internal', 'internal error'), { status: 500, headers: { 'content-type': 'application/json' } }),
  })
  const server = createServer({ requireHostHeader: false }, (incoming, outgoing) => {
    if (incoming.httpVersion === '1.1' && incoming.headers.host === undefined) {
      const body = errorJson('bad-request', 'an HTTP/1.1 request needs a Host header')
      outgoing.writeHead(400, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), connection: 'close' })
      outgoing.end(body)
      return
    }
    void listener(incoming, outgoing)
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse | null })._httpMessage
    if (socket.writable && (!inFlight || !inFlight.headersSent)) {
      const { status, body } = parserRefusal(error)
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      )
    }
    socket.destroy()
  })
  return server
}

/** A listening server. */
export type RunningServer = { url: string; port: number; host: Host; close(): Promise<void> }

/** Listens on host:port with the app; refuses a non-loopback bind without a token (SPEC 12.3). */
export async function listen(options: {
  host: Host
  bindHost: string
  port: number
  token?: string
  publicHost?: string
  overlayRoot?: string
  schedules?: ScheduleService
}): Promise<RunningServer> {
  const bracketed = options.bindHost.includes(':') ? `[${options.bindHost}]` : options.bindHost
  if (!isLoopbackHost(bracketed) && !options.token) {
    throw new Error(`refusing to bind to ${options.bindHost} without a token (--token or SCHEDULE_WEB_TOKEN)`)
  }
  const app = createApp({
    host: options.host,
    ...(options.schedules ? { schedules: options.schedules } : {}),
    security: {
      ...(options.token ? { token: options.token } : {}),
      publicHost: options.publicHost ?? (isLoopbackHost(bracketed) ? undefined : options.bindHost),
    },
    ...(options.overlayRoot ? { staticHandler: staticOverlay(join(options.overlayRoot, 'dist/overlay')) } : {}),
  })
  const server = createApiServer(app.fetch, options.bindHost)
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
    close: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await options.host.close()
    },
  }
}
