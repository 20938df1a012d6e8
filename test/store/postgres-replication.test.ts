import pg from 'pg'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Host, PostgresStore, SCHEMA, type Replication, type SessionWriter, type StoredSummary } from '../../src/host/index.ts'
import { ScriptedModel } from '../../src/host/models/scripted.ts'
import { createApp } from '../../src/server/app.ts'
import { compose, composeHost } from '../../src/server/compose.ts'
import { apiError, call } from '../server/app-harness.ts'
import { freshDatabase, type TestDatabase } from '../support/postgres.ts'
import { tempDir } from '../support/temp-dir.ts'
import { watchNotices } from '../../src/server/streams.ts'
import { FakeClock } from '../support/fake-clock.ts'
import { ManualTimers } from '../support/manual-timers.ts'
import { event, header } from './fixtures.ts'

const stores: PostgresStore[] = []
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close()
})

async function replicaStore(db: TestDatabase, owner: string, leaseMs = 3000): Promise<{ store: PostgresStore; replication: Replication }> {
  const store = await PostgresStore.open({ url: db.url, replica: { owner, leaseMs } })
  stores.push(store)
  return { store, replication: store.replication as Replication }
}

const noop = { header: () => undefined, event: () => undefined }

const summary: StoredSummary = { title: null, eventCount: 1, lastEventAt: null, openTurn: false, pendingInbox: 0, nextDueAt: null }

/** The seqs of session `s` the host's event listeners hear (what `GET /api/stream` notices come from), in order. */
function heard(host: Host): number[] {
  const seen: number[] = []
  host.onEvents((id, events) => {
    if (id === 's') seen.push(...events.map((e) => e.seq))
  })
  return seen
}

/** A fresh database, two replicas of it (`a`, `b`) and one session `id` made on `a`. */
async function twoReplicas(id: string, leaseMs?: number) {
  const db = await freshDatabase()
  const a = await replicaStore(db, 'a', leaseMs)
  const b = await replicaStore(db, 'b', leaseMs)
  await a.store.createSession(header(id, 'UTC'))
  return { db, a, b }
}

