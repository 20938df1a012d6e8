import { compose } from '../src/server/compose.ts'
import { listen } from '../src/server/serve.ts'
import { percentile } from './measure.ts'
import { SseReader } from '../test/support/sse-reader.ts'

type StreamedEvent = { seq: number; type: string; data: { source?: { kind?: string; plugin?: string }; turn?: number } }

/** HTTP round-trip figures in milliseconds. */
export type HttpFigures = {
  messages: number
  ackP50: number
  ackP95: number
  ackP99: number
  readingP50: number
  readingP95: number
  readingP99: number
  turnP50: number
  turnP95: number
}

/**
 * Real server on port 0 with the offline model: for each message, the time from the POST to the
 * 202 answer (the message durable), to the reading event arriving on the SSE stream (served only
 * once durable) and to the turn's `turn/end`.
 */
export async function measureHttp(dataDir: string, messages: number, warmup: number): Promise<HttpFigures> {
  const { host, schedules } = await compose({ dataDir, model: 'offline', log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0, schedules })
  const controller = new AbortController()
  try {
    const created = await fetch(`${server.url}/api/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ timeZone: 'Asia/Shanghai', sessionId: 'bench-http' }),
    })
    if (created.status !== 201) throw new Error(`session create answered ${created.status}`)
    const response = await fetch(`${server.url}/api/sessions/bench-http/stream`, { signal: controller.signal })
    if (!response.body) throw new Error('no event stream body')
    const sse = new SseReader(response.body.getReader())
    const zones = ['Asia/Shanghai', 'America/New_York', 'Europe/Berlin']
    const ack: number[] = []
    const reading: number[] = []
    const turn: number[] = []
    for (let i = 0; i < warmup + messages; i++) {
      const start = performance.now()
      let readingAt = -1
      let turnAt = -1
      const watched = (async () => {
        for (;;) {
          const frame = await sse.next()
          if (frame.event !== 'session-event') continue
          const event = JSON.parse(frame.data) as StreamedEvent
          if (event.type === 'user/message' && event.data.source?.kind === 'plugin' && event.data.source.plugin === 'time-context') {
            readingAt = performance.now()
          }
          if (event.type === 'turn/end') {
            turnAt = performance.now()
            return
          }
        }
      })()
      const posted = await fetch(`${server.url}/api/sessions/bench-http/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: `What time is it? (message ${i + 1})`, clientTimeZone: zones[i % zones.length] }),
      })
      const ackAt = performance.now()
      if (posted.status !== 202) throw new Error(`message POST answered ${posted.status}`)
      await posted.arrayBuffer()
      await watched
      if (readingAt < 0) throw new Error(`turn ${i + 1} ended without a reading on the stream`)
      if (i >= warmup) {
        ack.push(ackAt - start)
        reading.push(readingAt - start)
        turn.push(turnAt - start)
      }
    }
    return {
      messages,
      ackP50: percentile(ack, 50),
      ackP95: percentile(ack, 95),
      ackP99: percentile(ack, 99),
      readingP50: percentile(reading, 50),
      readingP95: percentile(reading, 95),
      readingP99: percentile(reading, 99),
      turnP50: percentile(turn, 50),
      turnP95: percentile(turn, 95),
    }
  } finally {
    controller.abort()
    await server.close()
  }
}
