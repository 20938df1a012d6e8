import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SessionEvent } from '../../src/protocol/index.ts'
import { migrate, MIGRATIONS, PostgresStore, SCHEMA, type Migration, type SessionWriter } from '../../src/host/index.ts'
import { freePort } from '../../src/server/embedded-database.ts'
import { freshDatabase, type TestDatabase } from '../support/postgres.ts'
import { event, header as headerIn, T0 } from './fixtures.ts'
import { TcpProxy } from '../support/tcp-proxy.ts'

const header = (id: string) => headerIn(id, 'UTC')

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close()
})

async function openStore(url: string, options: { queryTimeoutMs?: number; commitsInFlight?: number } = {}): Promise<PostgresStore> {
  const store = await PostgresStore.open({ url, ...options })
  closers.push(() => store.close())
  return store
}

async function proxied(db: TestDatabase): Promise<{ proxy: TcpProxy; url: string }> {
  const proxy = await TcpProxy.start(Number(new URL(db.url).port))
  closers.push(() => proxy.close())
  return { proxy, url: proxy.rewrite(db.url) }
}

async function openLog(store: PostgresStore, id: string): Promise<{ events: SessionEvent[]; writer: SessionWriter }> {
  const events: SessionEvent[] = []
  const writer = await store.openSession(id, { header: () => undefined, event: (e) => events.push(e) })
  return { events, writer }
}

async function migrations(db: TestDatabase): Promise<{ version: number; name: string; applied_at: Date }[]> {
  return (await db.admin(`SELECT version, name, applied_at FROM ${SCHEMA}.schema_migrations ORDER BY version`)).rows
}

async function tables(db: TestDatabase): Promise<string[]> {
  const result = await db.admin(`SELECT tablename FROM pg_tables WHERE schemaname = $1 ORDER BY tablename`, [SCHEMA])
  return result.rows.map((row: { tablename: string }) => row.tablename)
}

describe('PostgreSQL store: migrations', () => {
  it('creates the schema on first open and leaves a migrated database exactly as it is', async () => {
    const db = await freshDatabase()
    await openStore(db.url)
    const first = await migrations(db)
    expect(first).toEqual([
      { version: 1, name: 'sessions, events and the due index', applied_at: expect.any(Date) },
      { version: 2, name: 'leases and commands of replicas', applied_at: expect.any(Date) },
      { version: 3, name: 'runs of forwarded commands', applied_at: expect.any(Date) },
    ])
    expect(await tables(db)).toEqual(['command_runs', 'commands', 'events', 'leases', 'schema_migrations', 'sessions'])
    const indexes = await db.admin(`SELECT indexname FROM pg_indexes WHERE schemaname = $1 ORDER BY indexname`, [SCHEMA])
    expect(indexes.rows.map((row: { indexname: string }) => row.indexname)).toEqual([
      'command_runs_pkey',
      'commands_pkey',
      'commands_waiting',
      'events_pkey',
      'leases_pkey',
      'schema_migrations_pkey',
      'sessions_created_at',
      'sessions_next_due_at',
      'sessions_pkey',
    ])
    await openStore(db.url)
    await openStore(db.url)
    expect(await migrations(db)).toEqual(first)
  })

  it('migrates once when several servers start on one fresh database at the same moment', async () => {
    const db = await freshDatabase()
    await Promise.all([openStore(db.url), openStore(db.url), openStore(db.url)])
    expect((await migrations(db)).map((m) => m.version)).toEqual([1, 2, 3])
  })

  it('refuses to start on a schema newer than the code, with one line, and never migrates it down', async () => {
    const db = await freshDatabase()
    await openStore(db.url)
    await db.admin(`INSERT INTO ${SCHEMA}.schema_migrations (version, name) VALUES (7, 'from the future')`)
    const refusal = PostgresStore.open({ url: db.url })
    await expect(refusal).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      code: 'schema-too-new',
      message: 'the database schema is at version 7, newer than version 3 of this Schedule Web: run a newer Schedule Web (a schema is never migrated down)',
    })
    expect((await migrations(db)).map((m) => m.version)).toEqual([1, 2, 3, 7])
    expect(await tables(db)).toEqual(['command_runs', 'commands', 'events', 'leases', 'schema_migrations', 'sessions'])
  })

  it('verifies without changing anything: a database never migrated is refused and left empty', async () => {
    const db = await freshDatabase()
    await expect(PostgresStore.open({ url: db.url, schema: 'verify' })).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      code: 'schema-too-old',
      message:
        'the database schema is at version 0, older than version 3 of this Schedule Web: start the server on it once (or import into it) to migrate it',
    })
    expect((await db.admin(`SELECT count(*)::int AS n FROM pg_namespace WHERE nspname = $1`, [SCHEMA])).rows).toEqual([{ n: 0 }])
    await openStore(db.url)
    const verified = await PostgresStore.open({ url: db.url, schema: 'verify' })
    expect(await verified.listSessions()).toEqual([])
    await verified.close()
  })

  it('runs a step and its record in one transaction: a failing step leaves the schema at the version before it', async () => {
    const db = await freshDatabase()
    await openStore(db.url)
    const broken: Migration[] = [
      ...MIGRATIONS,
      { version: 4, name: 'half a step', sql: `CREATE TABLE ${SCHEMA}.half (id int); SELECT no_such_function()` },
    ]
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      await expect(migrate(client, broken)).rejects.toMatchObject({ message: expect.stringContaining('no_such_function') })
      expect(await migrate(client)).toEqual({ from: 3, to: 3 })
    } finally {
      await client.end()
    }
    expect((await migrations(db)).map((m) => m.version)).toEqual([1, 2, 3])
    expect(await tables(db)).toEqual(['command_runs', 'commands', 'events', 'leases', 'schema_migrations', 'sessions'])
  })
})

