import { mkdir } from 'node:fs/promises'
import { get, type IncomingMessage } from 'node:http'
import { join } from 'node:path'
import { BenchClient } from './http-client.ts'
import { median } from './measure.ts'
import { startBare, startCli, type BenchProcess } from './server-process.ts'

/** Delays from a post to its frame at the subscribers, medians over the posts. */
export type FanoutSide = {
  /** p50 over posts of the slowest subscriber's delay. */
  slowestP50: number
  /** p50 over posts of the median subscriber's delay. */
  medianP50: number
  /** CPU time of the serving process per post (all its threads). */
  cpuMsPerEvent: number
}

/** One subscriber count: the app's stream beside the bare floor server. */
export type FanoutLevel = { subscribers: number; posts: number; server: FanoutSide; floor: FanoutSide }

const PAD = ' the quick brown fox jumps over the lazy dog'

/** A 100-character title that names its post. */
function titleOf(n: number): string {
  return `fo${n}x${PAD}${PAD}`.slice(0, 100)
}

/** Sockets reading an event stream, noting when each sees the frame of the current post. */
class Subscribers {
  private readonly responses: IncomingMessage[] = []
  private marker = ''
  private arrivals: number[] = []
  private arrived = 0
  private done: (() => void) | null = null
  private readonly tails: string[] = []

  /** Opens `count` streams at `url` and resolves once each has its first frame. */
  async open(url: string, count: number): Promise<void> {
    const opened: Promise<void>[] = []
    for (let i = 0; i < count; i++) {
      this.tails.push('')
      opened.push(
        new Promise<void>((resolve, reject) => {
          const request = get(url, { agent: false }, (response) => {
            if (response.statusCode !== 200) reject(new Error(`stream answered ${response.statusCode}`))
            this.responses.push(response)
            let started = false
            response.setEncoding('latin1')
            response.on('data', (chunk: string) => {
              if (!started && chunk.includes('\n\n')) {
                started = true
                resolve()
              }
              this.seen(i, chunk)
            })
            response.on('error', () => undefined)
          })
          request.on('error', reject)
        }),
      )
      if (i % 50 === 49) await Promise.all(opened.slice(-50))
    }
    await Promise.all(opened)
  }

  private seen(subscriber: number, chunk: string): void {
    if (this.marker === '' || this.arrivals[subscriber] !== undefined) return
    const text = this.tails[subscriber] + chunk
    if (text.includes(this.marker)) {
      this.arrivals[subscriber] = performance.now()
      this.tails[subscriber] = ''
      this.arrived++
      if (this.arrived === this.responses.length) this.done?.()
    } else this.tails[subscriber] = text.slice(-this.marker.length)
  }

  /** Expects the frame of post `n`; resolves with every subscriber's arrival time once all have it. */
  expect(n: number): Promise<number[]> {
    this.marker = `"title":"fo${n}x`
    this.arrivals = []
    this.arrived = 0
    return new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`post ${n}: only ${this.arrived} of ${this.responses.length} subscribers got the frame`)), 20_000)
      this.done = () => {
        clearTimeout(timer)
        this.done = null
        this.marker = ''
        resolve([...this.arrivals])
      }
    })
  }

  /** Closes every stream. */
  close(): void {
    for (const response of this.responses) response.destroy()
  }
}

/** One side under test: its process, a client and its subscribers, and how to post a title. */
type Side = { proc: BenchProcess; client: BenchClient; subscribers: Subscribers; post: (title: string) => Promise<void> }

async function openServer(dataDir: string, count: number): Promise<Side> {
  const proc = await startCli(dataDir)
  const client = new BenchClient(proc.url, 2)
  const subscribers = new Subscribers()
  await client.json('POST', '/api/sessions', 201, { sessionId: 'fanout', timeZone: 'Asia/Shanghai' })
  await subscribers.open(`${proc.url}/api/sessions/fanout/stream`, count)
  return { proc, client, subscribers, post: async (title) => void (await client.json('PATCH', '/api/sessions/fanout', 200, { title })) }
}

async function openFloor(dir: string, count: number): Promise<Side> {
  const proc = await startBare(dir)
  const url = proc.url
  const client = new BenchClient(url, 2)
  const subscribers = new Subscribers()
  await subscribers.open(`${url}/stream`, count)
  return { proc, client, subscribers, post: async (title) => void (await client.json('PATCH', '/title', 200, { title })) }
}

async function closeSide(side: Side | null): Promise<void> {
  if (side === null) return
  side.subscribers.close()
  side.client.close()
  await side.proc.stop()
}

type Samples = { slowest: number[]; middle: number[]; cpuStart: number }

async function postOnce(side: Side, n: number, samples: Samples | null): Promise<void> {
  const arrived = side.subscribers.expect(n)
  const start = performance.now()
  await side.post(titleOf(n))
  const times = (await arrived).map((t) => t - start)
  if (samples === null) return
  samples.slowest.push(Math.max(...times))
  samples.middle.push(median(times))
}

function figures(side: Side, samples: Samples, posts: number): FanoutSide {
  return { slowestP50: median(samples.slowest), medianP50: median(samples.middle), cpuMsPerEvent: (side.proc.cpuMs() - samples.cpuStart) / posts }
}

/**
 * SPEC 12.1 SSE fan-out: `count` subscribers on one session's stream of the real CLI, the driver
 * renaming the session (one durable `session/title` event per PATCH, no turn) and noting when it
 * posted; each subscriber notes when the frame arrives. The floor is a bare node:http server
 * (bench/bare-server.ts) that makes the same line durable and writes the same bytes.
 */
export async function measureFanout(root: string, levels: readonly number[], warmup: number, posts: number, log: (line: string) => void): Promise<FanoutLevel[]> {
  const out: FanoutLevel[] = []
  for (const count of levels) {
    const dir = join(root, `fanout-${count}`)
    await mkdir(dir, { recursive: true })
    let server: Side | null = null
    let floor: Side | null = null
    try {
      server = await openServer(join(dir, 'data'), count)
      floor = await openFloor(dir, count)
      for (let n = 0; n < warmup; n++) for (const side of [server, floor]) await postOnce(side, n, null)
      const serverSamples: Samples = { slowest: [], middle: [], cpuStart: server.proc.cpuMs() }
      const floorSamples: Samples = { slowest: [], middle: [], cpuStart: floor.proc.cpuMs() }
      for (let n = warmup; n < warmup + posts; n++) {
        const order: [Side, Samples][] = [
          [server, serverSamples],
          [floor, floorSamples],
        ]
        if (n % 2 === 1) order.reverse()
        for (const [side, samples] of order) await postOnce(side, n, samples)
      }
      const level: FanoutLevel = { subscribers: count, posts, server: figures(server, serverSamples, posts), floor: figures(floor, floorSamples, posts) }
      log(
        `SSE ${count} subscribers: slowest p50 ${level.server.slowestP50.toFixed(1)} ms vs floor ${level.floor.slowestP50.toFixed(1)} ms; ` +
          `CPU per event ${level.server.cpuMsPerEvent.toFixed(2)} vs ${level.floor.cpuMsPerEvent.toFixed(2)} ms`,
      )
      out.push(level)
    } finally {
      await closeSide(server)
      await closeSide(floor)
    }
  }
  return out
}
