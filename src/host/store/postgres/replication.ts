import pg from 'pg'
import { StoreError } from '../store-error.ts'
import type { AssistantDelta } from '../../../protocol/index.ts'
import type { CommandRun, ReplicaAnswer, ReplicaCommand, Replication } from '../store.ts'
import { SCHEMA } from './migrations.ts'
import { failureText, sqlState, unavailable } from './pg-failure.ts'
import { checkout } from './pool-client.ts'

/** PostgreSQL's SQLSTATE for a row naming a key that does not exist. */
const FOREIGN_KEY_VIOLATION = '23503'

/** The database clock in epoch ms: every replica reads lease expiry on the same clock. */
export const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint'

/**
 * NOTIFY channels: durable appends (`<id> <eventCount> <openTurn> <firstSeq>`, the seq the append began at last, which
 * a replica of an earlier version leaves out), commands waiting (`<sessionId>`), commands answered (`<commandId>`).
 */
export const EVENTS_CHANNEL = 'schedule_web_events'
const COMMANDS_CHANNEL = 'schedule_web_commands'
const ANSWERS_CHANNEL = 'schedule_web_answers'
/** NOTIFY channel of streamed text: `{"o": <owner>, "s": [[id, turn, step, text] | [id], …]}`, pieces in the order they streamed ([id]: nothing streams now). */
const STREAMING_CHANNEL = 'schedule_web_streaming'

/** Streamed text waits this long at most to be shared, so that one notification carries many pieces. */
const STREAMING_BATCH_MS = 20
/** Most characters of text one entry carries: a notification's payload must stay under 8,000 bytes, and JSON may write a character in 6. */
const STREAMING_PIECE_CHARS = 1000
const STREAMING_PAYLOAD_BYTES = 7900

type StreamingEntry = [id: string, turn: number, step: number, text: string] | [id: string]

/** Joins consecutive pieces of one step while they stay short enough for one entry. */
function coalesce(entries: readonly StreamingEntry[]): StreamingEntry[] {
  const out: StreamingEntry[] = []
  for (const entry of entries) {
    const last = out.at(-1)
    if (
      last !== undefined && last.length === 4 && entry.length === 4 &&
      last[0] === entry[0] && last[1] === entry[1] && last[2] === entry[2] && last[3].length + entry[3].length <= STREAMING_PIECE_CHARS
    ) {
      out[out.length - 1] = [last[0], last[1], last[2], last[3] + entry[3]]
    } else out.push(entry)
  }
  return out
}

/** The notification payloads that carry `entries` in order, each under the size PostgreSQL allows. */
function streamingPayloads(owner: string, entries: readonly StreamingEntry[]): string[] {
  const payloads: string[] = []
  const base = Buffer.byteLength(JSON.stringify({ o: owner, s: [] }))
  let batch: StreamingEntry[] = []
  let size = base
  for (const entry of coalesce(entries)) {
    const bytes = Buffer.byteLength(JSON.stringify(entry)) + 1
    if (batch.length > 0 && size + bytes > STREAMING_PAYLOAD_BYTES) {
      payloads.push(JSON.stringify({ o: owner, s: batch }))
      batch = []
      size = base
    }
    batch.push(entry)
    size += bytes
  }
  if (batch.length > 0) payloads.push(JSON.stringify({ o: owner, s: batch }))
  return payloads
}

/** The entries of a streaming notification another replica sent, or null when it is not one. */
function streamingEntries(payload: string, owner: string): StreamingEntry[] | null {
  let parsed: unknown
  try {
    parsed = JSON.parse(payload)
  } catch {
    return null
  }
  const { o, s } = (parsed ?? {}) as { o?: unknown; s?: unknown }
  if (typeof o !== 'string' || o === owner || !Array.isArray(s)) return null
  const valid = (entry: unknown): entry is StreamingEntry =>
    Array.isArray(entry) &&
    typeof entry[0] === 'string' &&
    (entry.length === 1 || (entry.length === 4 && Number.isSafeInteger(entry[1]) && Number.isSafeInteger(entry[2]) && typeof entry[3] === 'string'))
  return s.every(valid) ? s : null
}