describe('PostgreSQL store: connecting', () => {
  it('refuses a URL that is not a postgres URL, with one line', async () => {
    await expect(PostgresStore.open({ url: 'mysql://root:secret@localhost/db' })).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      code: 'bad-url',
      message: 'the database URL must start with postgres:// or postgresql://, got mysql://',
    })
    await expect(PostgresStore.open({ url: 'localhost:5432' })).rejects.toMatchObject({ code: 'bad-url' })
    await expect(PostgresStore.open({ url: 'not a url, pw:hunter2@' })).rejects.toMatchObject({
      code: 'bad-url',
      message: 'the database URL "not a url, pw:hunter2@" is not a URL: use postgres://user:password@host:5432/database',
    })
  })

  it('names the database without its password when it cannot connect', async () => {
    const db = await freshDatabase()
    const wrong = new URL(db.url)
    wrong.password = 'not-the-password'
    const shown = `postgres://schedule_web:***@127.0.0.1:${wrong.port}/${db.name}`
    await expect(PostgresStore.open({ url: wrong.href })).rejects.toMatchObject({
      name: 'DatabaseSetupError',
      code: 'connect-failed',
      message: `cannot connect to the database ${shown}: password authentication failed for user "schedule_web"`,
    })
    const port = await freePort()
    await expect(PostgresStore.open({ url: `postgres://u:secret@127.0.0.1:${port}/x` })).rejects.toMatchObject({
      code: 'connect-failed',
      message: `cannot connect to the database postgres://u:***@127.0.0.1:${port}/x: connect ECONNREFUSED 127.0.0.1:${port}`,
    })
  })
})