describe('PostgreSQL replication (SPEC 14.3)', () => {
  it('grants a lease to one replica at a time, and to another once it is released', async () => {
    const { db, a, b } = await twoReplicas('s')
    expect(await a.replication.claim('s')).toBe(true)
    expect(await a.replication.claim('s')).toBe(true)
    expect(await b.replication.claim('s')).toBe(false)
    expect({ a: a.replication.holds('s'), b: b.replication.holds('s') }).toEqual({ a: true, b: false })
    await a.replication.release('s')
    expect(await b.replication.claim('s')).toBe(true)
    const rows = await db.admin(`SELECT owner, token FROM ${SCHEMA}.leases WHERE session_id = 's'`)
    expect(rows.rows).toEqual([{ owner: 'b', token: '2' }])
  })

  it('fences appends by the lease: a writer whose lease was taken over commits nothing', async () => {
    const { db, a, b } = await twoReplicas('f')
    expect(await a.replication.claim('f')).toBe(true)
    const writer: SessionWriter = await a.store.openSession('f', noop)
    writer.append([event(0)])
    await writer.barrier()
    // the lease lapses on the database clock while a still believes it holds it (a paused process)
    await db.admin(`UPDATE ${SCHEMA}.leases SET expires_at = 0 WHERE session_id = 'f'`)
    expect(await b.replication.claim('f')).toBe(true)
    expect(a.replication.holds('f')).toBe(true)
    writer.append([event(1, 'from the stale owner')])
    await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable', details: { fenced: true } })
    expect((await db.admin(`SELECT seq FROM ${SCHEMA}.events WHERE session_id = 'f' ORDER BY seq`)).rows).toEqual([{ seq: '0' }])
    const fresh = await b.store.openSession('f', noop)
    fresh.append([event(1, 'from the new owner')])
    await fresh.barrier()
    expect((await a.store.readEvents('f', { limit: 10 })).events.map((e) => e.data)).toEqual([event(0).data, event(1, 'from the new owner').data])
  })

  it('lets no replica take a lease while an append fenced by it waits: the append lands first, or the lease is not taken', async () => {
    const { db, a, b } = await twoReplicas('w')
    expect(await a.replication.claim('w')).toBe(true)
    const writer = await a.store.openSession('w', noop)
    writer.append([event(0)])
    await writer.barrier()
    const connect = async () => {
      const client = new pg.Client({ connectionString: db.url })
      client.on('error', () => undefined)
      await client.connect()
      return client
    }
    const [locker, lapser] = [await connect(), await connect()]
    try {
      // another transaction holds the session's row, so a's next append, its lease checked, waits for it
      await locker.query('BEGIN')
      await locker.query(`SELECT 1 FROM ${SCHEMA}.sessions WHERE id = 'w' FOR NO KEY UPDATE`)
      writer.append([event(1, 'from a, checked while it held the lease')])
      const appended = writer.barrier().then(
        () => 'landed',
        () => 'refused',
      )
      const waitingOn = (text: string) =>
        vi.waitFor(async () => {
          const rows = (await db.admin(`SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE $1`, [`%${text}%`])).rows
          expect(rows.length).toBeGreaterThan(0)
        }, { timeout: 10_000, interval: 20 })
      await waitingOn('WITH batch')
      // the lease lapses and b claims it while the append waits (a process paused, or killed, mid-commit)
      const lapsed = lapser.query(`UPDATE ${SCHEMA}.leases SET expires_at = 0 WHERE session_id = 'w'`)
      await Promise.race([lapsed, waitingOn('SET expires_at = 0')])
      let released = false
      let claimedWhileWaiting = false
      const claimed = b.replication.claim('w').finally(() => (claimedWhileWaiting = !released))
      // on the code before, the claim was granted at once, and a's append landed after it: a write by a replica
      // that had lost its lease (SPEC 14.3). Now the claim waits for the append's lock on the lease.
      await Promise.race([claimed, waitingOn('INSERT INTO')])
      released = true
      await locker.query('COMMIT')
      expect({ appended: await appended, claimed: await claimed, claimedWhileWaiting }).toEqual({ appended: 'landed', claimed: true, claimedWhileWaiting: false })
      await lapsed
      const rows = await db.admin(`SELECT seq FROM ${SCHEMA}.events WHERE session_id = 'w' ORDER BY seq`)
      expect(rows.rows).toEqual([{ seq: '0' }, { seq: '1' }])
      // the lease is b's now: a writes nothing more
      writer.append([event(2, 'from the stale owner')])
      await expect(writer.barrier()).rejects.toMatchObject({ code: 'unavailable', details: { fenced: true } })
    } finally {
      await locker.end()
      await lapser.end()
    }
  })

  it('tells every replica of durable appends, and a replica whose lease is not renewed that it lost it', async () => {
    const { db, a, b } = await twoReplicas('n', 900)
    const heard: string[] = []
    b.replication.onAppended((id, count, openTurn) => heard.push(`${id} ${count} ${openTurn}`))
    expect(await a.replication.claim('n')).toBe(true)
    const writer = await a.store.openSession('n', noop)
    writer.append([event(0)], { title: null, eventCount: 1, lastEventAt: null, openTurn: true, pendingInbox: 0, nextDueAt: null })
    writer.append([event(1)], { title: null, eventCount: 2, lastEventAt: null, openTurn: false, pendingInbox: 0, nextDueAt: null })
    await writer.barrier()
    await vi.waitFor(() => expect(heard.at(-1)).toBe('n 2 false'))
    const lost: string[] = []
    a.replication.onLost((id) => lost.push(id))
    await db.admin(`UPDATE ${SCHEMA}.leases SET token = token + 1 WHERE session_id = 'n'`)
    await vi.waitFor(() => expect(lost).toEqual(['n']))
    expect(a.replication.holds('n')).toBe(false)
  })

  it('carries streamed text to the other replicas whole and in order, however long, and never ahead of the append that follows it', async () => {
    const { a, b } = await twoReplicas('t')
    expect(await a.replication.claim('t')).toBe(true)
    const heard: string[] = []
    const mine: string[] = []
    b.replication.onStreaming((id, piece) => heard.push(piece === null ? `${id} done` : `${id} ${piece.turn}.${piece.step} ${piece.text}`))
    b.replication.onAppended((id, count) => heard.push(`${id} appended ${count}`))
    a.replication.onStreaming((id) => mine.push(id))
    // far more than one notification may carry (8,000 bytes), with characters JSON escapes and pairs it must not part
    const long = Array.from({ length: 3000 }, (_, i) => `${i} "é" 😀\n`).join('')
    a.replication.shareStreaming('t', { turn: 1, step: 1, text: 'Hello, ' })
    a.replication.shareStreaming('t', { turn: 1, step: 1, text: long })
    a.replication.shareStreaming('t', { turn: 1, step: 2, text: 'next step' })
    a.replication.shareStreaming('t', null)
    const writer = await a.store.openSession('t', noop)
    writer.append([event(0)])
    await writer.barrier()
    await vi.waitFor(() => expect(heard.at(-1)).toBe('t appended 1'))
    const text = heard.filter((line) => line.startsWith('t 1.1 ')).map((line) => line.slice('t 1.1 '.length)).join('')
    expect(text).toBe(`Hello, ${long}`)
    expect(heard.filter((line) => !line.startsWith('t 1.1 '))).toEqual(['t 1.2 next step', 't done', 't appended 1'])
    expect(heard.findIndex((line) => !line.startsWith('t 1.1 '))).toBe(heard.length - 3)
    expect(mine).toEqual([])
  })

  it('runs a command on the replica that holds the session and carries its answer back', async () => {
    const { db, a, b } = await twoReplicas('c')
    const ran: string[] = []
    a.replication.onCommand(async (id, command) => {
      ran.push(`${id} ${command.name}`)
      return command.name === 'boom' ? { ok: false, error: { name: 'HostError', code: 'session-busy', message: 'busy' } } : { ok: true, value: { echo: command.args } }
    })
    expect(await a.replication.claim('c')).toBe(true)
    expect(await b.replication.submit('c', { name: 'echo', args: [1, 'two'] })).toEqual({ ok: true, value: { echo: [1, 'two'] } })
    expect(await b.replication.submit('c', { name: 'boom', args: null })).toEqual({ ok: false, error: { name: 'HostError', code: 'session-busy', message: 'busy' } })
    expect(ran).toEqual(['c echo', 'c boom'])
    expect((await db.admin(`SELECT count(*)::int AS n FROM ${SCHEMA}.commands WHERE result IS NULL`)).rows).toEqual([{ n: 0 }])
  })

  it('finds sessions with work and no live owner', async () => {
    const db = await freshDatabase()
    const a = await replicaStore(db, 'a')
    for (const id of ['idle', 'busy', 'held']) await a.store.createSession(header(id, 'UTC'))
    await db.admin(`UPDATE ${SCHEMA}.sessions SET open_turn = true WHERE id IN ('busy', 'held')`)
    expect(await a.replication.claim('held')).toBe(true)
    expect(await a.replication.orphans(10)).toEqual(['busy'])
  })
})

