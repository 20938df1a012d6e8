import { connect, type Socket } from 'node:net'
import type { Answer } from './http-client.ts'

const HEADER_END = Buffer.from('\r\n\r\n')

type Pending = { resolve: (answer: Answer) => void; reject: (error: Error) => void }

/**
 * One keep-alive HTTP/1.1 connection that sends one request at a time with a minimal response
 * reader (status line, Content-Length or chunked body): a closed-loop load generator that costs
 * its machine little CPU beside the server it measures. It reconnects when the server closed an
 * idle connection.
 */
export class RawConnection {
  private socket: Socket | null = null
  private buffered: Buffer = Buffer.alloc(0)
  private pending: Pending | null = null
  private readonly prefix: string

  constructor(private readonly url: URL) {
    this.prefix = `Host: ${url.host}\r\nConnection: keep-alive\r\n`
  }

  /** Sends one request (a JSON body when given) and resolves with the whole answer. */
  async send(method: string, path: string, json?: unknown): Promise<Answer> {
    if (this.pending !== null) throw new Error('one request at a time')
    const socket = this.socket ?? (await this.open())
    const body = json === undefined ? '' : JSON.stringify(json)
    const head = `${method} ${path} HTTP/1.1\r\n${this.prefix}` + (json === undefined ? '\r\n' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`)
    return new Promise<Answer>((resolve, reject) => {
      this.pending = { resolve, reject }
      socket.write(head + body)
    })
  }

  /** Closes the connection. */
  close(): void {
    this.socket?.destroy()
    this.socket = null
  }

  private open(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ host: this.url.hostname, port: Number(this.url.port), noDelay: true })
      socket.once('connect', () => {
        socket.off('error', reject)
        this.socket = socket
        this.buffered = Buffer.alloc(0)
        socket.on('data', (chunk: Buffer) => this.read(chunk))
        const gone = (error?: Error): void => {
          if (this.socket === socket) this.socket = null
          const pending = this.pending
          this.pending = null
          pending?.reject(error ?? new Error('the server closed the connection'))
        }
        socket.on('error', gone)
        socket.on('close', () => gone())
        resolve(socket)
      })
      socket.once('error', reject)
    })
  }

  private read(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk])
    const answer = parse(this.buffered)
    if (answer === null) return
    this.buffered = this.buffered.subarray(answer.length)
    const pending = this.pending
    this.pending = null
    pending?.resolve({ status: answer.status, body: answer.body })
  }
}

/** One whole response at the start of `bytes` and its length, or null while it is incomplete. */
function parse(bytes: Buffer): { status: number; body: string; length: number } | null {
  const end = bytes.indexOf(HEADER_END)
  if (end < 0) return null
  const head = bytes.toString('latin1', 0, end)
  const status = Number(head.slice(9, 12))
  const start = end + HEADER_END.length
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)
  if (length !== null) {
    const stop = start + Number(length[1])
    return bytes.length < stop ? null : { status, body: bytes.toString('utf8', start, stop), length: stop }
  }
  if (!/\r\ntransfer-encoding: *chunked/i.test(head)) return { status, body: '', length: start }
  const parts: Buffer[] = []
  let at = start
  for (;;) {
    const line = bytes.indexOf('\r\n', at)
    if (line < 0) return null
    const size = Number.parseInt(bytes.toString('latin1', at, line), 16)
    const data = line + 2
    if (bytes.length < data + size + 2) return null
    if (size === 0) return { status, body: Buffer.concat(parts).toString('utf8'), length: data + 2 }
    parts.push(bytes.subarray(data, data + size))
    at = data + size + 2
  }
}
