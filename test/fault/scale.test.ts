import { spawn } from 'node:child_process'
import { readdir } from 'node:fs/promises'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { SseReader } from '../support/sse-reader.ts'
import { writeLongSession, writeManySessions } from '../support/generated-sessions.ts'
import { tempDir } from '../support/temp-dir.ts'
import { ROOT, startServer, type CliProcess } from './support.ts'

const children: { kill(signal: NodeJS.Signals): boolean }[] = []
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
})

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url)
  return { status: response.status, body: (await response.json()) as Record<string, unknown> }
}

/** The real CLI under a descriptor limit (prlimit), resolving with its URL once it listens. */
async function serveLimited(dataDir: string, nofile: number): Promise<{ url: string; pid: number; stderr: () => string }> {
  const child = spawn('prlimit', [`--nofile=${nofile}:${nofile}`, process.execPath, '--import', 'tsx', 'src/server/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir, '--no-build'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, SCHEDULE_WEB_TOKEN: '', PORT: '' },
  })
  children.push(child)
  let out = ''
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      const match = /listening on (http:\/\/\S+)\n/.exec(out)
      if (match) resolve(match[1])
    })
    child.once('exit', (code) => reject(new Error(`server exited ${code}: ${err}`)))
  })
  return { url, pid: child.pid as number, stderr: () => err }
}

describe('scale through the real server (SPEC 12.1)', () => {
  it('starts, lists and opens each of 1,000 sessions in turn under a limit of 256 descriptors', async () => {
    const dataDir = await tempDir('sw-many-')
    const ids = await writeManySessions(dataDir, 1000)
    const server = await serveLimited(dataDir, 256)
    const listed: string[] = []
    let cursor: string | null = null
    do {
      const page = await getJson(`${server.url}/api/sessions?limit=500${cursor === null ? '' : `&before=${cursor}`}`)
      expect(page.status).toBe(200)
      listed.push(...(page.body.sessions as { id: string }[]).map((s) => s.id))
      cursor = page.body.nextCursor as string | null
    } while (cursor !== null)
    expect(listed).toEqual([...ids].reverse())
    const statuses = new Map<number, number>()
    for (const id of ids) {
      const response = await fetch(`${server.url}/api/sessions/${id}/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ text: 'what time is it?', clientTimeZone: 'UTC' }),
      })
      await response.arrayBuffer()
      statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
    }
    expect(Object.fromEntries(statuses)).toEqual({ 202: 1000 })
    for (const id of [ids[0], ids[499], ids[999]]) {
      await vi.waitFor(
        async () => {
          const page = await getJson(`${server.url}/api/sessions/${id}/events?limit=1`)
          expect((page.body.events as SessionEvent[])[0]?.type).toBe('turn/end')
        },
        { timeout: 20_000, interval: 50 },
      )
    }
    expect((await getJson(`${server.url}/api/health`)).status).toBe(200)
    expect((await readdir(`/proc/${server.pid}/fd`)).length).toBeLessThan(256)
    expect(server.stderr()).not.toMatch(/EMFILE/)
  }, 180_000)

  it('answers pages and the stream of a 2,000,000-event session without opening it', async () => {
    const dataDir = await tempDir('sw-long-')
    await writeLongSession(dataDir, 'long', 2_000_000)
    const server: CliProcess & { url: string } = await startServer(dataDir)
    children.push(server.child)
    const last = await getJson(`${server.url}/api/sessions/long/events`)
    expect({ status: last.status, first: last.body.firstSeq, lastSeq: last.body.lastSeq, count: last.body.eventCount, n: (last.body.events as unknown[]).length }).toEqual({
      status: 200,
      first: 1_999_500,
      lastSeq: 1_999_999,
      count: 2_000_000,
      n: 500,
    })
    const middle = await getJson(`${server.url}/api/sessions/long/events?after=1000000&limit=50`)
    expect((middle.body.events as SessionEvent[]).map((e) => e.seq)).toEqual(Array.from({ length: 50 }, (_, i) => 1_000_001 + i))
    const early = await getJson(`${server.url}/api/sessions/long/events?before=12&limit=5`)
    expect((early.body.events as SessionEvent[]).map((e) => e.seq)).toEqual([7, 8, 9, 10, 11])
    const controller = new AbortController()
    const stream = await fetch(`${server.url}/api/sessions/long/stream?after=1999996`, { signal: controller.signal })
    expect(stream.status).toBe(200)
    const sse = new SseReader((stream.body as ReadableStream<Uint8Array>).getReader())
    expect(await sse.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    expect([(await sse.next()).id, (await sse.next()).id, (await sse.next()).id]).toEqual(['1999997', '1999998', '1999999'])
    controller.abort()
    const ending = new AbortController()
    const fromEnd = await fetch(`${server.url}/api/sessions/long/stream`, { signal: ending.signal })
    const tail = new SseReader((fromEnd.body as ReadableStream<Uint8Array>).getReader())
    expect(await tail.next()).toEqual({ event: 'status', data: '{"status":"idle"}' })
    ending.abort()
  }, 180_000)
})
