import pg from 'pg'
import type { SessionEvent, SessionHeader } from '../../../protocol/index.ts'
import { SESSION_ID_PATTERN } from '../../../protocol/index.ts'
import { isStoreError, StoreError } from '../store-error.ts'
import type {
  CreateResult,
  DueEntry,
  EventPage,
  EventRange,
  OpenVisitor,
  SessionEntry,
  SessionListing,
  SessionPage,
  SessionWriter,
  Store,
  StoredSummary,
} from '../store.ts'
import { parseDatabaseUrl } from './database-url.ts'
import { migrate, SCHEMA, verifySchema } from './migrations.ts'
import { GroupCommitter, type LeaseFence } from './group-commit.ts'
import { PostgresReplication } from './replication.ts'
import { failureText, unavailable } from './pg-failure.ts'
import { checkout } from './pool-client.ts'
import { PostgresSessionWriter } from './postgres-writer.ts'
import { decodeEvent, decodeHeader, type EventRow } from './rows.ts'
import { DatabaseSetupError } from './setup-error.ts'
import { columnTitle } from './column-text.ts'

/** How to open the PostgreSQL store. */
export type PostgresStoreOptions = {
  /** `postgres://user:password@host:port/database`. */
  url: string
  /** `migrate` (the server, import) brings the schema up to date; `verify` (check, export) changes nothing and needs it current. */
  schema?: 'migrate' | 'verify'
  /** Most connections the store holds open (default 10). */
  poolSize?: number
  /** Transactions of appends the store runs at once, each carrying the batches of many sessions (default 4). */
  commitsInFlight?: number
  /** How long one statement may take before the store gives up on it (default 60 s). */
  queryTimeoutMs?: number
  /** Run as one of several replicas (the server): leases, fencing, notifications, forwarded commands (SPEC 14.3). */
  replica?: { owner: string; leaseMs: number }
  log?: (line: string) => void
}

const PAGE_ROWS = 5000

const READ_PAGE: pg.QueryArrayConfig = {
  name: 'schedule-web-read-page',
  text: `SELECT seq, time, type, event_json FROM ${SCHEMA}.events WHERE session_id = $1 AND seq >= $2 ORDER BY seq LIMIT ${PAGE_ROWS}`,
  rowMode: 'array',
}

/**
 * Proves a write would work without writing anything lasting: the transaction takes an id (so its
 * commit writes and flushes WAL) and runs the writer's statements on no rows, so a read-only
 * database or a missing privilege refuses it as it would refuse an append.
 */
const PROBE = `SELECT pg_current_xact_id();
  INSERT INTO ${SCHEMA}.events SELECT * FROM ${SCHEMA}.events WHERE false;
  UPDATE ${SCHEMA}.sessions SET event_count = event_count WHERE false`

const CURSOR = /^(-?\d{1,16}):([A-Za-z0-9_-]{1,64})$/

const SESSION_COLUMNS = 'id, header_json, created_at, event_count, summary_count, title, last_event_at, open_turn, pending_inbox, next_due_at'

/** A session row as the driver hands it (bigint columns as text). */
type SessionRow = {
  id: string
  header_json: string
  created_at: string
  event_count: string
  summary_count: string | null
  title: string | null
  last_event_at: string | null
  open_turn: boolean
  pending_inbox: number
  next_due_at: string | null
}

function numberOrNull(value: string | null): number | null {
  return value === null ? null : Number(value)
}

/** A session row as an entry; its summary only while it describes every durable event (else null: stale, rebuilt by the host). */
function entryOf(row: SessionRow): SessionEntry {
  const header = decodeHeader(row.id, row.header_json)
  const summary: StoredSummary | null =
    row.summary_count !== null && row.summary_count === row.event_count
      ? {
          title: row.title,
          eventCount: Number(row.event_count),
          lastEventAt: numberOrNull(row.last_event_at),
          openTurn: row.open_turn,
          pendingInbox: row.pending_inbox,
          nextDueAt: numberOrNull(row.next_due_at),
        }
      : null
  return { id: row.id, header, summary }
}

/**
 * The corrupt verdict of a session's last whole read here: the validators' key, the session row's counts and the
 * refused row's text (null: missing) as they were then. It holds while they are unchanged.
 */
type Verdict = { key: string; eventCount: string; summaryCount: string | null; seq: number; row: string | null; error: StoreError }

function notFound(id: string): StoreError {
  return new StoreError('not-found', `session ${id} does not exist`)
}

/**
 * The PostgreSQL store (SPEC 14.2): headers and summaries in one table, events as their exact
 * JSON text keyed by `(session_id, seq)`, appends fenced by the expected next seq, one
 * transaction per batch. Migrates its schema when opened; every database failure is `unavailable`
 * and heals once the database answers again.
 */