describe('sessions a replica watches (SPEC 14.3)', () => {
  /** Session `s` with one event, held by replica `a`; a host on replica `b` whose calls to `watch` are recorded. */
  async function heldElsewhere(db: TestDatabase, maxOpenSessions?: number) {
    const a = await replicaStore(db, 'a')
    const b = await replicaStore(db, 'b')
    await a.store.createSession(header('s', 'UTC'))
    expect(await a.replication.claim('s')).toBe(true)
    // b hears of event 0 before its host starts: the host is told of what a appends from then on
    const heardFirst = new Promise<void>((resolve) => b.replication.onAppended((id, count) => id === 's' && count === 1 && resolve()))
    const writer = await a.store.openSession('s', noop)
    writer.append([event(0)], summary)
    await writer.barrier()
    await writer.close()
    await heardFirst
    const watch = vi.spyOn(b.replication, 'watch')
    const host = await Host.create({ store: b.store, model: new ScriptedModel(), log: () => undefined, ...(maxOpenSessions === undefined ? {} : { maxOpenSessions }) })
    return { a, host, watch }
  }

  /** Replica `a` takes `s` over once this host let it go, and appends the user message `seq` there. */
  async function appendElsewhere(a: { store: PostgresStore; replication: Replication }, seq: number): Promise<void> {
    await vi.waitFor(async () => expect(await a.replication.claim('s')).toBe(true))
    const writer = await a.store.openSession('s', noop)
    writer.append([event(seq)], { ...summary, eventCount: seq + 1 })
    await writer.barrier()
    await writer.close()
  }

  it('stops watching a session once a page of it was read and nobody follows it', async () => {
    const db = await freshDatabase()
    const { host, watch } = await heldElsewhere(db)
    try {
      expect(await host.readEvents('s', { limit: 10 })).toEqual({ header: header('s', 'UTC'), page: { events: [event(0)], eventCount: 1 } })
      expect(watch.mock.calls).toEqual([
        ['s', true],
        ['s', false],
      ])
    } finally {
      await host.close()
    }
  })

  it('stops watching a session closed here that was followed while another replica held it', async () => {
    const db = await freshDatabase()
    const { a, host, watch } = await heldElsewhere(db, 1)
    try {
      const feed = await host.feed('s')
      const leave = feed.onEvents(() => undefined)
      await a.replication.release('s')
      await host.openSession('s')
      leave()
      expect(watch.mock.calls).toEqual([['s', true]])
      // opening another session closes `s` (one session open at most): nobody follows it any more
      await host.createSession({ id: 't', timeZone: 'UTC' })
      await vi.waitFor(() =>
        expect(watch.mock.calls).toEqual([
          ['s', true],
          ['s', false],
        ]),
      )
      expect(host.openCount).toBe(1)
    } finally {
      await host.close()
    }
  })

  it('announces to its event listeners only what another replica appended after a session closed here', async () => {
    const db = await freshDatabase()
    const { a, host } = await heldElsewhere(db, 1)
    const seen = heard(host)
    try {
      const leave = (await host.feed('s')).onEvents(() => undefined)
      await a.replication.release('s')
      const session = await host.openSession('s')
      await session.rename('kept here')
      await vi.waitFor(() => expect(seen).toEqual([1]))
      // opening another session closes `s` (one session open at most) and releases its lease
      await host.createSession({ id: 't', timeZone: 'UTC' })
      await appendElsewhere(a, 2)
      await vi.waitFor(() => expect(seen).toContain(2))
      expect(seen).toEqual([1, 2])
      leave()
    } finally {
      await host.close()
    }
  })

  it('announces to its event listeners what another replica appends to a session that was made and closed here', async () => {
    const db = await freshDatabase()
    const a = await replicaStore(db, 'a')
    const b = await replicaStore(db, 'b')
    const host = await Host.create({ store: b.store, model: new ScriptedModel(), log: () => undefined, maxOpenSessions: 1 })
    const seen = heard(host)
    try {
      const session = (await host.createSession({ id: 's', timeZone: 'UTC' })).session
      const leave = (await host.feed('s')).onEvents(() => undefined)
      await session.rename('made here')
      await vi.waitFor(() => expect(seen).toEqual([0]))
      await host.createSession({ id: 't', timeZone: 'UTC' })
      await appendElsewhere(a, 1)
      await vi.waitFor(() => expect(seen).toEqual([0, 1]))
      leave()
    } finally {
      await host.close()
    }
  })
})