/** How long a forwarded command may wait for an owner's answer before the request answers 503. */
const COMMAND_TIMEOUT_MS = 30_000

/** Answered commands are kept this long (longer than any wait for them), then deleted, at most once a minute. */
const ANSWER_KEPT_MS = 10 * 60_000
const PRUNE_EVERY_MS = 60_000

/** How to run the replication of one store. */
export type ReplicationOptions = {
  /** This replica's name; a random suffix makes every process its own lease owner. */
  owner: string
  /** How long a lease lasts unless renewed (renewed every third of it, SPEC 14.3). */
  leaseMs: number
  log: (line: string) => void
}

type Held = { token: number; renewedAt: number }
type Waiting = { resolve: (answer: ReplicaAnswer) => void; sessionId: string }

const CLAIM = `INSERT INTO ${SCHEMA}.leases AS l (session_id, owner, token, expires_at) VALUES ($1, $2, 1, ${NOW_MS} + $3)
  ON CONFLICT (session_id) DO UPDATE SET owner = EXCLUDED.owner, token = l.token + 1, expires_at = EXCLUDED.expires_at
  WHERE l.expires_at < ${NOW_MS}
  RETURNING token`

const RENEW = `UPDATE ${SCHEMA}.leases AS l SET expires_at = ${NOW_MS} + $3
  FROM unnest($1::text[], $2::bigint[]) AS t (id, token)
  WHERE l.session_id = t.id AND l.token = t.token AND l.owner = $4 AND l.expires_at >= ${NOW_MS}
  RETURNING l.session_id`

/**
 * Replicas of one PostgreSQL database (SPEC 14.3). A session's lease is a row (owner, fencing
 * token, expiry on the database clock) taken only when free or lapsed and renewed every third of
 * its length; every append is fenced by it (see group-commit.ts), so a replica that lost it can
 * never write. Appends NOTIFY their session's new count, which a dedicated LISTEN connection hands
 * to the host (with a poll of watched sessions as backstop); commands for a session held elsewhere
 * are rows its owner runs and answers.
 */
export class PostgresReplication implements Replication {
  readonly owner: string
  readonly leaseMs: number
  private readonly held = new Map<string, Held>()
  private readonly lostListeners: ((id: string) => void)[] = []
  private readonly appendedListeners: ((id: string, eventCount: number, openTurn: boolean, firstSeq: number | null) => void)[] = []
  private readonly watched = new Set<string>()
  private readonly counts = new Map<string, { count: number; openTurn: boolean }>()
  private readonly waiting = new Map<string, Waiting>()
  private readonly running = new Map<string, Promise<void>>()
  private readonly streamingListeners: ((id: string, piece: AssistantDelta | null) => void)[] = []
  /** Streamed text not yet sent, in order. */
  private streamingQueue: StreamingEntry[] = []
  private streamingTimer: NodeJS.Timeout | null = null
  /** Settles once everything handed to the database so far has been sent (one notification at a time, in order). */
  private streamingSent: Promise<void> = Promise.resolve()
  /** Per session, entries queued or on their way. */
  private readonly streamingUnsent = new Map<string, number>()
  private handler: ((id: string, command: ReplicaCommand, run: CommandRun) => Promise<ReplicaAnswer>) | null = null
  private listener: pg.Client | null = null
  private timers: NodeJS.Timeout[] = []
  private stopped = false
  private listening = false
  private lastPrune = 0

  constructor(
    private readonly pool: pg.Pool,
    private readonly connection: pg.ClientConfig,
    private readonly options: ReplicationOptions,
  ) {
    this.owner = options.owner
    this.leaseMs = options.leaseMs
  }

