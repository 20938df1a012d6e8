/**
 * The bare floor server of the scale bench (run as its own process): a plain `node:http` server
 * that makes what it is sent durable as JSON lines (append + fdatasync) in `<dir>`, nothing more.
 * `PATCH /title` appends a `session/title` event to `<dir>/title.jsonl`, serialises its SSE frame
 * once and writes the same bytes the app's stream writes to every `GET /stream` socket;
 * `POST /append/<n>` appends a message `{text, clientTimeZone}` as an `inbox/enqueued` line to
 * `<dir>/<n>.jsonl` and answers 202.
 */
import { open, type FileHandle } from 'node:fs/promises'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { sseFrame } from '../src/server/sse.ts'

const dir = process.argv[2]
if (dir === undefined) throw new Error('usage: bare-server.ts <dir>')
const files = new Map<string, Promise<FileHandle>>()
const subscribers = new Set<ServerResponse>()
let seq = 0

function fileOf(name: string): Promise<FileHandle> {
  let file = files.get(name)
  if (file === undefined) {
    file = open(join(dir as string, `${name}.jsonl`), 'a')
    files.set(name, file)
  }
  return file
}

async function durable(name: string, line: string): Promise<void> {
  const handle = await fileOf(name)
  await handle.write(`${line}\n`)
  await handle.datasync()
}

function answer(response: ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value)
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
  response.end(text)
}

function body(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    request.on('error', reject)
  })
}

async function rename(request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { title } = JSON.parse(await body(request)) as { title: string }
  const event = { seq: seq++, time: Date.now(), type: 'session/title', data: { title } }
  const line = JSON.stringify(event)
  await durable('title', line)
  const frame = sseFrame({ event: 'session-event', data: line, id: String(event.seq) })
  for (const subscriber of subscribers) subscriber.write(frame)
  answer(response, 200, { seq: event.seq })
}

async function append(name: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const { text, clientTimeZone } = JSON.parse(await body(request)) as { text: string; clientTimeZone: string }
  const n = seq++
  const id = `msg-${n.toString(36).padStart(12, '0')}`
  const rpcId = `rpc-${n.toString(36).padStart(12, '0')}`
  const message = { id, role: 'user', content: [{ type: 'text', text }], source: { kind: 'user', rpcId, clientTimeZone } }
  await durable(name, JSON.stringify({ seq: n, time: Date.now(), type: 'inbox/enqueued', data: { target: 'next-turn', message } }))
  answer(response, 202, { rpcId, messageId: id })
}

function failed(response: ServerResponse): (error: unknown) => void {
  return (error) => {
    response.writeHead(500)
    response.end(String(error))
  }
}

const server = createServer((request, response) => {
  if (request.method === 'GET' && request.url === '/stream') {
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' })
    response.write('event: status\ndata: {"status":"idle"}\n\n')
    subscribers.add(response)
    response.on('close', () => subscribers.delete(response))
    return
  }
  if (request.method === 'PATCH' && request.url === '/title') {
    rename(request, response).catch(failed(response))
    return
  }
  const target = /^\/append\/(\d{1,4})$/.exec(request.url ?? '')
  if (request.method === 'POST' && target !== null) {
    append(target[1], request, response).catch(failed(response))
    return
  }
  response.writeHead(404)
  response.end()
})

server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`)
})

const stop = (): void => {
  for (const subscriber of subscribers) subscriber.destroy()
  server.close(() => {
    void Promise.all([...files.values()].map(async (file) => (await file).close())).finally(() => process.exit(0))
  })
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
