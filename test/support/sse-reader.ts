/** One server-sent event frame. */
export type Frame = { event?: string; id?: string; data: string }

/** Reads SSE frames off a fetch body, one at a time (tests and the bench). */
export class SseReader {
  private buffer = ''
  private readonly decoder = new TextDecoder()

  constructor(private readonly reader: ReadableStreamDefaultReader<Uint8Array>) {}

  async next(): Promise<Frame> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n')
      if (end !== -1) {
        const block = this.buffer.slice(0, end)
        this.buffer = this.buffer.slice(end + 2)
        const frame: Frame = { data: '' }
        const data: string[] = []
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue
          const colon = line.indexOf(':')
          const field = colon === -1 ? line : line.slice(0, colon)
          const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
          if (field === 'data') data.push(value)
          else if (field === 'event') frame.event = value
          else if (field === 'id') frame.id = value
        }
        if (data.length === 0 && frame.event === undefined) continue
        frame.data = data.join('\n')
        return frame
      }
      const { done, value } = await this.reader.read()
      if (done) throw new Error(`stream ended with ${JSON.stringify(this.buffer)} unread`)
      this.buffer += this.decoder.decode(value, { stream: true })
    }
  }

  /** Reads frames until one satisfies the predicate; returns all of them. */
  async until(predicate: (frame: Frame) => boolean): Promise<Frame[]> {
    const frames: Frame[] = []
    for (;;) {
      const frame = await this.next()
      frames.push(frame)
      if (predicate(frame)) return frames
    }
  }
}
