import net from 'node:net'

/** A raw exchange on a socket: the status, headers and (de-chunked) body the server sent back, the raw bytes, and whether it closed. */
export type RawAnswer = { status: number | null; headers: Record<string, string>; body: string; raw: string; closed: boolean }

/** Parses what a server wrote on a socket (interim 1xx answers skipped; chunked bodies decoded). */
export function parseRawAnswer(bytes: Buffer, closed: boolean): RawAnswer {
  let raw = bytes.toString('latin1')
  while (/^HTTP\/1\.[01] 1\d\d /.test(raw) && raw.includes('\r\n\r\n')) raw = raw.slice(raw.indexOf('\r\n\r\n') + 4)
  const headEnd = raw.indexOf('\r\n\r\n')
  const head = headEnd === -1 ? raw : raw.slice(0, headEnd)
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(head)
  const headers: Record<string, string> = {}
  for (const line of head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim()
  }
  let body = headEnd === -1 ? '' : raw.slice(headEnd + 4)
  if (headers['transfer-encoding'] === 'chunked') {
    let decoded = ''
    for (;;) {
      const nl = body.indexOf('\r\n')
      const size = parseInt(body.slice(0, nl), 16)
      if (nl === -1 || !(size > 0)) break
      decoded += body.slice(nl + 2, nl + 2 + size)
      body = body.slice(nl + 2 + size + 2)
    }
    body = decoded
  } else if (headers['content-length'] !== undefined) body = body.slice(0, Number(headers['content-length']))
  return { status: match ? Number(match[1]) : null, headers, body: Buffer.from(body, 'latin1').toString('utf8'), raw, closed }
}

/** Writes bytes on a fresh loopback socket and collects the answer until the server closes it or `waitMs` passes. */
export function rawExchange(port: number, bytes: Buffer, options: { waitMs?: number; halfClose?: boolean } = {}): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let done = false
    const finish = (closed: boolean): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      resolve(parseRawAnswer(Buffer.concat(chunks), closed))
    }
    const timer = setTimeout(() => finish(false), options.waitMs ?? 5_000)
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(bytes)
      if (options.halfClose === true) socket.end()
    })
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('close', () => finish(true))
    socket.on('error', () => finish(true))
  })
}

/** An HTTP/1.x request's bytes from its head lines and body (with Content-Length when asked). */
export function req(lines: string[], body: Buffer | string = '', withLength = false): Buffer {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')
  const head = withLength ? [...lines, `Content-Length: ${bytes.length}`] : lines
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), bytes])
}

/** A body in chunked transfer coding, `chunkSize` bytes per chunk. */
export function chunked(body: Buffer, chunkSize: number): Buffer {
  const parts: Buffer[] = []
  for (let i = 0; i < body.length; i += chunkSize) {
    const piece = body.subarray(i, i + chunkSize)
    parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  }
  parts.push(Buffer.from('0\r\n\r\n'))
  return Buffer.concat(parts)
}
