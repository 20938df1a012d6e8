import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One step of a streamed answer: bytes to write, a pause, or a wait for the test's signal. */
export type StreamStep = string | { delayMs: number } | { until: Promise<unknown> }

/** How the fake endpoint answers one request. */
export type Reply =
  | { stream: StreamStep[]; then?: 'end' | 'destroy' | 'hang' }
  | { status: number; body: string; headers?: Record<string, string> }
  | { destroy: true }

/** A request the endpoint received; `closedEarly` settles when its connection closes, true if before the answer was complete. */
export type SeenRequest = { url: string; headers: IncomingHttpHeaders; raw: string; body: unknown; closedEarly: Promise<boolean> }

/** An SSE frame carrying one JSON chunk. */
export function frame(chunk: unknown): string {
  return `data: ${JSON.stringify(chunk)}\n\n`
}

/** A chunk carrying a piece of answer text. */
export function textChunk(text: string): string {
  return frame({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content: text }, finish_reason: null }] })
}

/** The chunk that finishes an answer. */
export function finishChunk(reason = 'stop'): string {
  return frame({ choices: [{ index: 0, delta: {}, finish_reason: reason }] })
}

/** The stream's last frame. */
export const DONE = 'data: [DONE]\n\n'

/** A resolvable promise, for streams that wait on the test. */
export function gate(): { promise: Promise<void>; open: () => void } {
  let open: () => void = () => undefined
  const promise = new Promise<void>((resolve) => (open = resolve))
  return { promise, open }
}

/** A real OpenAI-compatible endpoint on a free local port that answers from a queue of replies (500 when it runs out). */
export class FakeOpenAiEndpoint {
  readonly requests: SeenRequest[] = []
  private readonly replies: Reply[] = []
  private readonly requestWaiters: (() => void)[] = []

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts the endpoint; its base URL ends in `/v1`. */
  static async start(): Promise<FakeOpenAiEndpoint> {
    let endpoint: FakeOpenAiEndpoint | undefined
    const server = createServer((req, res) => {
      void endpoint?.handle(req, res)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    endpoint = new FakeOpenAiEndpoint(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)
    return endpoint
  }

  /** Queues replies, used in order, one per request. */
  reply(...replies: Reply[]): this {
    this.replies.push(...replies)
    return this
  }

  /** Resolves once n requests have arrived. */
  async received(n: number): Promise<SeenRequest> {
    while (this.requests.length < n) await new Promise<void>((resolve) => this.requestWaiters.push(resolve))
    return this.requests[n - 1] as SeenRequest
  }

  /** Closes the endpoint and every connection to it. */
  async close(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = ''
    for await (const chunk of req) raw += String(chunk)
    const closedEarly = new Promise<boolean>((resolve) => res.once('close', () => resolve(!res.writableFinished)))
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {
      // kept as text
    }
    this.requests.push({ url: req.url ?? '', headers: req.headers, raw, body, closedEarly })
    for (const wake of this.requestWaiters.splice(0)) wake()
    const reply = this.replies.shift() ?? { status: 500, body: '{"error":{"message":"no reply queued"}}' }
    if ('destroy' in reply) {
      req.socket.destroy()
      return
    }
    if ('status' in reply) {
      res.writeHead(reply.status, { 'content-type': 'application/json', ...reply.headers })
      res.end(reply.body)
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    res.flushHeaders()
    for (const step of reply.stream) {
      if (res.destroyed) return
      if (typeof step === 'string') res.write(step)
      else if ('delayMs' in step) await new Promise((resolve) => setTimeout(resolve, step.delayMs))
      else await step.until
    }
    const then = reply.then ?? 'end'
    switch (then) {
      case 'end':
        res.end()
        return
      case 'destroy':
        req.socket.destroy()
        return
      case 'hang':
        return
      default: {
        const never: never = then
        throw new Error(`unknown ending ${String(never)}`)
      }
    }
  }
}