export class PostgresStore implements Store {
  private closing: Promise<void> | null = null
  private readonly committer: GroupCommitter
  /** Corrupt verdicts of whole reads (a long log corrupt near its end costs seconds a read, and every route and list asks). */
  private readonly verdicts = new Map<string, Verdict>()
  /** Present when this store runs as a replica. */
  readonly replication?: PostgresReplication

  private constructor(
    private readonly pool: pg.Pool,
    /** The URL with its password hidden, for messages. */
    readonly display: string,
    commitsInFlight: number,
    private readonly log: (line: string) => void,
    replication?: PostgresReplication,
  ) {
    this.committer = new GroupCommitter(pool, commitsInFlight)
    if (replication) this.replication = replication
  }

  /** Connects, then migrates (or verifies) the schema; throws a one-line DatabaseSetupError when it cannot. */
  static async open(options: PostgresStoreOptions): Promise<PostgresStore> {
    const { connectionString, display } = parseDatabaseUrl(options.url)
    const log = options.log ?? (() => undefined)
    const pool = new pg.Pool({
      connectionString,
      max: options.poolSize ?? 10,
      connectionTimeoutMillis: 5000,
      idleTimeoutMillis: 30_000,
      query_timeout: options.queryTimeoutMs ?? 60_000,
      keepAlive: true,
      application_name: 'schedule-web',
    })
    let lost = false
    pool.on('error', (error) => {
      if (lost) return
      lost = true
      log(`database ${display}: an idle connection failed: ${failureText(error)}`)
    })
    pool.on('connect', () => {
      lost = false
    })
    let client: pg.PoolClient
    try {
      client = await checkout(pool)
    } catch (error) {
      await pool.end().catch(() => undefined)
      throw new DatabaseSetupError('connect-failed', `cannot connect to the database ${display}: ${failureText(error)}`, { cause: error })
    }
    try {
      if (options.schema === 'verify') await verifySchema(client)
      else {
        const { from, to } = await migrate(client)
        if (from !== to) log(`database ${display}: schema migrated from version ${from} to ${to}`)
      }
    } catch (error) {
      client.release()
      await pool.end().catch(() => undefined)
      if (error instanceof DatabaseSetupError) throw error
      throw new DatabaseSetupError('connect-failed', `cannot set up the database ${display}: ${failureText(error)}`, { cause: error })
    }
    client.release()
    let replication: PostgresReplication | undefined
    if (options.replica) {
      replication = new PostgresReplication(pool, { connectionString, keepAlive: true, application_name: 'schedule-web-listen' }, { ...options.replica, log })
      await replication.start()
    }
    return new PostgresStore(pool, display, options.commitsInFlight ?? 4, log, replication)
  }

  /** Runs one statement, any database failure being `unavailable` for `what`. */
  private async query<R extends pg.QueryResultRow>(what: string, text: string | pg.QueryConfig, values?: unknown[]): Promise<R[]> {
    try {
      return (await this.pool.query<R>(text, values)).rows
    } catch (error) {
      throw unavailable(what, error)
    }
  }

  async listSessions(): Promise<SessionListing[]> {
    const rows = await this.query<SessionRow>('the session list', `SELECT ${SESSION_COLUMNS} FROM ${SCHEMA}.sessions ORDER BY id`)
    return rows.map((row) => {
      try {
        return entryOf(row)
      } catch (error) {
        return { id: row.id, problem: error as StoreError }
      }
    })
  }

  /** Newest first: `created_at` descending, then id; the cursor is `<createdAt>:<id>` of the last entry. Damaged headers are left out (the full listing reports them). */
  async listPage(options: { limit: number; before?: string }): Promise<SessionPage> {
    let after: [number, string] | null = null
    if (options.before !== undefined) {
      const match = CURSOR.exec(options.before)
      if (match === null) {
        throw new StoreError('corrupt', `malformed session cursor ${JSON.stringify(options.before)}`, { seq: -1, reason: 'malformed cursor' })
      }
      after = [Number(match[1]), match[2]]
    }
    const rows = await this.query<SessionRow>(
      'the session list',
      `SELECT ${SESSION_COLUMNS} FROM ${SCHEMA}.sessions
        WHERE $1::bigint IS NULL OR created_at < $1 OR (created_at = $1 AND id > $2)
        ORDER BY created_at DESC, id LIMIT $3`,
      [after?.[0] ?? null, after?.[1] ?? null, options.limit + 1],
    )
    const entries: SessionEntry[] = []
    for (const row of rows.slice(0, options.limit)) {
      try {
        entries.push(entryOf(row))
      } catch {
        continue
      }
    }
    const last = rows.length > options.limit ? rows[options.limit - 1] : undefined
    return { entries, nextCursor: last === undefined ? null : `${last.created_at}:${last.id}` }
  }

