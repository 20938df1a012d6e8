import { mkdir, open, type FileHandle } from 'node:fs/promises'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { BenchClient } from './http-client.ts'
import { RawConnection } from './raw-connection.ts'
import { percentile } from './measure.ts'
import { startBare, startCli, type CliOptions, type ServerProcess } from './server-process.ts'
import { SseReader } from '../test/support/sse-reader.ts'

/** Throughput, latency and CPU cost of closed-loop runs: `workers` loops, each one operation at a time. */
export type Throughput = {
  workers: number
  ops: number
  perSecond: number
  p50: number
  p99: number
  /** CPU time (all threads) of the process doing the work, per operation (warm-up included). */
  cpuMsPerOp: number
  /** CPU time of the bench's own clients per operation (warm-up included), for a server in another process; null when the work ran in the bench process (the floor). */
  clientCpuMsPerOp: number | null
}

/** One level of the acknowledgement bench: the server beside the append+fsync floor. */
export type AckLevel = {
  sessions: number
  server: Throughput
  floor: Throughput
  /** A bare node:http server doing the same durable append per POST (bench/bare-server.ts). */
  bare: Throughput
  /** The server with every session's first turn parked in a slow model: acknowledgements with no turn writes (measured at the top level only). */
  parked: Throughput | null
  /** Turns the sessions ran for the messages acknowledged in the whole run (warm-up included). */
  turns: number
  messages: number
  /** Longest time from the end of a window until every session was idle again (the turns' backlog). */
  drainMs: number
  /** CPUs this machine offers (the server, its clients and the floor share them). */
  cores: number
}

/** Acknowledgements of a busy session (a turn running) beside an idle one, one session. */
export type AckWhileTurn = { busyP50: number; busyP99: number; idleP50: number; idleP99: number; turnP50: number; messages: number }

/** Latencies (ms) of the operations that ended inside the timed window, its length, every operation run and their CPU time. */
type Window = { latencies: number[]; ms: number; all: number; cpuMs: number; clientCpuMs: number | null }

/** Runs `workers` closed loops of `op` for warm-up + duration; keeps the operations that end inside the timed part. */
async function closedLoops(workers: number, warmupMs: number, durationMs: number, op: (worker: number) => Promise<void>): Promise<Window> {
  const from = performance.now() + warmupMs
  const to = from + durationMs
  const latencies: number[] = []
  let all = 0
  const loop = async (worker: number): Promise<void> => {
    while (performance.now() < to) {
      const start = performance.now()
      await op(worker)
      const end = performance.now()
      all++
      if (end >= from && end < to) latencies.push(end - start)
    }
  }
  await Promise.all(Array.from({ length: workers }, (_, i) => loop(i)))
  return { latencies, ms: durationMs, all, cpuMs: 0, clientCpuMs: null }
}

/**
 * A window with the CPU time `cpuMs()` counted while it ran (and while `after` ran); for a server in another process
 * (`clients`), also this process's own CPU time while the window ran (its clients).
 */
async function withCpu(cpuMs: () => number, run: () => Promise<Window>, after: () => Promise<unknown> = async () => undefined, clients = false): Promise<Window> {
  const before = cpuMs()
  const ownBefore = ownCpuMs()
  const window = await run()
  const clientCpuMs = clients ? ownCpuMs() - ownBefore : null
  await after()
  return { ...window, cpuMs: cpuMs() - before, clientCpuMs }
}

/** This process's CPU time (user + system, all threads) in ms. */
function ownCpuMs(): number {
  const { user, system } = process.cpuUsage()
  return (user + system) / 1000
}

