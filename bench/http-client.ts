import { Agent, request } from 'node:http'

/** One answer: status and body text. */
export type Answer = { status: number; body: string }

/**
 * A light keep-alive HTTP/1.1 client on `node:http` (less client CPU per request than fetch, so the
 * bench's own load stays small beside the server it measures).
 */
export class BenchClient {
  private readonly agent: Agent
  private readonly host: string
  private readonly port: number

  constructor(base: string, sockets = 16) {
    const url = new URL(base)
    this.host = url.hostname
    this.port = Number(url.port)
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets })
  }

  /** Sends one request (a JSON body when given) and resolves with the whole answer. */
  send(method: string, path: string, json?: unknown): Promise<Answer> {
    const body = json === undefined ? null : Buffer.from(JSON.stringify(json))
    return new Promise<Answer>((resolve, reject) => {
      const req = request(
        {
          host: this.host,
          port: this.port,
          method,
          path,
          agent: this.agent,
          headers: body === null ? {} : { 'content-type': 'application/json', 'content-length': body.length },
        },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(body ?? undefined)
    })
  }

  /** Sends a request and parses its JSON answer, throwing unless the status is the expected one. */
  async json<T>(method: string, path: string, expected: number, json?: unknown): Promise<T> {
    const answer = await this.send(method, path, json)
    if (answer.status !== expected) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body.slice(0, 300)}`)
    return JSON.parse(answer.body) as T
  }

  /** Closes the idle sockets. */
  close(): void {
    this.agent.destroy()
  }
}