describe('appends heard of after a later count (SPEC 14.3)', () => {
  it('tells its event listeners every event from where the first append began, when the poll read the count before the appends were heard of', async () => {
    const db = await freshDatabase()
    const a = await replicaStore(db, 'a')
    await a.store.createSession(header('s', 'UTC'))
    expect(await a.replication.claim('s')).toBe(true)
    const writer = await a.store.openSession('s', noop)
    writer.append([event(0)], summary)
    await writer.barrier()
    writer.append([event(1), event(2)], { ...summary, eventCount: 3 })
    writer.append([event(3), event(4)], { ...summary, eventCount: 5 })
    await writer.barrier()
    await writer.close()
    // b starts after those appends; it hears of them in the order a replica can: its poll's count (no start) first, then
    // the notifications of the two appends, the first one's count behind the poll's
    const b = await replicaStore(db, 'b')
    const host = await Host.create({ store: b.store, model: new ScriptedModel(), log: () => undefined })
    const seen = heard(host)
    const told: [number, boolean, number | null][] = []
    b.replication.onAppended((id, count, openTurn, firstSeq) => id === 's' && told.push([count, openTurn, firstSeq]))
    try {
      await db.admin(`SELECT pg_notify('schedule_web_events', 's 5 false')`)
      await db.admin(`SELECT pg_notify('schedule_web_events', 's 3 true 1')`)
      await db.admin(`SELECT pg_notify('schedule_web_events', 's 5 false 3')`)
      await vi.waitFor(() => expect(told).toHaveLength(3))
      // the count never goes back; the older append hands on its start with the newest count and status
      expect(told).toEqual([
        [5, false, null],
        [5, false, 1],
        [5, false, 3],
      ])
      // on the code before, the older notification was dropped and events 1 and 2 were never told
      await vi.waitFor(() => expect(seen).toEqual([1, 2, 3, 4]))
    } finally {
      await host.close()
    }
  })
})