  async readEntry(id: string): Promise<SessionEntry> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    const rows = await this.query<SessionRow>(`session ${id}`, `SELECT ${SESSION_COLUMNS} FROM ${SCHEMA}.sessions WHERE id = $1`, [id])
    if (rows.length === 0) throw notFound(id)
    return entryOf(rows[0])
  }

  /** Keeps a rebuilt summary only while it still describes the whole durable log. */
  async putSummary(id: string, summary: StoredSummary): Promise<void> {
    await this.query(
      `session ${id}`,
      `UPDATE ${SCHEMA}.sessions SET summary_count = $2, title = $3, last_event_at = $4, open_turn = $5, pending_inbox = $6, next_due_at = $7
        WHERE id = $1 AND event_count = $2`,
      [id, summary.eventCount, columnTitle(summary.title), summary.lastEventAt, summary.openTurn, summary.pendingInbox, summary.nextDueAt],
    )
  }

  /** One statement (one snapshot) reads the count and the page by seq range on the primary key: the cost does not grow with the log. */
  async readEvents(id: string, range: EventRange): Promise<EventPage> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    const rows = await this.query<{ event_count: string; seq: string | null; time: string | null; type: string | null; event_json: string | null }>(
      `session ${id}`,
      `SELECT s.event_count, e.seq, e.time, e.type, e.event_json FROM ${SCHEMA}.sessions AS s
        LEFT JOIN LATERAL (
          SELECT seq, time, type, event_json FROM ${SCHEMA}.events
           WHERE session_id = s.id
             AND seq >= CASE WHEN $2::bigint IS NOT NULL THEN $2 + 1
                             WHEN $3::bigint IS NOT NULL THEN greatest(0, least($3, s.event_count) - $4)
                             ELSE greatest(0, s.event_count - $4) END
             AND ($3::bigint IS NULL OR seq < $3)
           ORDER BY seq LIMIT $4
        ) AS e ON true
        WHERE s.id = $1`,
      [id, range.after ?? null, range.before ?? null, range.limit],
    )
    if (rows.length === 0) throw notFound(id)
    const eventCount = Number(rows[0].event_count)
    const start =
      range.after !== undefined
        ? range.after + 1
        : Math.max(0, (range.before === undefined ? eventCount : Math.min(range.before, eventCount)) - range.limit)
    const events: SessionEvent[] = []
    for (const row of rows) {
      if (row.seq === null || row.time === null || row.type === null || row.event_json === null) continue
      events.push(decodeEvent(id, start + events.length, [row.seq, row.time, row.type, row.event_json]))
    }
    return { events, eventCount }
  }

  async scanSession(id: string, visit: OpenVisitor): Promise<void> {
    await this.read(id, visit, false)
  }

  /** Sessions with a reminder due at or before `time`, from the `next_due_at` index. */
  async dueSessions(time: number, limit: number): Promise<DueEntry[]> {
    const rows = await this.query<{ id: string; next_due_at: string }>(
      'the due index',
      `SELECT id, next_due_at FROM ${SCHEMA}.sessions WHERE next_due_at IS NOT NULL AND next_due_at <= $1 ORDER BY next_due_at, id LIMIT $2`,
      [time, limit],
    )
    return rows.map((row) => ({ id: row.id, nextDueAt: Number(row.next_due_at) }))
  }

  async readHeader(id: string): Promise<SessionHeader> {
    return (await this.readEntry(id)).header
  }

  async createSession(header: SessionHeader): Promise<CreateResult> {
    let inserted: number | null
    try {
      inserted = (
        await this.pool.query(
          `INSERT INTO ${SCHEMA}.sessions (id, header_json, created_at) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING`,
          [header.id, JSON.stringify(header), header.createdAt],
        )
      ).rowCount
    } catch (error) {
      throw unavailable(`session ${header.id}`, error)
    }
    if (inserted === 1) return { created: true }
    return { created: false, header: await this.readHeader(header.id) }
  }

  /**
   * Reads the header and every event in one snapshot (a repeatable-read transaction), in pages by
   * seq, each decoded as the JSONL store decodes a line; a log whose length disagrees with the
   * session's event count is corrupt where they part. A log found corrupt has its summary marked
   * stale, so that every route and replica reads it whole and refuses it (SPEC 2.5), as the JSONL
   * store's routes do when a file changed, instead of serving the pages that do not reach the damage.
   */
  async openSession(id: string, visit: OpenVisitor): Promise<SessionWriter> {
    const { header, count } = await this.read(id, visit, true)
    const replication = this.replication
    const lease = (): LeaseFence | 'lost' => {
      if (replication === undefined) return null
      const token = replication.tokenOf(id)
      return token === null ? 'lost' : { owner: replication.owner, token }
    }
    return new PostgresSessionWriter(this.pool, this.committer, header, count, lease, () => replication?.streamingFlushed(id) ?? null)
  }

  /** Reads a whole log; `mark`: a corrupt one has its summary marked stale (a server's open, never check or export). */
  private async read(id: string, visit: OpenVisitor, mark: boolean): Promise<{ header: SessionHeader; count: number }> {
    if (!SESSION_ID_PATTERN.test(id)) throw notFound(id)
    let client: pg.PoolClient
    try {
      client = await checkout(this.pool)
    } catch (error) {
      throw unavailable(`session ${id}`, error)
    }
    let broken = false
    let open = false
    try {
      const database = async <T>(run: () => Promise<T>): Promise<T> => {
        try {
          return await run()
        } catch (error) {
          broken = true
          throw unavailable(`session ${id}`, error)
        }
      }
      await database(() => client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY'))
      open = true
      const session = await database(() =>
        client.query<{ header_json: string; event_count: string; summary_count: string | null }>(
          `SELECT header_json, event_count, summary_count FROM ${SCHEMA}.sessions WHERE id = $1`,
          [id],
        ),
      )
      if (session.rows.length === 0) throw notFound(id)
      const { header_json: headerJson, event_count: eventCount, summary_count: summaryCount } = session.rows[0]
      const header = decodeHeader(id, headerJson)
      const key = visit.trustKey ?? ''
      const rowAt = async (seq: number): Promise<string | null> =>
        (await database(() => client.query<{ event_json: string }>(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = $1 AND seq = $2`, [id, seq]))).rows[0]
          ?.event_json ?? null
      const verdict = this.verdicts.get(id)
      if (verdict !== undefined) {
        if (verdict.key === key && verdict.eventCount === eventCount && verdict.summaryCount === summaryCount && (await rowAt(verdict.seq)) === verdict.row) {
          // a verdict a scan left (a check, a summary rebuilt) is marked by the first open that meets it
          if (mark && summaryCount !== null) {
            open = false
            if (await this.markStale(client, id)) this.verdicts.set(id, { ...verdict, summaryCount: null })
            else broken = true
          }
          throw verdict.error
        }
        this.verdicts.delete(id)
      }
      const counted = Number(eventCount)
      let next = 0
      try {
        visit.header(header)
        for (;;) {
          const page = await database(() => client.query<EventRow>({ ...READ_PAGE, values: [id, next] }))
          for (const row of page.rows) {
            visit.event(decodeEvent(id, next, row))
            next++
          }
          if (page.rows.length < PAGE_ROWS) break
        }
        if (next !== counted) {
          const reason = next < counted ? `the log ends before seq ${next} but the session counts ${counted} events` : `the session counts ${counted} events but the log goes on`
          throw new StoreError('corrupt', `session ${id} is corrupt at seq ${Math.min(next, counted)}: ${reason}`, { seq: Math.min(next, counted), reason })
        }
      } catch (error) {
        const seq = isStoreError(error) && error.code === 'corrupt' ? error.details?.seq : undefined
        if (typeof seq === 'number' && seq >= 0) {
          // a verdict that cannot be kept or marked (the database failing now) is only read whole again next time
          const row = await rowAt(seq).catch(() => undefined)
          if (mark && row !== undefined) {
            open = false
            if (await this.markStale(client, id)) this.verdicts.set(id, { key, eventCount, summaryCount: null, seq, row, error: error as StoreError })
            else broken = true
          } else if (row !== undefined) this.verdicts.set(id, { key, eventCount, summaryCount, seq, row, error: error as StoreError })
        }
        throw error
      }
      await database(() => client.query('COMMIT'))
      open = false
      return { header, count: next }
    } finally {
      if (open && !broken) await client.query('ROLLBACK').catch(() => (broken = true))
      client.release(broken)
    }
  }

  /**
   * Ends the read's transaction on `client` and marks the corrupt session's summary stale; false (logged) when the
   * database did not take it, so the next open reads the log whole again.
   */
  private async markStale(client: pg.PoolClient, id: string): Promise<boolean> {
    try {
      await client.query('ROLLBACK')
      await client.query(`UPDATE ${SCHEMA}.sessions SET summary_count = NULL WHERE id = $1`, [id])
      return true
    } catch (error) {
      this.log(`session ${id}: its log is corrupt, but its summary could not be marked stale: ${failureText(error)}`)
      return false
    }
  }

  async probe(): Promise<void> {
    try {
      await this.pool.query(PROBE)
    } catch (error) {
      throw unavailable('the database', error)
    }
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.replication?.close()
      await this.pool.end()
    })()
    return this.closing
  }
}
