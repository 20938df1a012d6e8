import { spawn, type ChildProcess } from 'node:child_process'
import { Agent, request } from 'node:http'
import { fileURLToPath } from 'node:url'
import pg from 'pg'
import { PostgresStore } from '../src/host/index.ts'
import { runStoreCheck } from '../src/server/check.ts'
import { checkFolds } from '../src/server/compose.ts'
import { APP_ROLE, EmbeddedDatabase } from '../src/server/embedded-database.ts'
import { median, percentile } from './measure.ts'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

/** The PostgreSQL figures of SPEC 12.1, both sides measured in the same run. */
export type PostgresFigures = {
  sessions: number
  seconds: number
  rounds: number
  modelDelayMs: number
  /** Bare `BEGIN; INSERT …; COMMIT` loops: commits/s with 10 and with one connection per loop. */
  floorPooled: number
  floorDirect: number
  /** 202 answers/s of `POST /messages` through the real server, and their latency (ms). */
  acks: number
  ackP50: number
  ackP99: number
  /** Median over rounds of acks/s over the better floor of the same round (SPEC 12.1 target ≥ 0.5). */
  ratio: number
  /** Sessions `check --database-url` passed after the run (of `sessions`). */
  checked: number
  /** Failover (SPEC 14.3): the lease length and, per kill -9 of the owner mid-turn, the time until another replica closed the turn (ms). */
  leaseMs: number
  failovers: number[]
}

/** A typical `inbox/enqueued` event, the row the floor inserts (the same size as the server's). */
function floorPayload(seq: number): string {
  return JSON.stringify({
    seq,
    time: Date.now(),
    type: 'inbox/enqueued',
    data: {
      target: 'next-turn',
      message: {
        id: 'msg-0123456789abcdefghijkl',
        role: 'user',
        content: [{ type: 'text', text: `What time is it? (message ${seq})` }],
        source: { kind: 'user', rpcId: 'rpc-0123456789abcdefghijkl', clientTimeZone: 'America/New_York' },
      },
    },
  })
}

/** Commits/s of `loops` concurrent bare `BEGIN; INSERT …; COMMIT` loops over `connections` connections, for `ms`. */
async function floor(url: string, loops: number, connections: number, ms: number, tag: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: url, max: connections })
  pool.on('error', () => undefined)
  let commits = 0
  let stop = false
  const loop = async (worker: number): Promise<void> => {
    for (let seq = 0; !stop; seq++) {
      const client = await pool.connect()
      try {
        await client.query('BEGIN')
        await client.query({ name: 'floor-insert', text: 'INSERT INTO bench_floor VALUES ($1, $2, $3)', values: [`${tag}-${worker}`, seq, floorPayload(seq)] })
        await client.query('COMMIT')
      } finally {
        client.release()
      }
      commits++
    }
  }
  const started = performance.now()
  const running = Array.from({ length: loops }, (_, i) => loop(i))
  await new Promise((resolve) => setTimeout(resolve, ms))
  stop = true
  await Promise.all(running)
  const rate = commits / ((performance.now() - started) / 1000)
  await pool.end()
  await settle(url)
  return rate
}

/** Waits until the backends of a finished floor loop have exited (at most the server's pool and one more remain). */
async function settle(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    for (let i = 0; i < 200; i++) {
      const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE backend_type = 'client backend'")
      if (rows[0].n <= 12) return
      await new Promise((resolve) => setTimeout(resolve, 25))
    }
  } finally {
    await client.end()
  }
}

function startServer(databaseUrl: string, modelDelayMs: number, extra: string[] = []): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/server/cli.ts', 'serve', '--port', '0', '--no-build', '--database-url', databaseUrl, '--model-delay-ms', String(modelDelayMs), ...extra],
    { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, SCHEDULE_WEB_TOKEN: '', PORT: '', DATABASE_URL: '' } },
  )
  let err = ''
  child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString()
      const match = /^listening on (\S+)\n/.exec(out)
      if (match) resolve({ child, url: match[1] })
    })
    child.once('exit', (code) => reject(new Error(`server exited (${code}) before listening: ${err}`)))
  })
}