/** Pools windows into one throughput figure. */
function pooled(workers: number, windows: readonly Window[]): Throughput {
  const latencies = windows.flatMap((w) => w.latencies)
  const sum = (pick: (w: Window) => number): number => windows.reduce((total, w) => total + pick(w), 0)
  return {
    workers,
    ops: latencies.length,
    perSecond: latencies.length / (sum((w) => w.ms) / 1000),
    p50: latencies.length > 0 ? percentile(latencies, 50) : NaN,
    p99: latencies.length > 0 ? percentile(latencies, 99) : NaN,
    cpuMsPerOp: sum((w) => w.cpuMs) / sum((w) => w.all),
    clientCpuMsPerOp: windows.every((w) => w.clientCpuMs !== null) && windows.length > 0 ? sum((w) => w.clientCpuMs ?? 0) / sum((w) => w.all) : null,
  }
}

/** A ~300-byte JSON line like the `inbox/enqueued` event a message appends. */
function floorLine(worker: number, n: number): Buffer {
  const event = {
    seq: n,
    time: Date.now(),
    type: 'inbox/enqueued',
    data: {
      target: 'next-turn',
      message: {
        id: `msg-${worker.toString(36).padStart(4, '0')}${n.toString(36).padStart(8, '0')}`,
        role: 'user',
        content: [{ type: 'text', text: `What time is it? (message ${n})` }],
        source: { kind: 'user', rpcId: `rpc-${n.toString(36).padStart(12, '0')}`, clientTimeZone: 'Asia/Shanghai' },
      },
    },
  }
  return Buffer.from(`${JSON.stringify(event)}\n`)
}

/** The floor: `workers` files, each appended one ~300-byte line at a time, each followed by fdatasync. */
class AppendFsyncFloor {
  private readonly counts: number[]

  private constructor(private readonly handles: FileHandle[]) {
    this.counts = handles.map(() => 0)
  }

  /** Opens one file per worker in `dir`. */
  static async open(dir: string, workers: number): Promise<AppendFsyncFloor> {
    await mkdir(dir, { recursive: true })
    return new AppendFsyncFloor(await Promise.all(Array.from({ length: workers }, (_, i) => open(join(dir, `floor-${i}.jsonl`), 'a'))))
  }

  /** One timed window of every worker's loop. */
  run(warmupMs: number, durationMs: number): Promise<Window> {
    return withCpu(ownCpuMs, () =>
      closedLoops(this.handles.length, warmupMs, durationMs, async (worker) => {
        const line = floorLine(worker, this.counts[worker]++)
        await this.handles[worker].write(line, 0, line.length, null)
        await this.handles[worker].datasync()
      }),
    )
  }

  /** Closes the files. */
  async close(): Promise<void> {
    await Promise.all(this.handles.map((h) => h.close()))
  }
}

type SessionState = { session: { status: string } }

