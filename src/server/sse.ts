import { ServerResponse } from 'node:http'
import type { Context } from 'hono'
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import type { SessionEvent } from '../protocol/index.ts'
import { SECURITY_HEADERS } from './security-headers.ts'

/** Most bytes an SSE reader may leave unread before it is dropped (SPEC 12.2). */
export const MAX_UNREAD_SSE_BYTES = 1024 * 1024

/** Unread bytes above which a reader catching up from the log is waited for. */
const CATCH_UP_HIGH_WATER = 64 * 1024

/** One SSE frame: `event:`, one `data:` per line, `id:` when given, a blank line. */
export function sseFrame(message: { event: string; data: string; id?: string }): string {
  const data = message.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')
  return `event: ${message.event}\n${data}\n${message.id === undefined ? '' : `id: ${message.id}\n`}\n`
}

const frames = new WeakMap<SessionEvent, string>()

/** The `session-event` frame of an event, serialised once however many readers receive it (SPEC 12.1). */
export function eventFrame(event: SessionEvent): string {
  let frame = frames.get(event)
  if (frame === undefined) {
    frame = sseFrame({ id: String(event.seq), event: 'session-event', data: JSON.stringify(event) })
    frames.set(event, frame)
  }
  return frame
}

/**
 * Where one SSE reader's bytes go: straight to the Node socket when the app runs on the Node
 * server, else into a web stream (the app called in tests). A reader that leaves more than
 * `MAX_UNREAD_SSE_BYTES` unread is dropped.
 */
export interface SseSink {
  /** Writes text; false once the reader was dropped or went away. */
  write(text: string): boolean
  /** Resolves once the reader has taken most of what was written (for catching up from the log). */
  room(): Promise<void>
  /** True once the reader went away or was dropped. */
  readonly closed: boolean
  /** Calls back once when the reader goes away. */
  onClose(listener: () => void): void
  /** Ends the stream. */
  end(): void
}

class NodeSink implements SseSink {
  private gone = false
  private readonly listeners: (() => void)[] = []
  private waiters: (() => void)[] = []

  constructor(private readonly response: ServerResponse) {
    response.on('close', () => this.goneNow())
    response.on('drain', () => this.wake())
  }

  get closed(): boolean {
    return this.gone
  }

  write(text: string): boolean {
    if (this.gone) return false
    this.response.write(text)
    if (this.response.writableLength <= MAX_UNREAD_SSE_BYTES) return true
    // a reset, not a close: a close would queue behind the unread bytes and never reach a reader that does not read
    this.response.socket?.resetAndDestroy()
    this.goneNow()
    return false
  }

  room(): Promise<void> {
    if (this.gone || this.response.writableLength <= CATCH_UP_HIGH_WATER) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  onClose(listener: () => void): void {
    if (this.gone) listener()
    else this.listeners.push(listener)
  }

  end(): void {
    if (!this.gone) this.response.end()
  }

  private wake(): void {
    for (const resolve of this.waiters.splice(0)) resolve()
  }

  private goneNow(): void {
    if (this.gone) return
    this.gone = true
    this.wake()
    for (const listener of this.listeners.splice(0)) listener()
  }
}

class WebSink implements SseSink {
  private gone = false
  private readonly listeners: (() => void)[] = []
  private waiters: (() => void)[] = []
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null
  private readonly encoder = new TextEncoder()
  readonly stream: ReadableStream<Uint8Array>

  constructor() {
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          this.controller = controller
        },
        pull: () => {
          if (this.unread <= CATCH_UP_HIGH_WATER) for (const resolve of this.waiters.splice(0)) resolve()
        },
        cancel: () => this.goneNow(),
      },
      { highWaterMark: CATCH_UP_HIGH_WATER, size: (chunk) => chunk.byteLength },
    )
  }

  private get unread(): number {
    return CATCH_UP_HIGH_WATER - (this.controller?.desiredSize ?? CATCH_UP_HIGH_WATER)
  }

  get closed(): boolean {
    return this.gone
  }

  write(text: string): boolean {
    if (this.gone || this.controller === null) return false
    this.controller.enqueue(this.encoder.encode(text))
    if (this.unread <= MAX_UNREAD_SSE_BYTES) return true
    this.controller.error(new Error('the reader fell too far behind'))
    this.goneNow()
    return false
  }

  room(): Promise<void> {
    if (this.gone || this.unread <= CATCH_UP_HIGH_WATER) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  onClose(listener: () => void): void {
    if (this.gone) listener()
    else this.listeners.push(listener)
  }

  end(): void {
    if (this.gone) return
    this.controller?.close()
    this.goneNow()
  }

  private goneNow(): void {
    if (this.gone) return
    this.gone = true
    for (const resolve of this.waiters.splice(0)) resolve()
    for (const listener of this.listeners.splice(0)) listener()
  }
}

/**
 * Answers with an event stream driven by `run` (which writes through the sink until the reader
 * goes away). On the Node server the bytes go straight to the socket, written once per frame.
 */
export function serveSse(c: Context, headers: Record<string, string>, run: (sink: SseSink) => Promise<void>): Response {
  const all = { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', ...headers }
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing
  if (outgoing instanceof ServerResponse) {
    // the answer bypasses the app's middleware, so it carries the security headers itself (SPEC 12.3)
    outgoing.writeHead(200, { ...SECURITY_HEADERS, ...all })
    outgoing.flushHeaders()
    const sink = new NodeSink(outgoing)
    void run(sink).finally(() => sink.end())
    return RESPONSE_ALREADY_SENT
  }
  const sink = new WebSink()
  void run(sink).finally(() => sink.end())
  return new Response(sink.stream, { status: 200, headers: all })
}

/** Resolves on the next signal or after `ms`, whichever comes first; `signal()` before waiting is not lost. */
export class Wakeup {
  private pending = false
  private resolve: (() => void) | null = null

  /** Wakes a waiter (or the next one). */
  signal(): void {
    this.pending = true
    const resolve = this.resolve
    this.resolve = null
    resolve?.()
  }

  /** Waits for a signal; 'timeout' after ms. */
  async wait(ms: number): Promise<'signal' | 'timeout'> {
    if (this.pending) {
      this.pending = false
      return 'signal'
    }
    let timer: NodeJS.Timeout | undefined
    const outcome = await Promise.race([
      new Promise<'signal'>((resolve) => {
        this.resolve = () => resolve('signal')
      }),
      new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), ms)
      }),
    ])
    clearTimeout(timer)
    this.resolve = null
    this.pending = false
    return outcome
  }
}