function post(agent: Agent, url: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume()
      res.once('end', () => resolve(res.statusCode ?? 0))
    })
    req.once('error', reject)
    req.end(body)
  })
}

/** 202 answers/s of `sessions` concurrent closed loops of `POST /messages` (one session each), for `ms`; latencies pushed to `latencies`. */
async function serverLoad(agent: Agent, base: string, ids: readonly string[], ms: number, latencies: number[] | null): Promise<number> {
  let acks = 0
  let stop = false
  const loop = async (id: string): Promise<void> => {
    for (let i = 1; !stop; i++) {
      const body = JSON.stringify({ text: `What time is it? (message ${i})`, clientTimeZone: 'America/New_York' })
      const start = performance.now()
      const status = await post(agent, `${base}/api/sessions/${id}/messages`, body)
      if (status !== 202) throw new Error(`POST /messages answered ${status}`)
      latencies?.push(performance.now() - start)
      acks++
    }
  }
  const started = performance.now()
  const running = ids.map(loop)
  await new Promise((resolve) => setTimeout(resolve, ms))
  stop = true
  await Promise.all(running)
  return acks / ((performance.now() - started) / 1000)
}

/**
 * SPEC 12.1, PostgreSQL store: acknowledged messages/s at `sessions` concurrent sessions through
 * the real server (its own process, offline model answering after `modelDelayMs`) on a real
 * embedded PostgreSQL with fsync on, against bare `BEGIN; INSERT …; COMMIT` loops of the same
 * concurrency on the same server, interleaved over `rounds`; then every session passes `check`.
 */
export async function measurePostgres(
  dataDir: string,
  options: { sessions: number; seconds: number; rounds: number; modelDelayMs: number; leaseMs: number; failovers: number; log: (line: string) => void },
): Promise<PostgresFigures> {
  const db = await EmbeddedDatabase.start({ dataDir, port: 0 })
  const agent = new Agent({ keepAlive: true, maxSockets: options.sessions })
  let server: ChildProcess | null = null
  try {
    const setup = new pg.Client({ connectionString: db.url })
    await setup.connect()
    await setup.query('CREATE TABLE bench_floor (session_id text NOT NULL, seq bigint NOT NULL, event_json text NOT NULL, PRIMARY KEY (session_id, seq))')
    await setup.end()
    const started = await startServer(db.url, options.modelDelayMs)
    server = started.child
    const ids = Array.from({ length: options.sessions }, (_, i) => `bench-pg-${i}`)
    for (const id of ids) {
      const status = await post(agent, `${started.url}/api/sessions`, JSON.stringify({ sessionId: id, timeZone: 'Asia/Shanghai' }))
      if (status !== 201) throw new Error(`session create answered ${status}`)
    }
    const ms = options.seconds * 1000
    await serverLoad(agent, started.url, ids, 3000, null)
    await floor(db.url, options.sessions, 10, 1000, 'warm')
    const pooled: number[] = []
    const direct: number[] = []
    const acks: number[] = []
    const ratios: number[] = []
    const latencies: number[] = []
    for (let round = 0; round < options.rounds; round++) {
      pooled.push(await floor(db.url, options.sessions, 10, ms, `p${round}`))
      acks.push(await serverLoad(agent, started.url, ids, ms, latencies))
      direct.push(await floor(db.url, options.sessions, options.sessions, ms, `d${round}`))
      ratios.push((acks[round] as number) / Math.max(pooled[round] as number, direct[round] as number))
      options.log(
        `postgres round ${round + 1}: floor ${pooled[round]?.toFixed(0)} commits/s (10 connections), ${direct[round]?.toFixed(0)} (one per loop); ` +
          `server ${acks[round]?.toFixed(0)} acks/s; ratio ${ratios[round]?.toFixed(2)}`,
      )
    }
    server.kill('SIGTERM')
    await new Promise((resolve) => server?.once('exit', resolve))
    server = null
    const store = await PostgresStore.open({ url: db.url, schema: 'verify' })
    const lines: string[] = []
    try {
      await runStoreCheck(store, [], await checkFolds(), (line) => lines.push(line))
    } finally {
      await store.close()
    }
    // The throughput phase leaves sessions with queued turns behind; a survivor on that database
    // would adopt them as orphans while the timed session waits. Failover gets a database of its own.
    const admin = new pg.Client({ connectionString: db.adminUrl })
    await admin.connect()
    await admin.query(`CREATE DATABASE bench_failover OWNER ${APP_ROLE}`)
    await admin.end()
    const failovers: number[] = []
    for (let round = 0; round < options.failovers; round++) {
      failovers.push(await failover(db.urlFor('bench_failover'), options.leaseMs, `bench-failover-${round}`, agent))
      options.log(`postgres failover ${round + 1}: ${failovers[round]?.toFixed(0)} ms after kill -9 (lease ${options.leaseMs} ms)`)
    }
    return {
      leaseMs: options.leaseMs,
      failovers,
      sessions: options.sessions,
      seconds: options.seconds,
      rounds: options.rounds,
      modelDelayMs: options.modelDelayMs,
      floorPooled: median(pooled),
      floorDirect: median(direct),
      acks: median(acks),
      ratio: median(ratios),
      ackP50: percentile(latencies, 50),
      ackP99: percentile(latencies, 99),
      checked: lines.filter((line) => line.startsWith('ok ')).length,
    }
  } finally {
    agent.destroy()
    server?.kill('SIGKILL')
    await db.stop()
  }
}