describe('PostgreSQL store: rows', () => {
  it('stores the header and every event as their exact JSON text beside seq, time and type', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url)
    await store.createSession(header('x'))
    const { writer } = await openLog(store, 'x')
    const written = [event(0, 'a'), { ...event(1, 'b'), surfaceOp: { op: 'replace' as const, start: 0, end: 0 } }]
    writer.append(written)
    await writer.barrier()
    const session = await db.admin(`SELECT header_json, created_at, event_count FROM ${SCHEMA}.sessions`)
    expect(session.rows).toEqual([{ header_json: JSON.stringify(header('x')), created_at: String(T0), event_count: '2' }])
    const rows = await db.admin(`SELECT session_id, seq, time, type, event_json FROM ${SCHEMA}.events ORDER BY seq`)
    expect(rows.rows).toEqual(
      written.map((e) => ({ session_id: 'x', seq: String(e.seq), time: String(e.time), type: e.type, event_json: JSON.stringify(e) })),
    )
  })

  it('refuses a log with a missing row, a missing tail or columns that disagree with the event, naming the seq', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url)
    for (const id of ['gap', 'tail', 'cols']) {
      await store.createSession(header(id))
      const { writer } = await openLog(store, id)
      writer.append([event(0), event(1), event(2)])
      await writer.barrier()
      await writer.close()
    }
    await db.admin(`DELETE FROM ${SCHEMA}.events WHERE session_id = 'gap' AND seq = 1`)
    await db.admin(`DELETE FROM ${SCHEMA}.events WHERE session_id = 'tail' AND seq = 2`)
    await db.admin(`UPDATE ${SCHEMA}.events SET type = 'turn/end' WHERE session_id = 'cols' AND seq = 2`)
    await expect(openLog(store, 'gap')).rejects.toMatchObject({ code: 'corrupt', details: { seq: 1, reason: 'expected seq 1, found 2' } })
    await expect(openLog(store, 'tail')).rejects.toMatchObject({
      code: 'corrupt',
      message: 'session tail is corrupt at seq 2: the log ends before seq 2 but the session counts 3 events',
      details: { seq: 2, reason: 'the log ends before seq 2 but the session counts 3 events' },
    })
    await expect(openLog(store, 'cols')).rejects.toMatchObject({
      code: 'corrupt',
      details: { seq: 2, reason: `the row's type turn/end and time ${T0 + 2} disagree with its event` },
    })
  })
})

describe('PostgreSQL store: summaries', () => {
  const summary = (eventCount: number, nextDueAt: number | null = null) => ({
    title: 'hello',
    eventCount,
    lastEventAt: T0 + eventCount - 1,
    openTurn: false,
    pendingInbox: 0,
    nextDueAt,
  })

  it('writes a summary in the transaction of its events, reads one behind the log as missing, and keeps a rebuilt one only while it is current', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url)
    await store.createSession(header('s'))
    const { writer } = await openLog(store, 's')
    writer.append([event(0), event(1)], summary(2, T0 + 60_000))
    await writer.barrier()
    expect((await db.admin(`SELECT event_count, summary_count, next_due_at FROM ${SCHEMA}.sessions`)).rows).toEqual([
      { event_count: '2', summary_count: '2', next_due_at: String(T0 + 60_000) },
    ])
    expect((await store.readEntry('s')).summary).toEqual(summary(2, T0 + 60_000))
    writer.append([event(2)])
    await writer.barrier()
    expect((await store.readEntry('s')).summary).toBeNull()
    expect(await store.dueSessions(T0 + 60_000, 5)).toEqual([{ id: 's', nextDueAt: T0 + 60_000 }])
    await store.putSummary('s', summary(2))
    expect((await store.readEntry('s')).summary).toBeNull()
    await store.putSummary('s', summary(3))
    expect((await store.readEntry('s')).summary).toEqual(summary(3))
    expect(await store.dueSessions(T0 + 60_000, 5)).toEqual([])
    writer.append([], summary(3, T0 + 5))
    await vi.waitFor(async () => expect((await store.readEntry('s')).summary).toEqual(summary(3, T0 + 5)))
    await writer.close()
  })

  it('keeps a title holding U+0000 (a log imported from files) as U+FFFD in its column, and the session writable', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url)
    await store.createSession(header('s'))
    const { writer } = await openLog(store, 's')
    // on the code before, the append failed ("invalid byte sequence for encoding UTF8: 0x00") and the writer with it
    writer.append([event(0)], { ...summary(1), title: 'a\u0000b' })
    await writer.barrier()
    expect((await store.readEntry('s')).summary?.title).toBe('a\uFFFDb')
    await store.putSummary('s', { ...summary(1), title: 'c\u0000d' })
    expect((await store.readEntry('s')).summary?.title).toBe('c\uFFFDd')
    writer.append([event(1)], summary(2))
    await writer.barrier()
    expect((await store.readEntry('s')).summary).toEqual(summary(2))
    await writer.close()
  })
})

