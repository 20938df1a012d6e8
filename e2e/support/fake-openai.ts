import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** A local OpenAI-compatible chat-completions endpoint that streams one answer in chunks, `gapMs` apart. */
export type FakeOpenAi = { baseUrl: string; requests: number; close(): Promise<void> }

/** Starts the endpoint on a free loopback port. */
export async function startFakeOpenAi(chunks: readonly string[], gapMs: number): Promise<FakeOpenAi> {
  const state = { requests: 0 }
  const server: Server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      state.requests += 1
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      let index = 0
      const send = (): void => {
        if (res.destroyed) return
        if (index < chunks.length) {
          const chunk = { id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: chunks[index] }, finish_reason: null }] }
          res.write(`data: ${JSON.stringify(chunk)}\n\n`)
          index += 1
          setTimeout(send, gapMs)
          return
        }
        res.write(`data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`)
        res.end('data: [DONE]\n\n')
      }
      send()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    get requests() {
      return state.requests
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
