import http from 'node:http'
import net from 'node:net'
import { parseRawAnswer, type RawAnswer } from './raw-http.ts'

/** What a slow client saw: the answer it got, and when (ms since it connected) the server closed the connection. */
export type SlowResult = RawAnswer & { closedAfterMs: number }

/**
 * A client that sends `head` at once, then one byte of `trickle` every `everyMs` until the server
 * closes the connection (the slow-loris pattern); resolves with what it got back.
 */
export function slowClient(port: number, head: string, trickle: string, everyMs: number): Promise<SlowResult> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let connectedAt = 0
    let timer: NodeJS.Timeout | undefined
    let sent = 0
    const socket = net.connect(port, '127.0.0.1', () => {
      connectedAt = Date.now()
      socket.write(head)
      timer = setInterval(() => {
        if (!socket.destroyed && socket.writable) socket.write(trickle.charAt(sent++ % trickle.length))
      }, everyMs)
    })
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearInterval(timer)
      resolve({ ...parseRawAnswer(Buffer.concat(chunks), true), closedAfterMs: Date.now() - connectedAt })
    })
  })
}

/** A health probe on a fresh connection: the status and body, or the error it met. */
export function probeHealth(port: number, timeoutMs = 5_000): Promise<{ status: number; body: string } | { error: string }> {
  return new Promise((resolve) => {
    const request = http.get({ host: '127.0.0.1', port, path: '/api/health', agent: false, timeout: timeoutMs }, (response) => {
      let body = ''
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk))
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body }))
      response.on('error', (error) => resolve({ error: error.message }))
    })
    request.on('timeout', () => request.destroy(new Error('timed out')))
    request.on('error', (error) => resolve({ error: error.message }))
  })
}

/** Probes health every `everyMs` until `done` settles; resolves with every probe's outcome. */
export async function probeWhile(port: number, done: Promise<unknown>, everyMs: number): Promise<Array<{ status: number; body: string } | { error: string }>> {
  const outcomes: Array<{ status: number; body: string } | { error: string }> = []
  let finished = false
  void done.finally(() => (finished = true))
  while (!finished) {
    outcomes.push(await probeHealth(port))
    await new Promise((resolve) => setTimeout(resolve, everyMs))
  }
  return outcomes
}
