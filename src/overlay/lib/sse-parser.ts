/** One server-sent event as the wire carries it (`event` defaults to `message`; `id` is null when the event set none). */
export type SseMessage = { event: string; data: string; id: string | null }

/** An incremental `text/event-stream` parser: feed it decoded text in any chunks, it answers the complete events. */
export class SseParser {
  private buffer = ''
  private event = ''
  private data: string[] = []
  private id: string | null = null
  private sawData = false
  /** The last event id the stream set (sticky across events, as EventSource keeps it). */
  lastEventId: string | null = null

  /** Parses one chunk; returns the events it completed. */
  push(chunk: string): SseMessage[] {
    this.buffer += chunk
    const out: SseMessage[] = []
    let start = 0
    for (;;) {
      const newline = this.nextLineEnd(start)
      if (newline === -1) break
      const line = this.buffer.slice(start, newline)
      start = newline + (this.buffer[newline] === '\r' && this.buffer[newline + 1] === '\n' ? 2 : 1)
      const message = this.line(line)
      if (message !== null) out.push(message)
    }
    this.buffer = this.buffer.slice(start)
    return out
  }

  private nextLineEnd(from: number): number {
    for (let i = from; i < this.buffer.length; i++) {
      const c = this.buffer[i]
      if (c === '\n') return i
      if (c === '\r') return i + 1 < this.buffer.length ? i : -1
    }
    return -1
  }

  private line(line: string): SseMessage | null {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return null
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    switch (field) {
      case 'event':
        this.event = value
        break
      case 'data':
        this.data.push(value)
        this.sawData = true
        break
      case 'id':
        if (!value.includes('\u0000')) this.id = value
        break
      default:
        break
    }
    return null
  }

  private dispatch(): SseMessage | null {
    if (this.id !== null) this.lastEventId = this.id
    const message: SseMessage | null = this.sawData
      ? { event: this.event === '' ? 'message' : this.event, data: this.data.join('\n'), id: this.id }
      : null
    this.event = ''
    this.data = []
    this.id = null
    this.sawData = false
    return message
  }
}