  /** Starts listening and the renewal and backstop timers. */
  async start(): Promise<void> {
    await this.listen()
    const renew = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.options.leaseMs / 3)))
    const poll = setInterval(() => void this.poll(), Math.max(100, Math.floor(this.options.leaseMs / 4)))
    renew.unref()
    poll.unref()
    this.timers.push(renew, poll)
  }

  private async listen(): Promise<void> {
    if (this.stopped || this.listening) return
    this.listening = true
    const client = new pg.Client(this.connection)
    client.on('error', () => undefined)
    client.on('notification', (message) => this.notified(message.channel, message.payload ?? ''))
    client.on('end', () => {
      if (this.listener !== client) return
      this.listener = null
      this.listening = false
      if (this.stopped) return
      const retry = setTimeout(() => void this.listen(), 500)
      retry.unref()
      this.timers.push(retry)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${EVENTS_CHANNEL}; LISTEN ${COMMANDS_CHANNEL}; LISTEN ${ANSWERS_CHANNEL}; LISTEN ${STREAMING_CHANNEL}`)
      this.listener = client
      void this.poll()
    } catch {
      this.listening = false
      await client.end().catch(() => undefined)
      if (this.stopped) return
      const retry = setTimeout(() => void this.listen(), 500)
      retry.unref()
      this.timers.push(retry)
    }
  }

  private notified(channel: string, payload: string): void {
    if (channel === EVENTS_CHANNEL) {
      const [id, count, open, first] = payload.split(' ')
      if (id !== undefined && count !== undefined) this.appended(id, Number(count), open === 'true', first === undefined ? null : Number(first))
    } else if (channel === COMMANDS_CHANNEL) {
      if (this.held.has(payload)) this.runCommands(payload)
    } else if (channel === ANSWERS_CHANNEL) {
      if (this.waiting.has(payload)) void this.collect([payload])
    } else if (channel === STREAMING_CHANNEL) {
      for (const entry of streamingEntries(payload, this.owner) ?? []) {
        const piece = entry.length === 1 ? null : { turn: entry[1], step: entry[2], text: entry[3] }
        for (const listener of this.streamingListeners) listener(entry[0], piece)
      }
    }
  }

  shareStreaming(id: string, piece: AssistantDelta | null): void {
    if (this.stopped) return
    if (piece === null) {
      this.queueStreaming([id])
      return
    }
    let at = 0
    while (at < piece.text.length) {
      let end = Math.min(piece.text.length, at + STREAMING_PIECE_CHARS)
      // never part a surrogate pair
      if (end < piece.text.length && /[\uD800-\uDBFF]/.test(piece.text[end - 1])) end--
      this.queueStreaming([id, piece.turn, piece.step, piece.text.slice(at, end)])
      at = end
    }
  }

  onStreaming(listener: (id: string, piece: AssistantDelta | null) => void): void {
    this.streamingListeners.push(listener)
  }

  /**
   * Sends the streamed text of a session still waiting to go, before that session's next append
   * commits: notifications reach other replicas in commit order, so a reader there never gets a
   * piece of an answer after the answer itself. Null when nothing of it waits.
   */
  streamingFlushed(id: string): Promise<void> | null {
    if ((this.streamingUnsent.get(id) ?? 0) === 0) return null
    if (this.streamingTimer !== null) this.sendStreaming()
    return this.streamingSent
  }

  private queueStreaming(entry: StreamingEntry): void {
    this.streamingQueue.push(entry)
    this.streamingUnsent.set(entry[0], (this.streamingUnsent.get(entry[0]) ?? 0) + 1)
    if (this.streamingTimer === null) {
      this.streamingTimer = setTimeout(() => this.sendStreaming(), STREAMING_BATCH_MS)
      this.streamingTimer.unref()
    }
  }

  /** Hands the queued streamed text to the database, after whatever went before it; a failure loses only that text (it is transient). */
  private sendStreaming(): void {
    if (this.streamingTimer !== null) clearTimeout(this.streamingTimer)
    this.streamingTimer = null
    const entries = this.streamingQueue
    this.streamingQueue = []
    const payloads = streamingPayloads(this.owner, entries)
    this.streamingSent = this.streamingSent.then(async () => {
      try {
        for (const payload of payloads) await this.pool.query('SELECT pg_notify($1, $2)', [STREAMING_CHANNEL, payload])
      } catch {
        // the answer itself is durable and replaces its streamed text
      } finally {
        for (const [id] of entries) {
          const left = (this.streamingUnsent.get(id) ?? 1) - 1
          if (left > 0) this.streamingUnsent.set(id, left)
          else this.streamingUnsent.delete(id)
        }
      }
    })
  }

  /**
   * Hands on a count higher than any heard before, and every append's own notification even when a poll read a
   * later count first: that one hands on where its append began with the newest count and status heard, so the
   * events from there on are told (a poll carries no start, and notifications of appends that followed it carry
   * later starts only).
   */
  private appended(id: string, count: number, openTurn: boolean, firstSeq: number | null): void {
    const known = this.counts.get(id)
    if (known !== undefined && (count < known.count || (count === known.count && firstSeq === null))) {
      if (firstSeq === null) return
      for (const listener of this.appendedListeners) listener(id, known.count, known.openTurn, firstSeq)
      return
    }
    this.counts.set(id, { count, openTurn })
    for (const listener of this.appendedListeners) listener(id, count, openTurn, firstSeq)
  }

  holds(id: string): boolean {
    const lease = this.held.get(id)
    return lease !== undefined && performance.now() - lease.renewedAt < this.options.leaseMs
  }

  /** The fencing token of a held session, for its writer's appends. */
  tokenOf(id: string): number | null {
    return this.holds(id) ? (this.held.get(id) as Held).token : null
  }

  async claim(id: string): Promise<boolean> {
    if (this.holds(id)) return true
    const started = performance.now()
    let rows: { token: string }[]
    try {
      rows = (await this.pool.query<{ token: string }>(CLAIM, [id, this.owner, this.options.leaseMs])).rows
    } catch (error) {
      // a lease names its session (a foreign key): none for a session that does not exist
      if (sqlState(error) === FOREIGN_KEY_VIOLATION) throw new StoreError('not-found', `session ${id} does not exist`)
      throw unavailable(`session ${id}`, error)
    }
    if (rows.length === 0) return false
    this.held.set(id, { token: Number(rows[0].token), renewedAt: started })
    this.runCommands(id)
    return true
  }

  async release(id: string): Promise<void> {
    const lease = this.held.get(id)
    if (lease === undefined) return
    this.held.delete(id)
    await this.pool
      .query(`UPDATE ${SCHEMA}.leases SET expires_at = 0 WHERE session_id = $1 AND owner = $2 AND token = $3`, [id, this.owner, lease.token])
      .catch(() => undefined)
  }

  onLost(listener: (id: string) => void): void {
    this.lostListeners.push(listener)
  }

  onAppended(listener: (id: string, eventCount: number, openTurn: boolean, firstSeq: number | null) => void): void {
    this.appendedListeners.push(listener)
  }

  watch(id: string, watching: boolean): void {
    if (watching) this.watched.add(id)
    else this.watched.delete(id)
  }

  onCommand(handler: (id: string, command: ReplicaCommand, run: CommandRun) => Promise<ReplicaAnswer>): void {
    this.handler = handler
  }

  private lose(id: string): void {
    if (!this.held.delete(id)) return
    for (const listener of this.lostListeners) listener(id)
  }

  private async renew(): Promise<void> {
    if (this.stopped || this.held.size === 0) return
    const started = performance.now()
    const entries = [...this.held]
    try {
      const rows = (
        await this.pool.query<{ session_id: string }>(RENEW, [entries.map(([id]) => id), entries.map(([, lease]) => lease.token), this.options.leaseMs, this.owner])
      ).rows
      const renewed = new Set(rows.map((row) => row.session_id))
      for (const [id, lease] of entries) {
        if (this.held.get(id) !== lease) continue
        if (renewed.has(id)) lease.renewedAt = started
        else this.lose(id)
      }
    } catch {
      // the database does not answer: a lease not renewed in time is lost here too (another replica may take it)
      for (const [id, lease] of entries) if (performance.now() - lease.renewedAt >= this.options.leaseMs) this.lose(id)
    }
  }

  private async poll(): Promise<void> {
    if (this.stopped) return
    try {
      if (performance.now() - this.lastPrune > PRUNE_EVERY_MS) {
        this.lastPrune = performance.now()
        await this.pool.query(`DELETE FROM ${SCHEMA}.commands WHERE result IS NOT NULL AND created_at < ${NOW_MS} - $1`, [ANSWER_KEPT_MS])
        await this.pool.query(`DELETE FROM ${SCHEMA}.command_runs AS r WHERE NOT EXISTS (SELECT 1 FROM ${SCHEMA}.commands AS c WHERE c.id = r.command_id)`)
      }
      const watched = [...this.watched].filter((id) => !this.held.has(id))
      if (watched.length > 0) {
        const rows = (
          await this.pool.query<{ id: string; event_count: string; open_turn: boolean }>(
            `SELECT id, event_count, open_turn FROM ${SCHEMA}.sessions WHERE id = ANY($1)`,
            [watched],
          )
        ).rows
        for (const row of rows) this.appended(row.id, Number(row.event_count), row.open_turn, null)
      }
      if (this.waiting.size > 0) await this.collect([...this.waiting.keys()])
      if (this.held.size > 0) {
        const rows = (
          await this.pool.query<{ session_id: string }>(
            `SELECT DISTINCT session_id FROM ${SCHEMA}.commands WHERE result IS NULL AND session_id = ANY($1)`,
            [[...this.held.keys()]],
          )
        ).rows
        for (const row of rows) this.runCommands(row.session_id)
      }
    } catch {
      // the backstop tries again at its next tick
    }
  }

  async submit(id: string, command: ReplicaCommand): Promise<ReplicaAnswer> {
    let commandId: string
    try {
      const rows = (
        await this.pool.query<{ id: string }>(
          `WITH added AS (INSERT INTO ${SCHEMA}.commands (session_id, body, created_at) VALUES ($1, $2, ${NOW_MS}) RETURNING id)
           SELECT id, pg_notify('${COMMANDS_CHANNEL}', $1) FROM added`,
          [id, JSON.stringify(command)],
        )
      ).rows
      commandId = rows[0].id
    } catch (error) {
      throw unavailable(`session ${id}`, error)
    }
    return new Promise<ReplicaAnswer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(commandId)
        reject(new StoreError('unavailable', `storage for session ${id} is unavailable: no replica answered the request in time`, { retryAfterMs: 1000 }))
      }, COMMAND_TIMEOUT_MS)
      this.waiting.set(commandId, {
        sessionId: id,
        resolve: (answer) => {
          clearTimeout(timer)
          resolve(answer)
        },
      })
      if (this.held.has(id)) this.runCommands(id)
    })
  }

  private async collect(ids: string[]): Promise<void> {
    const rows = (
      await this.pool.query<{ id: string; result: string }>(`SELECT id, result FROM ${SCHEMA}.commands WHERE id = ANY($1) AND result IS NOT NULL`, [ids])
    ).rows
    for (const row of rows) {
      const waiting = this.waiting.get(row.id)
      if (waiting === undefined) continue
      this.waiting.delete(row.id)
      waiting.resolve(JSON.parse(row.result) as ReplicaAnswer)
    }
  }

  /** Runs the waiting commands of a held session, one session's commands in order, each answered in the transaction that took it. */
  private runCommands(id: string): void {
    if (this.handler === null || this.running.has(id)) return
    const run = this.drain(id).finally(() => this.running.delete(id))
    this.running.set(id, run)
  }

  /**
   * Notes, outside the transaction that took the command (so it outlives an owner that dies before
   * answering), that a command starts here, with the session's durable event count; a command
   * started before is a rerun, from the count its first run noted.
   */
  private async startRun(commandId: string, sessionId: string): Promise<CommandRun> {
    const rows = (
      await this.pool.query<{ from_seq: string; rerun: boolean }>(
        `WITH added AS (
           INSERT INTO ${SCHEMA}.command_runs (command_id, from_seq)
           SELECT $1, event_count FROM ${SCHEMA}.sessions WHERE id = $2
           ON CONFLICT (command_id) DO NOTHING RETURNING from_seq)
         SELECT from_seq, false AS rerun FROM added
         UNION ALL SELECT from_seq, true AS rerun FROM ${SCHEMA}.command_runs WHERE command_id = $1`,
        [commandId, sessionId],
      )
    ).rows
    // one row: the one just added, or else the first run's (the outer select does not see what the insert adds)
    const row = rows[0]
    if (row === undefined) throw new Error(`session ${sessionId} has no row`)
    return { rerun: row.rerun, fromSeq: Number(row.from_seq) }
  }

  private async drain(id: string): Promise<void> {
    const handler = this.handler
    if (handler === null) return
    for (;;) {
      if (!this.holds(id) || this.stopped) return
      let client: pg.PoolClient
      try {
        client = await checkout(this.pool)
      } catch {
        return
      }
      let taken = 0
      let broken = false
      try {
        await client.query('BEGIN')
        const rows = (
          await client.query<{ id: string; body: string }>(
            `SELECT id, body FROM ${SCHEMA}.commands WHERE session_id = $1 AND result IS NULL ORDER BY id LIMIT 16 FOR UPDATE SKIP LOCKED`,
            [id],
          )
        ).rows
        taken = rows.length
        for (const row of rows) {
          const run = await this.startRun(row.id, id)
          const answer = await handler(id, JSON.parse(row.body) as ReplicaCommand, run).catch(
            (error: unknown): ReplicaAnswer => ({ ok: false, error: { name: 'Error', message: failureText(error) } }),
          )
          await client.query(`UPDATE ${SCHEMA}.commands SET result = $2 WHERE id = $1 AND result IS NULL`, [row.id, JSON.stringify(answer)])
          await client.query(`SELECT pg_notify('${ANSWERS_CHANNEL}', $1)`, [row.id])
        }
        await client.query('COMMIT')
      } catch {
        broken = true
        await client.query('ROLLBACK').catch(() => undefined)
      } finally {
        client.release(broken)
      }
      if (broken || taken === 0) return
    }
  }

  async orphans(limit: number): Promise<string[]> {
    try {
      const rows = (
        await this.pool.query<{ id: string }>(
          `SELECT s.id FROM ${SCHEMA}.sessions AS s LEFT JOIN ${SCHEMA}.leases AS l ON l.session_id = s.id
            WHERE (l.session_id IS NULL OR l.expires_at < ${NOW_MS})
              AND (s.open_turn OR s.pending_inbox > 0 OR EXISTS (SELECT 1 FROM ${SCHEMA}.commands AS c WHERE c.session_id = s.id AND c.result IS NULL))
            ORDER BY s.id LIMIT $1`,
          [limit],
        )
      ).rows
      return rows.map((row) => row.id)
    } catch (error) {
      throw unavailable('the orphan query', error)
    }
  }

  /** Stops listening and renewing; gives every lease up so other replicas take them at once. */
  async close(): Promise<void> {
    this.stopped = true
    for (const timer of this.timers) clearTimeout(timer)
    if (this.streamingTimer !== null) clearTimeout(this.streamingTimer)
    this.streamingTimer = null
    await this.streamingSent
    await Promise.allSettled([...this.running.values()])
    for (const id of [...this.held.keys()]) await this.release(id)
    const listener = this.listener
    this.listener = null
    await listener?.end().catch(() => undefined)
  }
}