describe('a forwarded send run again (SPEC 14.3)', () => {
  it('enters its message once when its command is taken again after its first run wrote it and went unanswered', async () => {
    const db = await freshDatabase()
    const store = await PostgresStore.open({ url: db.url, replica: { owner: 'holder', leaseMs: 3000 } })
    const host = await composeHost({ dataDir: await tempDir('sw-forwarded-'), model: new ScriptedModel(), store, log: () => undefined })
    try {
      await host.createSession({ id: 's', timeZone: 'UTC' })
      const body = JSON.stringify({ name: 'send', args: { input: { text: 'hello', clientTimeZone: 'UTC' }, rpcId: 'rpc-again', messageId: 'msg-again' } })
      const answered = JSON.stringify({ ok: true, value: { rpcId: 'rpc-again', messageId: 'msg-again' } })
      const results = async () => (await db.admin(`SELECT result FROM ${SCHEMA}.commands WHERE session_id = 's'`)).rows.map((row: { result: string | null }) => row.result)
      await db.admin(`INSERT INTO ${SCHEMA}.commands (session_id, body, created_at) VALUES ('s', $1, 0)`, [body])
      await db.admin(`SELECT pg_notify('schedule_web_commands', 's')`)
      await vi.waitFor(async () => expect(await results()).toEqual([answered]), { timeout: 10_000 })
      const { rows: runs } = await db.admin(`SELECT from_seq FROM ${SCHEMA}.command_runs`)
      // as if its runner had died before its answer committed: the command waits again, its run noted
      await db.admin(`UPDATE ${SCHEMA}.commands SET result = NULL WHERE session_id = 's'`)
      await db.admin(`SELECT pg_notify('schedule_web_commands', 's')`)
      await vi.waitFor(async () => expect(await results()).toEqual([answered]), { timeout: 10_000 })
      expect((await db.admin(`SELECT from_seq FROM ${SCHEMA}.command_runs`)).rows).toEqual(runs)
      const { rows } = await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = 's' AND type = 'inbox/enqueued'`)
      expect(rows.map((row: { event_json: string }) => (JSON.parse(row.event_json) as { data: { message: { id: string } } }).data.message.id)).toEqual(['msg-again'])
      const sent = [await host.send('s', { text: 'one', clientTimeZone: 'UTC' }), await host.send('s', { text: 'two', clientTimeZone: 'UTC' })]
      expect(new Set(sent.map((answer) => answer.messageId)).size).toBe(2)
    } finally {
      await host.close()
    }
  })
})

describe('a keyed send through several replicas (SPEC 14.3)', () => {
  it('enters a message once whichever replica its repeats reach, the owner or one that forwards it', async () => {
    const db = await freshDatabase()
    const replica = async (owner: string) =>
      composeHost({
        dataDir: await tempDir(`sw-keyed-${owner}-`),
        model: new ScriptedModel(),
        store: await PostgresStore.open({ url: db.url, replica: { owner, leaseMs: 3000 } }),
        log: () => undefined,
      })
    const a = await replica('a')
    const b = await replica('b')
    try {
      await a.createSession({ id: 's', timeZone: 'UTC' })
      const message = { text: 'hello from anywhere', clientTimeZone: 'UTC', idempotencyKey: 'k-1' }
      const forwarded = await b.send('s', message)
      expect(forwarded).toEqual({ rpcId: 'key-k-1', messageId: expect.stringMatching(/^msg-/) })
      expect([await b.send('s', message), await a.send('s', message)]).toEqual([forwarded, forwarded])
      await expect(b.send('s', { ...message, text: 'something else' })).rejects.toMatchObject({
        name: 'HostError',
        code: 'idempotency-key-reused',
        details: { messageId: forwarded.messageId },
      })
      // b's sends went to a, which holds the session, as commands
      const { rows: commands } = await db.admin(`SELECT body FROM ${SCHEMA}.commands WHERE session_id = 's' ORDER BY id`)
      expect(commands.map((row: { body: string }) => (JSON.parse(row.body) as { args: { input: { text: string } } }).args.input.text)).toEqual([
        'hello from anywhere',
        'hello from anywhere',
        'something else',
      ])
      const { rows } = await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = 's' AND type = 'inbox/enqueued'`)
      expect(rows.map((row: { event_json: string }) => (JSON.parse(row.event_json) as { data: { message: { id: string } } }).data.message.id)).toEqual([
        forwarded.messageId,
      ])
    } finally {
      await b.close()
      await a.close()
    }
  })
})