/**
 * One failover (SPEC 14.3): two replicas on the database; the owner of a session is killed (-9)
 * while a turn runs; the time from the kill until the other replica has closed that turn as
 * interrupted (the event's time, on the survivor's clock, which is this machine's).
 */
async function failover(databaseUrl: string, leaseMs: number, id: string, agent: Agent): Promise<number> {
  const lease = ['--lease-ms', String(leaseMs)]
  const owner = await startServer(databaseUrl, 600_000, [...lease, '--replica-id', 'owner'])
  const survivor = await startServer(databaseUrl, 0, [...lease, '--replica-id', 'survivor'])
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    if ((await post(agent, `${owner.url}/api/sessions`, JSON.stringify({ sessionId: id, timeZone: 'UTC' }))) !== 201) throw new Error('failover: create failed')
    if ((await post(agent, `${owner.url}/api/sessions/${id}/messages`, JSON.stringify({ text: 'a long turn', clientTimeZone: 'UTC' }))) !== 202) {
      throw new Error('failover: message refused')
    }
    const turnEnd = async (): Promise<number | null> => {
      const rows = await client.query<{ event_json: string }>(`SELECT event_json FROM schedule_web.events WHERE session_id = $1 AND type = 'turn/end' ORDER BY seq LIMIT 1`, [id])
      return rows.rows.length === 0 ? null : (JSON.parse(rows.rows[0].event_json) as { time: number }).time
    }
    for (;;) {
      const rows = await client.query(`SELECT 1 FROM schedule_web.events WHERE session_id = $1 AND type = 'request/header'`, [id])
      if (rows.rows.length > 0) break
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const killedAt = Date.now()
    owner.child.kill('SIGKILL')
    const deadline = killedAt + leaseMs * 10 + 30_000
    for (;;) {
      const at = await turnEnd()
      if (at !== null) return at - killedAt
      if (Date.now() > deadline) throw new Error('failover: no replica took the session over')
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
  } finally {
    await client.end()
    owner.child.kill('SIGKILL')
    survivor.child.kill('SIGTERM')
    await new Promise((resolve) => survivor.child.once('exit', resolve))
  }
}
