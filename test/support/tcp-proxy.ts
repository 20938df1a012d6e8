import { createServer, connect, type Server, type Socket } from 'node:net'

/**
 * How the proxy breaks the network between the store and its database:
 * `cut-requests` drops whatever a client sends and cuts the connection (the request never arrives);
 * `cut-answers` delivers requests but drops every answer and cuts the client off (the server did
 * the work, the client never hears of it). New connections fail the same way.
 */
export type ProxyFault = 'none' | 'cut-requests' | 'cut-answers'

type Pair = { client: Socket; server: Socket }

/** A TCP proxy on 127.0.0.1 in front of a real server, which tests use to lose the network for real. */
export class TcpProxy {
  fault: ProxyFault = 'none'
  private readonly pairs = new Set<Pair>()

  private constructor(
    private readonly server: Server,
    readonly port: number,
  ) {}

  /** Listens on a free port and forwards every connection to `targetPort` on 127.0.0.1. */
  static async start(targetPort: number): Promise<TcpProxy> {
    let proxy: TcpProxy | null = null
    const server = createServer((client) => proxy?.accept(client, targetPort))
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const address = server.address()
    proxy = new TcpProxy(server, typeof address === 'object' && address !== null ? address.port : 0)
    return proxy
  }

  /** The same URL with its port pointed at the proxy. */
  rewrite(url: string): string {
    const parsed = new URL(url)
    parsed.port = String(this.port)
    return parsed.href
  }

  /** Connections currently open through the proxy. */
  get connections(): number {
    return this.pairs.size
  }

  /** Heals the network and drops the connections a fault left hanging. */
  heal(): void {
    this.fault = 'none'
    for (const pair of this.pairs) if (pair.client.destroyed) this.drop(pair)
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) this.drop(pair)
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private accept(client: Socket, targetPort: number): void {
    const server = connect(targetPort, '127.0.0.1')
    const pair = { client, server }
    this.pairs.add(pair)
    client.on('error', () => undefined)
    server.on('error', () => undefined)
    client.on('data', (chunk: Buffer) => {
      if (this.fault === 'cut-requests') this.drop(pair)
      else server.write(chunk)
    })
    server.on('data', (chunk: Buffer) => {
      if (this.fault === 'cut-answers') client.destroy()
      else if (!client.destroyed) client.write(chunk)
    })
    client.on('close', () => {
      if (this.fault !== 'cut-answers') this.drop(pair)
    })
    server.on('close', () => this.drop(pair))
  }

  private drop(pair: Pair): void {
    pair.client.destroy()
    pair.server.destroy()
    this.pairs.delete(pair)
  }
}