describe('a keyed reminder through several replicas (SPEC 14.3)', () => {
  it('makes a reminder once whichever replica its repeats reach, the owner or one that forwards it', async () => {
    const db = await freshDatabase()
    const replica = async (owner: string) => {
      const { host, schedules } = await compose({
        dataDir: await tempDir(`sw-keyed-reminder-${owner}-`),
        model: new ScriptedModel(),
        store: await PostgresStore.open({ url: db.url, replica: { owner, leaseMs: 3000 } }),
        log: () => undefined,
      })
      return { host, app: createApp({ host, schedules }) }
    }
    const a = await replica('a')
    const b = await replica('b')
    try {
      await a.host.createSession({ id: 's', timeZone: 'UTC' })
      const create = (app: typeof a.app, fields: Record<string, unknown>) =>
        call(app, 'POST', '/api/sessions/s/schedules', fields, { 'idempotency-key': 'reminder-1' })
      const fields = { prompt: 'water the plants', after_seconds: 3600 }
      const forwarded = await create(b.app, fields)
      expect(forwarded).toMatchObject({ status: 201, body: { schedule: { id: 'schedule-1', prompt: 'water the plants', afterSeconds: 3600 } } })
      expect([await create(b.app, fields), await create(a.app, fields)]).toEqual([forwarded, forwarded])
      expect(await create(b.app, { ...fields, after_seconds: 60 })).toEqual({
        status: 422,
        body: apiError('idempotency-key-reused', 'Idempotency-Key "reminder-1" was already used for a different request', { scheduleId: 'schedule-1' }),
      })
      // b's requests went to a, which holds the session, as commands
      const { rows: commands } = await db.admin(`SELECT body FROM ${SCHEMA}.commands WHERE session_id = 's' ORDER BY id`)
      expect(commands.map((row: { body: string }) => JSON.parse(row.body) as unknown)).toEqual([
        { name: 'schedule.create', args: { fields, key: 'reminder-1' } },
        { name: 'schedule.create', args: { fields, key: 'reminder-1' } },
        { name: 'schedule.create', args: { fields: { ...fields, after_seconds: 60 }, key: 'reminder-1' } },
      ])
      const { rows } = await db.admin(`SELECT event_json FROM ${SCHEMA}.events WHERE session_id = 's' AND type = 'schedule/change'`)
      expect(rows.map((row: { event_json: string }) => (JSON.parse(row.event_json) as { data: { operation: string } }).data.operation)).toEqual(['create'])
    } finally {
      await b.host.close()
      await a.host.close()
    }
  })
})