describe('PostgreSQL store: fencing and unknown outcomes', () => {
  it('never lets a second writer commit a seq the first wrote: its append fails and the log keeps each seq once', async () => {
    const db = await freshDatabase()
    const a = await openStore(db.url)
    const b = await openStore(db.url)
    await a.createSession(header('f'))
    const first = await openLog(a, 'f')
    const second = await openLog(b, 'f')
    first.writer.append([event(0, 'from a')])
    await first.writer.barrier()
    const failures: string[] = []
    second.writer.onFailure((error) => failures.push(error.message))
    second.writer.append([event(0, 'from b')])
    await expect(second.writer.barrier()).rejects.toMatchObject({ name: 'StoreError', code: 'unavailable', details: { fenced: true } })
    expect(failures).toEqual([
      'storage for session f is unavailable: another writer appended to it (its log no longer ends at seq -1); it reopens from the database',
    ])
    first.writer.append([event(1, 'from a')])
    await first.writer.barrier()
    const rows = await db.admin(`SELECT seq, event_json FROM ${SCHEMA}.events WHERE session_id = 'f' ORDER BY seq`)
    expect(rows.rows).toEqual([
      { seq: '0', event_json: JSON.stringify(event(0, 'from a')) },
      { seq: '1', event_json: JSON.stringify(event(1, 'from a')) },
    ])
    await second.writer.repair()
    const reopened = await openLog(b, 'f')
    expect(reopened.events).toEqual([event(0, 'from a'), event(1, 'from a')])
  })

  it('commits the batches of many sessions in one transaction, and one session the server refuses never fails the others', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url, { commitsInFlight: 1 })
    const writers = new Map<string, SessionWriter>()
    for (const id of ['first', 'a', 'b', 'c']) {
      await store.createSession(header(id))
      writers.set(id, (await openLog(store, id)).writer)
    }
    const writer = (id: string): SessionWriter => writers.get(id) as SessionWriter
    const round = (seq: number): Promise<PromiseSettledResult<void>[]> => {
      writer('first').append([event(seq)])
      for (const id of ['a', 'b', 'c']) writer(id).append([event(seq, id)])
      return Promise.allSettled(['first', 'a', 'b', 'c'].map((id) => writer(id).barrier()))
    }
    expect((await round(0)).map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'])
    const transactions = await db.admin(`SELECT session_id, xmin::text AS tx FROM ${SCHEMA}.events ORDER BY session_id`)
    const tx = new Map(transactions.rows.map((row: { session_id: string; tx: string }) => [row.session_id, row.tx]))
    expect(new Set([tx.get('a'), tx.get('b'), tx.get('c')]).size).toBe(1)
    expect(tx.get('first')).not.toBe(tx.get('a'))

    await db.admin(`INSERT INTO ${SCHEMA}.events VALUES ('b', 1, 0, 'user/message', '{}')`)
    const outcomes = await round(1)
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled'])
    expect((outcomes[2] as PromiseRejectedResult).reason).toMatchObject({ code: 'unavailable', details: { sqlState: '23505' } })
    const rows = await db.admin(`SELECT session_id, event_json FROM ${SCHEMA}.events WHERE seq = 1 AND session_id <> 'b' ORDER BY session_id`)
    expect(rows.rows).toEqual([
      { session_id: 'a', event_json: JSON.stringify(event(1, 'a')) },
      { session_id: 'c', event_json: JSON.stringify(event(1, 'c')) },
      { session_id: 'first', event_json: JSON.stringify(event(1)) },
    ])
  })

  it('commits the events of one append in one transaction, however many, and never joins two appends past the batch cap', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url)
    await store.createSession(header('big'))
    const { writer } = await openLog(store, 'big')
    const many = (from: number, n: number): SessionEvent[] => Array.from({ length: n }, (_, i) => event(from + i))
    writer.append(many(0, 6000))
    writer.append(many(6000, 6000))
    writer.append(many(12_000, 12_000))
    await writer.barrier()
    const groups = await db.admin(
      `SELECT xmin::text AS tx, min(seq)::int AS first, max(seq)::int AS last FROM ${SCHEMA}.events GROUP BY xmin::text ORDER BY first`,
    )
    expect(groups.rows.map((row: { first: number; last: number }) => [row.first, row.last])).toEqual([
      [0, 5999],
      [6000, 11_999],
      [12_000, 23_999],
    ])
    await writer.close()
  })

  it.each([
    ['whose answer was lost, once the database is back and shows it committed', 'cut-answers', 'committed, answer lost'],
    ['whose request never reached the database, sent again once it is back', 'cut-requests', 'lost on the way'],
  ] as const)('acknowledges a batch %s: nothing fails, it is stored once, and the next append follows', async (_label, fault, text) => {
    const db = await freshDatabase()
    const { proxy, url } = await proxied(db)
    const store = await openStore(url)
    await store.createSession(header('l'))
    const { writer } = await openLog(store, 'l')
    const failures: string[] = []
    writer.onFailure((error) => failures.push(error.message))
    writer.append([event(0)])
    await writer.barrier()
    proxy.fault = fault
    writer.append([event(1, text)])
    const barrier = writer.barrier()
    setTimeout(() => proxy.heal(), 400)
    await barrier
    expect(writer.durableCount).toBe(2)
    expect(failures).toEqual([])
    writer.append([event(2)])
    await writer.barrier()
    const rows = await db.admin(`SELECT seq, event_json FROM ${SCHEMA}.events WHERE session_id = 'l' ORDER BY seq`)
    expect(rows.rows).toEqual([event(0), event(1, text), event(2)].map((e) => ({ seq: String(e.seq), event_json: JSON.stringify(e) })))
    await writer.close()
  })

  it('treats a batch whose answer was lost as unknown while the database stays out of reach: the writer fails, and the reopen finds it committed and durable', async () => {
    const db = await freshDatabase()
    const { proxy, url } = await proxied(db)
    const store = await openStore(url)
    await store.createSession(header('u'))
    const { writer } = await openLog(store, 'u')
    writer.append([event(0)])
    await writer.barrier()
    proxy.fault = 'cut-answers'
    writer.append([event(1, 'committed, never acknowledged')])
    await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable' })
    expect(writer.durableCount).toBe(1)
    await expect(store.probe()).rejects.toMatchObject({ code: 'unavailable' })
    proxy.heal()
    await store.probe()
    await writer.repair()
    const reopened = await openLog(store, 'u')
    expect(reopened.events).toEqual([event(0), event(1, 'committed, never acknowledged')])
    expect(reopened.writer.durableCount).toBe(2)
    reopened.writer.append([event(2)])
    await reopened.writer.barrier()
    await reopened.writer.close()
  })

  it('ends a batch still running on the server after the store gave up on it, so it can never commit later; tried once more, it fails', async () => {
    const db = await freshDatabase()
    const store = await openStore(db.url, { queryTimeoutMs: 300 })
    await store.createSession(header('s'))
    const { writer } = await openLog(store, 's')
    writer.append([event(0)])
    await writer.barrier()
    await db.admin('BEGIN')
    await db.admin(`SELECT * FROM ${SCHEMA}.sessions WHERE id = 's' FOR UPDATE`)
    writer.append([event(1, 'stuck behind a lock')])
    await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining('timeout') })
    const waiting = await db.admin(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
    expect(waiting.rows).toEqual([{ n: 0 }])
    await writer.repair()
    await db.admin('COMMIT')
    const rows = await db.admin(`SELECT seq FROM ${SCHEMA}.events WHERE session_id = 's' ORDER BY seq`)
    expect(rows.rows).toEqual([{ seq: '0' }])
    const reopened = await openLog(store, 's')
    expect(reopened.events).toEqual([event(0)])
    reopened.writer.append([event(1, 'the free seq')])
    await reopened.writer.barrier()
    await reopened.writer.close()
  })
})
