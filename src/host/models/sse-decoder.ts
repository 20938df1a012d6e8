/** Splits a server-sent event stream into the data of each event (lines end in LF, CRLF or CR; comments and other fields are skipped). */
export class SseDataDecoder {
  private buffer = ''
  private data: string[] = []
  private started = false

  /** Feeds decoded text; returns the data of every event it completed, in order. */
  push(text: string): string[] {
    let input = this.buffer + text
    if (!this.started && input.length > 0) {
      this.started = true
      if (input.startsWith('\uFEFF')) input = input.slice(1)
    }
    const events: string[] = []
    let start = 0
    for (let i = 0; i < input.length; i++) {
      const c = input[i]
      if (c !== '\n' && c !== '\r') continue
      if (c === '\r' && i === input.length - 1) break
      this.line(input.slice(start, i), events)
      if (c === '\r' && input[i + 1] === '\n') i++
      start = i + 1
    }
    this.buffer = input.slice(start)
    return events
  }

  /** Ends the stream: an unterminated last event is still delivered. */
  end(): string[] {
    const events: string[] = []
    const rest = this.buffer.endsWith('\r') ? this.buffer.slice(0, -1) : this.buffer
    this.buffer = ''
    if (rest !== '') this.line(rest, events)
    this.line('', events)
    return events
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'))
      this.data = []
      return
    }
    if (line.startsWith(':')) return
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    if (field !== 'data') return
    const value = colon === -1 ? '' : line.slice(colon + 1)
    this.data.push(value.startsWith(' ') ? value.slice(1) : value)
  }
}