describe('reminder notices of another replica (SPEC 8, 14.3)', () => {
  it('announces a reminder delivered by its owner on a replica that never followed its session, when the delivery is the first it hears of it', async () => {
    const db = await freshDatabase()
    const at = Date.parse('2026-07-15T06:00:00.000Z')
    const replica = async (owner: string, clock: FakeClock, timers: ManualTimers) => {
      const store = await PostgresStore.open({ url: db.url, replica: { owner, leaseMs: 3000 } })
      const { host, schedules } = await compose({ dataDir: await tempDir(`sw-notices-${owner}-`), model: new ScriptedModel(), store, clock, timers, log: () => undefined })
      return { host, app: createApp({ host, schedules }) }
    }
    const clock = new FakeClock(at)
    const timers = new ManualTimers()
    const a = await replica('a', clock, timers)
    // the reminder is made on a before b starts (b restarted since, or joined later): b never followed the session
    await call(a.app, 'POST', '/api/sessions', { sessionId: 's', timeZone: 'UTC' })
    expect((await call(a.app, 'POST', '/api/sessions/s/schedules', { prompt: 'stretch', after_seconds: 60 })).status).toBe(201)
    const b = await replica('b', new FakeClock(at), new ManualTimers())
    const notices = watchNotices(b.host)
    const told: number[] = []
    b.host.onEvents((id, events) => told.push(...events.map((e) => e.seq)))
    try {
      clock.advance(60_000)
      timers.fireAll()
      const session = await a.host.openSession('s')
      await vi.waitFor(() => expect(session.events().at(-1)?.type).toBe('turn/end'))
      const queued = session.events().findIndex((e) => e.type === 'inbox/enqueued')
      // b tells its listeners of every event a appended from the follow-up on, once each and in order (on the code
      // before, none of the follow-up's append: the first b heard of s only taught it the session's count)
      const appended = session.events().slice(queued).map((e) => e.seq)
      await vi.waitFor(() => expect(told).toEqual(appended))
      expect(notices.since(0).flatMap((n) => (n.notice.event === 'reminder-due' ? [n.notice.data] : []))).toEqual([
        { sessionId: 's', scheduleId: 'schedule-1', prompt: 'stretch', occurrenceAt: '2026-07-15T06:01:00.000Z' },
      ])
    } finally {
      await b.host.close()
      await a.host.close()
    }
  })
})