/** Waits until every session reports `idle`; resolves with the time it took. */
async function drain(client: BenchClient, ids: string[], timeoutMs: number): Promise<number> {
  const start = performance.now()
  for (const id of ids) {
    for (;;) {
      const { session } = await client.json<SessionState>('GET', `/api/sessions/${id}`, 200)
      if (session.status === 'idle') break
      if (performance.now() - start > timeoutMs) throw new Error(`session ${id} still running ${timeoutMs} ms after the last message`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }
  return performance.now() - start
}

type Page = { events: { type: string; data: { turn?: number } }[] }

async function turnsOf(client: BenchClient, id: string): Promise<number> {
  const { events } = await client.json<Page>('GET', `/api/sessions/${id}/events?limit=50`, 200)
  const end = events.findLast((e) => e.type === 'turn/end')
  return end?.data.turn ?? 0
}

const MESSAGE = (n: number): { text: string; clientTimeZone: string } => ({ text: `What time is it? (message ${n})`, clientTimeZone: 'Asia/Shanghai' })

/**
 * The real CLI (offline model, no delay) on a fresh data dir with `sessions` sessions; one client
 * per session POSTs messages one after another (the next as soon as the 202 arrives), sessions in
 * parallel. Each 202 means the message is durable (SPEC 2.5, 3.1).
 */
class AckServer {
  private messages = 0
  /** One connection per session's client (the same lean client as the bare server's). */
  private readonly connections: RawConnection[]

  private constructor(
    private readonly server: ServerProcess,
    private readonly client: BenchClient,
    private readonly ids: string[],
  ) {
    this.connections = ids.map(() => new RawConnection(new URL(server.url)))
  }

  /** Starts the CLI and creates the sessions. */
  static async start(dataDir: string, sessions: number, cli: CliOptions): Promise<AckServer> {
    const server = await startCli(dataDir, cli)
    const client = new BenchClient(server.url, sessions + 4)
    const ids = Array.from({ length: sessions }, (_, i) => `acks-${String(i).padStart(3, '0')}`)
    try {
      for (const id of ids) await client.json('POST', '/api/sessions', 201, { sessionId: id, timeZone: 'Asia/Shanghai' })
    } catch (error) {
      client.close()
      await server.stop()
      throw error
    }
    return new AckServer(server, client, ids)
  }

  /** One timed window of every session's client; then waits until every session is idle again. */
  async run(warmupMs: number, durationMs: number, waitIdle = true): Promise<{ window: Window; drainMs: number }> {
    let drainMs = 0
    const window = await withCpu(
      () => this.server.cpuMs(),
      () =>
        closedLoops(this.ids.length, warmupMs, durationMs, async (worker) => {
          const answer = await this.connections[worker].send('POST', `/api/sessions/${this.ids[worker]}/messages`, MESSAGE(this.messages++))
          if (answer.status !== 202) throw new Error(`message POST answered ${answer.status}: ${answer.body}`)
        }),
      async () => {
        if (waitIdle) drainMs = await drain(this.client, this.ids, 120_000)
      },
      true,
    )
    return { window, drainMs }
  }

  /** Messages sent so far. */
  get sent(): number {
    return this.messages
  }

  /** Turns run so far, summed over the sessions. */
  async turns(): Promise<number> {
    let turns = 0
    for (const id of this.ids) turns += await turnsOf(this.client, id)
    return turns
  }

  /** Stops the CLI. */
  async stop(): Promise<void> {
    for (const connection of this.connections) connection.close()
    this.client.close()
    await this.server.stop()
  }
}

/** The bare node:http server of bench/bare-server.ts, one file per session, the same clients. */
class BareAcks {
  private readonly connections: RawConnection[]

  private constructor(
    private readonly server: ServerProcess,
    workers: number,
  ) {
    this.connections = Array.from({ length: workers }, () => new RawConnection(new URL(server.url)))
  }

  /** Starts the bare server writing into `dir`. */
  static async start(dir: string, workers: number): Promise<BareAcks> {
    await mkdir(dir, { recursive: true })
    return new BareAcks(await startBare(dir), workers)
  }

  /** One timed window of every client. */
  run(warmupMs: number, durationMs: number): Promise<Window> {
    let n = 0
    return withCpu(
      () => this.server.cpuMs(),
      () =>
        closedLoops(this.connections.length, warmupMs, durationMs, async (worker) => {
          const answer = await this.connections[worker].send('POST', `/append/${worker}`, MESSAGE(n++))
          if (answer.status !== 202) throw new Error(`bare POST answered ${answer.status}: ${answer.body}`)
        }),
      undefined,
      true,
    )
  }

  /** Stops the server. */
  async stop(): Promise<void> {
    for (const connection of this.connections) connection.close()
    await this.server.stop()
  }
}

type Streamed = { type: string }

/** Notes when each `turn/end` of a session arrives on its stream. */
class TurnEnds {
  private readonly ends: number[] = []
  private waiter: { index: number; resolve: (at: number) => void } | null = null

  constructor(sse: SseReader) {
    void this.read(sse)
  }

  private async read(sse: SseReader): Promise<void> {
    try {
      for (;;) {
        const frame = await sse.next()
        if (frame.event !== 'session-event' || (JSON.parse(frame.data) as Streamed).type !== 'turn/end') continue
        this.ends.push(performance.now())
        if (this.waiter !== null && this.ends.length > this.waiter.index) {
          this.waiter.resolve(this.ends[this.waiter.index])
          this.waiter = null
        }
      }
    } catch {
      // the stream was closed at the end of the run
    }
  }

  /** Number of turn ends seen so far. */
  get count(): number {
    return this.ends.length
  }

  /** Resolves with the arrival time of the turn end number `index` (0-based). */
  next(index: number): Promise<number> {
    if (this.ends.length > index) return Promise.resolve(this.ends[index])
    return new Promise((resolve) => {
      this.waiter = { index, resolve }
    })
  }
}

/**
 * One session, blocks of 10 messages alternating: each POSTed as soon as the previous 202 arrived
 * (the previous message's turn still writing), then each POSTed only once the previous turn ended.
 * Acknowledgements that waited behind a running turn's writes would show as busy ≈ idle + turn.
 */
export async function acksWhileTurn(dataDir: string, messages: number): Promise<AckWhileTurn> {
  const server = await startCli(dataDir)
  const client = new BenchClient(server.url, 4)
  const controller = new AbortController()
  try {
    await client.json('POST', '/api/sessions', 201, { sessionId: 'acks-turn', timeZone: 'Asia/Shanghai' })
    const response = await fetch(`${server.url}/api/sessions/acks-turn/stream`, { signal: controller.signal })
    if (!response.body) throw new Error('no event stream body')
    const ends = new TurnEnds(new SseReader(response.body.getReader()))
    let sent = 0
    const post = async (): Promise<number> => {
      const start = performance.now()
      const answer = await client.send('POST', '/api/sessions/acks-turn/messages', MESSAGE(sent++))
      if (answer.status !== 202) throw new Error(`message POST answered ${answer.status}: ${answer.body}`)
      return performance.now() - start
    }
    const idle: number[] = []
    const busy: number[] = []
    const turn: number[] = []
    for (let block = -1; block < Math.ceil(messages / 10); block++) {
      const keep = block >= 0
      for (let i = 0; i < 10; i++) {
        const ack = await post()
        if (keep) busy.push(ack)
      }
      await ends.next(sent - 1)
      for (let i = 0; i < 10; i++) {
        const start = performance.now()
        const index = ends.count
        const ack = await post()
        const end = await ends.next(index)
        if (keep) {
          idle.push(ack)
          turn.push(end - start)
        }
      }
    }
    return {
      busyP50: percentile(busy, 50),
      busyP99: percentile(busy, 99),
      idleP50: percentile(idle, 50),
      idleP99: percentile(idle, 99),
      turnP50: percentile(turn, 50),
      messages: busy.length,
    }
  } finally {
    controller.abort()
    client.close()
    await server.stop()
  }
}

/**
 * The acknowledgement bench at each concurrency: every side first runs `processWarmupMs` of the
 * same load untimed (a fresh server's JIT and heap growth are not its throughput), then `rounds`
 * timed windows of the append+fsync floor and of the server, alternating, on the same disk;
 * latencies pooled over the rounds.
 */
export async function measureAcks(
  root: string,
  levels: readonly number[],
  rounds: number,
  warmupMs: number,
  durationMs: number,
  log: (line: string) => void,
  cli: CliOptions = {},
  processWarmupMs = 2000,
): Promise<AckLevel[]> {
  const out: AckLevel[] = []
  for (const sessions of levels) {
    const floor = await AppendFsyncFloor.open(join(root, `floor-${sessions}`), sessions)
    const top = sessions === levels[levels.length - 1]
    let server: AckServer | null = null
    let bare: BareAcks | null = null
    let parked: AckServer | null = null
    try {
      server = await AckServer.start(join(root, `server-${sessions}`), sessions, cli)
      bare = await BareAcks.start(join(root, `bare-${sessions}`), sessions)
      if (top) parked = await AckServer.start(join(root, `parked-${sessions}`), sessions, { ...cli, args: [...(cli.args ?? []), '--model-delay-ms', '3600000'] })
      const floorWindows: Window[] = []
      const bareWindows: Window[] = []
      const serverWindows: Window[] = []
      const parkedWindows: Window[] = []
      let drainMs = 0
      await floor.run(processWarmupMs, 0)
      await bare.run(processWarmupMs, 0)
      await server.run(processWarmupMs, 0)
      if (parked !== null) await parked.run(processWarmupMs, 0, false)
      for (let r = 0; r < rounds; r++) {
        floorWindows.push(await floor.run(warmupMs, durationMs))
        bareWindows.push(await bare.run(warmupMs, durationMs))
        const run = await server.run(warmupMs, durationMs)
        serverWindows.push(run.window)
        drainMs = Math.max(drainMs, run.drainMs)
        if (parked !== null) parkedWindows.push((await parked.run(warmupMs, durationMs, false)).window)
      }
      const messages = server.sent
      const level: AckLevel = {
        sessions,
        server: pooled(sessions, serverWindows),
        floor: pooled(sessions, floorWindows),
        bare: pooled(sessions, bareWindows),
        parked: parked === null ? null : pooled(sessions, parkedWindows),
        turns: await server.turns(),
        messages,
        drainMs,
        cores: availableParallelism(),
      }
      log(
        `acks at ${sessions} sessions: ${level.server.perSecond.toFixed(0)}/s (p50 ${level.server.p50.toFixed(1)} ms, p99 ${level.server.p99.toFixed(1)} ms) ` +
          `vs append+fsync ${level.floor.perSecond.toFixed(0)}/s (p50 ${level.floor.p50.toFixed(2)} ms, p99 ${level.floor.p99.toFixed(2)} ms), ` +
          `bare HTTP ${level.bare.perSecond.toFixed(0)}/s (p99 ${level.bare.p99.toFixed(1)} ms); ` +
          `${messages} messages in ${level.turns} turns, drained in ≤ ${drainMs.toFixed(0)} ms; CPU per message: server ${level.server.cpuMsPerOp.toFixed(2)} ms, ` +
          `bare ${level.bare.cpuMsPerOp.toFixed(3)} ms, floor ${level.floor.cpuMsPerOp.toFixed(3)} ms` +
          (level.parked === null ? '' : `; turns parked in the model: ${level.parked.perSecond.toFixed(0)}/s (p99 ${level.parked.p99.toFixed(1)} ms, CPU ${level.parked.cpuMsPerOp.toFixed(2)} ms per message)`) +
          `; ${cpuBudgetText(level)}`,
      )
      out.push(level)
    } finally {
      await server?.stop()
      await parked?.stop()
      await bare?.stop()
      await floor.close()
    }
  }
  return out
}

/** CPU of a server and its clients per message, when both were measured. */
function withClients(t: Throughput): number {
  return t.cpuMsPerOp + (t.clientCpuMsPerOp ?? NaN)
}

/**
 * The CPU the ack target leaves per message on this machine: at half the floor's rate, every core's time over that
 * many messages, for the server and its clients together (the floor's own fsyncs aside).
 */
export function cpuBudget(level: AckLevel): { rate: number; budgetMs: number; bareMs: number; serverMs: number; parkedMs: number | null } {
  const rate = level.floor.perSecond / 2
  return {
    rate,
    budgetMs: (level.cores * 1000) / rate,
    bareMs: withClients(level.bare),
    serverMs: withClients(level.server),
    parkedMs: level.parked === null ? null : withClients(level.parked),
  }
}

/** The CPU budget in words, for the log line and the report. */
export function cpuBudgetText(level: AckLevel): string {
  const b = cpuBudget(level)
  const share = (ms: number): string => `${ms.toFixed(3)} ms (${(ms / b.budgetMs).toFixed(2)} of it)`
  return (
    `CPU budget at half the floor (${b.rate.toFixed(0)}/s on ${level.cores} cores): ${b.budgetMs.toFixed(3)} ms per message for server and clients together; ` +
    `used: bare node:http + clients ${share(b.bareMs)}, server + clients ${share(b.serverMs)}` +
    (b.parkedMs === null ? '' : `, with turns parked ${share(b.parkedMs)}`)
  )
}
