import { SseParser, type SseMessage } from '../lib/sse-parser.ts'
import { accessToken, reportUnauthorized } from './auth.ts'

/** What a stream tells its owner. */
export type SseHandlers = {
  /** The stream is open (HTTP 200 `text/event-stream`). */
  onOpen(): void
  onMessage(message: SseMessage): void
  /** Whether the server answered at all: false when the network request failed or the connection dropped. */
  onReachable(reachable: boolean): void
  /** The server answered the stream request with an error status. */
  onHttpError?(status: number): void
}

/** Options of one stream: the URL is read at every (re)connect; `resumeWithLastEventId` sends `Last-Event-ID` on reconnects. */
export type SseOptions = { url: () => string; resumeWithLastEventId: boolean; lastEventId?: string | null }

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 4_000
const NOT_FOUND_RETRY_MS = 30_000
const STALL_MS = 45_000

/** Keeps one server-sent-event stream open over fetch (headers, bearer token, Last-Event-ID), reconnecting with capped backoff; answers a closer. */
export function openSse(options: SseOptions, handlers: SseHandlers): () => void {
  const parser = new SseParser()
  parser.lastEventId = options.lastEventId ?? null
  let closed = false
  let controller: AbortController | null = null
  let retryTimer: ReturnType<typeof setTimeout> | undefined
  let attempt = 0

  const retry = (delay: number) => {
    if (closed) return
    clearTimeout(retryTimer)
    retryTimer = setTimeout(connect, delay)
  }
  const backoff = () => Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 2 ** attempt++) * (0.75 + Math.random() * 0.5)
  const onOnline = () => {
    if (controller === null) retry(0)
  }

  async function connect(): Promise<void> {
    if (closed) return
    const abort = new AbortController()
    controller = abort
    let stall: ReturnType<typeof setTimeout> | undefined
    const armStall = () => {
      clearTimeout(stall)
      stall = setTimeout(() => abort.abort(), STALL_MS)
    }
    const headers: Record<string, string> = { accept: 'text/event-stream' }
    const token = accessToken()
    if (token !== null) headers.authorization = `Bearer ${token}`
    if (options.resumeWithLastEventId && parser.lastEventId !== null) headers['last-event-id'] = parser.lastEventId
    let response: Response
    try {
      response = await fetch(options.url(), { headers, cache: 'no-store', signal: abort.signal })
    } catch {
      controller = null
      if (closed) return
      handlers.onReachable(false)
      retry(backoff())
      return
    }
    if (closed) return
    handlers.onReachable(true)
    if (!response.ok || response.body === null) {
      controller = null
      void response.body?.cancel()
      if (response.status === 401) reportUnauthorized()
      handlers.onHttpError?.(response.status)
      retry(response.status === 404 || response.status === 401 ? NOT_FOUND_RETRY_MS : backoff())
      return
    }
    attempt = 0
    handlers.onOpen()
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    armStall()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done || closed) break
        armStall()
        for (const message of parser.push(value)) handlers.onMessage(message)
      }
    } catch {
      // the connection dropped: reconnect below
    } finally {
      clearTimeout(stall)
      controller = null
    }
    if (closed) return
    handlers.onReachable(false)
    retry(FIRST_RETRY_MS)
  }

  window.addEventListener('online', onOnline)
  void connect()
  return () => {
    closed = true
    clearTimeout(retryTimer)
    controller?.abort()
    window.removeEventListener('online', onOnline)
  }
}
