import { ServerResponse } from 'node:http'
import type { Context } from 'hono'
import type { SSEStreamingApi } from 'hono/streaming'

/** Most bytes an SSE reader may leave unread before it is dropped (SPEC 12.2). */
export const MAX_UNREAD_SSE_BYTES = 1024 * 1024

/** Unread bytes above which a stream catching up from the log waits for its reader. */
const CATCH_UP_HIGH_WATER = 64 * 1024

/** One SSE frame in the layout of Hono's `writeSSE`: `event:`, one `data:` per line, `id:`. */
export function sseFrame(message: { event: string; data: string; id?: string }): string {
  const data = message.data
    .split(/\r\n|\r|\n/)
    .map((line) => `data: ${line}`)
    .join('\n')
  return `event: ${message.event}\n${data}\n${message.id === undefined ? '' : `id: ${message.id}\n`}\n`
}

function nodeResponse(c: Context): ServerResponse | null {
  const outgoing = (c.env as { outgoing?: unknown } | undefined)?.outgoing
  return outgoing instanceof ServerResponse ? outgoing : null
}

/**
 * What one SSE reader has not taken yet: frames handed to the stream and not yet pulled, plus the
 * bytes waiting in its socket. Frames are written without waiting for the reader, so a reader that
 * stops reading grows this count, and is dropped (stream aborted, connection reset) once it passes
 * the limit.
 */
export class SseOutbox {
  private queued = 0
  private waiters: (() => void)[] = []
  private dropped = false
  private readonly response: ServerResponse | null

  constructor(
    private readonly stream: SSEStreamingApi,
    c: Context,
    private readonly limit = MAX_UNREAD_SSE_BYTES,
  ) {
    this.response = nodeResponse(c)
  }

  /** Bytes written to this reader that it has not read yet (as far as the server can see). */
  get unread(): number {
    return this.queued + (this.response?.writableLength ?? 0)
  }

  /** Queues SSE text; false once the reader is more than the limit behind, and then it has been dropped. */
  push(text: string): boolean {
    if (this.dropped || this.stream.aborted) return false
    const bytes = Buffer.byteLength(text)
    this.queued += bytes
    void this.stream.write(text).then(() => {
      this.queued -= bytes
      if (this.queued <= CATCH_UP_HIGH_WATER) for (const wake of this.waiters.splice(0)) wake()
    })
    if (this.unread <= this.limit) return true
    this.drop()
    return false
  }

  /** Resolves once the reader has taken enough that replaying more of the log will not outrun it (or it was dropped). */
  room(): Promise<void> {
    if (this.dropped || this.queued <= CATCH_UP_HIGH_WATER) return Promise.resolve()
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  private drop(): void {
    this.dropped = true
    for (const wake of this.waiters.splice(0)) wake()
    this.stream.abort()
    // a reset, not a close: a close would queue behind the unread bytes and never reach a reader that does not read
    this.response?.socket?.resetAndDestroy()
  }
}
