import net from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ScriptedModel } from '../../src/host/index.ts'
import { composeHost } from '../../src/server/compose.ts'
import { listen, type RunningServer } from '../../src/server/serve.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { parseRawAnswer, rawExchange } from '../support/raw-http.ts'
import { tempDir } from '../support/temp-dir.ts'
import { apiError, makeApp, type Answer } from './app-harness.ts'

/**
 * Request bodies on the real Node server are read straight from its request (SPEC 8, 12.3): the
 * same limit and the same decoding as Hono's body reading, which answers when the app is called
 * without a port — every body here gets the same answer both ways.
 */

const servers: RunningServer[] = []
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close()
})

const T0 = Date.UTC(2026, 6, 15, 1, 1, 1)
const BOM = Buffer.from([0xef, 0xbb, 0xbf])

async function serve(): Promise<RunningServer> {
  const host = await composeHost({ dataDir: await tempDir('sw-body-'), model: new ScriptedModel(), clock: new FakeClock(T0), log: () => undefined })
  const server = await listen({ host, bindHost: '127.0.0.1', port: 0 })
  servers.push(server)
  return server
}

/** Sends raw request bytes (written in pieces of `piece` bytes) and parses the answer. */
function raw(port: number, head: string[], body: Buffer, piece = body.length): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.once('error', reject)
    socket.once('end', () => {
      const text = Buffer.concat(chunks).toString('utf8')
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1])
      const payload = text.slice(text.indexOf('\r\n\r\n') + 4)
      resolve({ status, body: JSON.parse(payload) as unknown })
    })
    socket.once('connect', async () => {
      socket.write(`${[...head, `Host: 127.0.0.1:${port}`, 'Connection: close'].join('\r\n')}\r\n\r\n`)
      for (let at = 0; at < body.length; at += piece) {
        socket.write(body.subarray(at, at + piece))
        await new Promise((done) => setTimeout(done, 2))
      }
    })
  })
}

function createSession(port: number, body: Buffer, options: { chunked?: boolean; piece?: number } = {}): Promise<Answer> {
  const framing = options.chunked ? ['Transfer-Encoding: chunked'] : [`Content-Length: ${body.length}`]
  const bytes = options.chunked ? Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]) : body
  return raw(port, ['POST /api/sessions HTTP/1.1', 'Content-Type: application/json', ...framing], bytes, options.piece)
}

const padded = (id: string, size: number): Buffer => {
  const envelope = Buffer.byteLength(JSON.stringify({ sessionId: id, timeZone: 'UTC', pad: '' }))
  return Buffer.from(JSON.stringify({ sessionId: id, timeZone: 'UTC', pad: 'x'.repeat(size - envelope) }))
}

describe('request bodies on the Node server', () => {
  it.each([
    ['plain JSON', Buffer.from('{"sessionId":"plain","timeZone":"UTC"}')],
    ['JSON after a UTF-8 byte order mark', Buffer.concat([BOM, Buffer.from('{"sessionId":"bom","timeZone":"UTC"}')])],
    ['a title with bytes that are not UTF-8', Buffer.from([...Buffer.from('{"sessionId":"bytes","timeZone":"UTC","title":"a'), 0xff, 0xfe, ...Buffer.from('b"}')])],
    ['not JSON', Buffer.from('{"sessionId":')],
    ['an empty body', Buffer.alloc(0)],
    ['exactly 64 KiB', padded('exact', 65_536)],
    ['64 KiB and one byte', padded('over', 65_537)],
  ])('answers %s as the app does, with a length and chunked', async (_name, body) => {
    const { app, host } = await makeApp(await tempDir('sw-body-app-'), { clock: new FakeClock(T0) })
    const response = await app.request('http://127.0.0.1:4280/api/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: new Uint8Array(body) })
    const expected = { status: response.status, body: (await response.json()) as unknown }
    await host.close()
    expect(await createSession((await serve()).port, body)).toEqual(expected)
    if (body.length > 0) expect(await createSession((await serve()).port, body, { chunked: true, piece: 4096 })).toEqual(expected)
  })

  it('reads a body that arrives in many small pieces', async () => {
    const server = await serve()
    const answer = await createSession(server.port, Buffer.from('{"sessionId":"slow","timeZone":"Asia/Shanghai"}'), { piece: 3 })
    expect(answer.status).toBe(201)
    expect((answer.body as { session: { id: string; timeZone: string } }).session).toMatchObject({ id: 'slow', timeZone: 'Asia/Shanghai' })
  })

  it.each([
    ['bytes that are no request', 'GARBAGE'],
    ['the rest of a longer JSON body', ',"title":"cut"}'],
  ])('answers a request whose body runs past its Content-Length, then refuses what follows (%s) with 400 and closes', async (_name, rest) => {
    const server = await serve()
    const body = '{"sessionId":"long","timeZone":"UTC"}'
    const head = ['POST /api/sessions HTTP/1.1', `Host: 127.0.0.1:${server.port}`, 'Content-Type: application/json', `Content-Length: ${body.length}`]
    const exchange = await rawExchange(server.port, Buffer.from(`${head.join('\r\n')}\r\n\r\n${body}${rest}`))
    const answers = exchange.raw.split(/(?=HTTP\/1\.1 \d{3} )/).map((part) => {
      const answer = parseRawAnswer(Buffer.from(part, 'latin1'), false)
      return { status: answer.status, body: JSON.parse(answer.body) as unknown }
    })
    expect({ closed: exchange.closed, answers }).toEqual({
      closed: true,
      answers: [
        { status: 201, body: { session: { id: 'long', createdAt: T0, timeZone: 'UTC', status: 'idle', eventCount: 0 } } },
        { status: 400, body: apiError('bad-request', 'malformed HTTP request') },
      ],
    })
  })

  it('refuses a declared length over the limit before reading the body', async () => {
    const server = await serve()
    const answer = await raw(server.port, ['POST /api/sessions HTTP/1.1', 'Content-Type: application/json', 'Content-Length: 65537'], Buffer.alloc(0))
    expect(answer).toEqual({ status: 413, body: apiError('payload-too-large', 'request body exceeds 65536 bytes') })
  })
})
