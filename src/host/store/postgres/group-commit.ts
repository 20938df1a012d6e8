import type pg from 'pg'
import { setTimeout as sleep } from 'node:timers/promises'
import type { SessionEvent } from '../../../protocol/index.ts'
import { StoreError } from '../store-error.ts'
import type { StoredSummary } from '../store.ts'
import { SCHEMA } from './migrations.ts'
import { refusedByServer } from './pg-failure.ts'
import { checkout } from './pool-client.ts'
import { EVENTS_CHANNEL, NOW_MS } from './replication.ts'
import { columnTitle } from './column-text.ts'

/**
 * Appends the batches of many sessions in one transaction (a single statement commits on its
 * own). Each session's row count is its fence, and with replicas its lease too (owner, token,
 * not expired on the database clock, and locked until the statement ends, so a claim waits for
 * it rather than landing while the append waits): a session whose count is no longer its batch's first seq,
 * or whose lease this writer no longer holds, appends nothing and is left out of the result; the
 * others' events are inserted and their counts moved on — with the summary that came with the
 * batch, when one did — all or nothing, and each NOTIFYs its new count and its batch's first seq on commit (SPEC 14.3).
 */
const APPEND: pg.QueryArrayConfig = {
  name: 'schedule-web-append',
  rowMode: 'array',
  text: `WITH batch (id, first_seq, next_seq, summary_count, title, last_event_at, open_turn, pending_inbox, next_due_at, lease_owner, lease_token) AS (
      SELECT * FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::boolean[], $8::integer[], $9::bigint[], $15::text[], $16::bigint[])
    ), held AS (
      -- the leases this append is fenced by, locked: no replica can take one over until the append commits or fails
      -- (checked alone, a lease taken while the append waited for its session's row let a stale owner's write land)
      SELECT l.session_id FROM ${SCHEMA}.leases AS l JOIN batch AS b ON l.session_id = b.id
       WHERE b.lease_token IS NOT NULL AND l.owner = b.lease_owner AND l.token = b.lease_token AND l.expires_at >= ${NOW_MS}
       FOR SHARE OF l
    ), fence AS (
      UPDATE ${SCHEMA}.sessions AS s SET
        event_count = b.next_seq,
        summary_count = CASE WHEN b.summary_count IS NULL THEN s.summary_count ELSE b.summary_count END,
        title = CASE WHEN b.summary_count IS NULL THEN s.title ELSE b.title END,
        last_event_at = CASE WHEN b.summary_count IS NULL THEN s.last_event_at ELSE b.last_event_at END,
        open_turn = CASE WHEN b.summary_count IS NULL THEN s.open_turn ELSE b.open_turn END,
        pending_inbox = CASE WHEN b.summary_count IS NULL THEN s.pending_inbox ELSE b.pending_inbox END,
        next_due_at = CASE WHEN b.summary_count IS NULL THEN s.next_due_at ELSE b.next_due_at END
      FROM batch AS b WHERE s.id = b.id AND s.event_count = b.first_seq
        AND (b.lease_token IS NULL OR b.id IN (SELECT session_id FROM held))
      RETURNING s.id, s.event_count, s.open_turn, b.first_seq
    ), appended AS (
      INSERT INTO ${SCHEMA}.events (session_id, seq, time, type, event_json)
      SELECT e.session_id, e.seq, e.time, e.type, e.event_json
      FROM unnest($10::text[], $11::bigint[], $12::bigint[], $13::text[], $14::text[]) AS e (session_id, seq, time, type, event_json)
      JOIN fence ON fence.id = e.session_id
    )
    SELECT id, pg_notify('${EVENTS_CHANNEL}', id || ' ' || event_count || ' ' || open_turn || ' ' || first_seq) FROM fence`,
}

/**
 * Which batches of a transaction whose answer was lost are in the log: a session's batch landed
 * when its first event is stored at its seq with the very same JSON (another writer's event at
 * that seq is not it); a batch of a summary alone, when the session's summary counts as far.
 */
const LANDED = `SELECT b.id FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS b (id, seq, first_json, summary_count)
  WHERE (b.first_json IS NOT NULL AND EXISTS (
          SELECT 1 FROM ${SCHEMA}.events AS e WHERE e.session_id = b.id AND e.seq = b.seq AND e.event_json = b.first_json))
     OR (b.first_json IS NULL AND EXISTS (SELECT 1 FROM ${SCHEMA}.sessions AS s WHERE s.id = b.id AND s.summary_count = b.summary_count))`

/** Ends the backend that ran a transaction whose answer was lost (waiting up to 10 s for it to exit); true once it is gone. */
export const END_BACKEND = `SELECT pg_terminate_backend(pid, 10000) AS gone FROM pg_stat_activity
  WHERE pid = $1 AND datname = current_database() AND usename = current_user AND state <> 'idle'`

/** How long a transaction whose answer was lost waits for the database to say whether it committed, before its batches fail as unknown. */
const SETTLE_MS = 3000
/** Pause between two attempts to reach the database while settling. */
const SETTLE_RETRY_MS = 100

/** Why a batch did not commit: the database's error, and the backend whose outcome is unknown when the connection was lost. */
export class CommitFailure extends Error {
  constructor(
    readonly error: unknown,
    readonly unsettledPid: number | null,
  ) {
    super(error instanceof Error ? error.message : String(error))
    this.name = 'CommitFailure'
  }
}

/** The lease an append is fenced by: its owner and token (null without replicas). */
export type LeaseFence = { owner: string; token: number } | null

type Pending = {
  sessionId: string
  start: number
  lease: LeaseFence
  events: readonly SessionEvent[]
  summary: StoredSummary | null
  /** True once it went through a transaction whose answer was lost and that did not commit. */
  retried: boolean
  resolve: () => void
  reject: (failure: CommitFailure) => void
}

function backendPid(client: pg.PoolClient): number | null {
  const pid = (client as unknown as { processID?: unknown }).processID
  return typeof pid === 'number' ? pid : null
}

function fenced(sessionId: string, start: number, lease: LeaseFence): StoreError {
  return new StoreError(
    'unavailable',
    lease === null
      ? `storage for session ${sessionId} is unavailable: another writer appended to it (its log no longer ends at seq ${start - 1}); it reopens from the database`
      : `storage for session ${sessionId} is unavailable: this replica no longer holds its lease, or another writer appended to it; it reopens where it is held`,
    { fenced: true },
  )
}

/**
 * Group commit across the sessions of one store (SPEC 2.5, 14.1): batches submitted while
 * transactions are in flight wait and go together in the next one, so the commits per second do
 * not grow with the number of sessions. A session has at most one batch in a transaction. When the
 * server refuses a transaction of several sessions, each batch is tried alone, so one session's
 * trouble never fails the others.
 */
export class GroupCommitter {
  private queue: Pending[] = []
  private running = 0

  constructor(
    private readonly pool: pg.Pool,
    private readonly maxInFlight: number,
    private readonly maxEvents = 10_000,
  ) {}

  /** Resolves once `events` (seqs `start`…) of the session, and the summary after them, are committed; rejects with a CommitFailure. */
  commit(sessionId: string, start: number, events: readonly SessionEvent[], summary: StoredSummary | null, lease: LeaseFence = null): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push({ sessionId, start, lease, events, summary, retried: false, resolve, reject })
      this.pump()
    })
  }

  private pump(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const group: Pending[] = []
      const rest: Pending[] = []
      const sessions = new Set<string>()
      let events = 0
      for (const pending of this.queue) {
        const fits = group.length === 0 || events + pending.events.length <= this.maxEvents
        if (fits && !sessions.has(pending.sessionId)) {
          group.push(pending)
          sessions.add(pending.sessionId)
          events += pending.events.length
        } else rest.push(pending)
      }
      this.queue = rest
      this.running++
      void this.run(group).finally(() => {
        this.running--
        this.pump()
      })
    }
  }

  private async run(group: readonly Pending[]): Promise<void> {
    let committed: Set<string>
    try {
      committed = await this.append(group)
    } catch (failure) {
      const outcome = failure as CommitFailure
      if (outcome.unsettledPid !== null) return this.settle(group, outcome)
      if (group.length > 1) {
        for (const pending of group) await this.run([pending])
        return
      }
      for (const pending of group) pending.reject(outcome)
      return
    }
    for (const pending of group) {
      if (committed.has(pending.sessionId)) pending.resolve()
      else pending.reject(new CommitFailure(fenced(pending.sessionId, pending.start, pending.lease), null))
    }
  }

  /**
   * After a transaction whose answer was lost (the connection dropped, or the statement outlived
   * its timeout): ends the backend that ran it, so it can never commit later, then reads which
   * batches are in the log. Those are acknowledged — they committed; the others are sure not to
   * have and go again once (the fence keeps a second try exact). Only when the database cannot be
   * reached to tell within SETTLE_MS do the batches fail as unknown, for `repair()` to settle.
   */
  private async settle(group: readonly Pending[], outcome: CommitFailure): Promise<void> {
    const pid = outcome.unsettledPid as number
    const deadline = Date.now() + SETTLE_MS
    let landed: Set<string> | null = null
    while (landed === null) {
      const attempt = this.landed(group, pid).catch(() => null)
      const left = deadline - Date.now()
      // the deadline's timer outlives an attempt that won the race: it must not hold a stopping process
      landed = await Promise.race([attempt, sleep(Math.max(0, left), null, { ref: false })])
      if (landed !== null || Date.now() + SETTLE_RETRY_MS >= deadline) break
      await sleep(SETTLE_RETRY_MS)
    }
    if (landed === null) {
      for (const pending of group) pending.reject(outcome)
      return
    }
    const again: Pending[] = []
    for (const pending of group) {
      if (landed.has(pending.sessionId)) pending.resolve()
      else if (pending.retried) pending.reject(new CommitFailure(outcome.error, null))
      else {
        pending.retried = true
        again.push(pending)
      }
    }
    this.queue = [...again, ...this.queue]
  }

  /** Ends the backend `pid` and reads which of the group's batches are in the log; rejects while the database is out of reach or the backend still runs. */
  private async landed(group: readonly Pending[], pid: number): Promise<Set<string>> {
    const client = await checkout(this.pool)
    let lost: Error | undefined
    try {
      const ended = await client.query<{ gone: boolean }>(END_BACKEND, [pid])
      if (!ended.rows.every((row) => row.gone)) throw new Error(`the append in flight on database backend ${pid} has not ended yet`)
      const result = await client.query<{ id: string }>(LANDED, [
        group.map((pending) => pending.sessionId),
        group.map((pending) => pending.start),
        group.map((pending) => (pending.events.length > 0 ? JSON.stringify(pending.events[0]) : null)),
        group.map((pending) => pending.summary?.eventCount ?? null),
      ])
      return new Set(result.rows.map((row) => row.id))
    } catch (error) {
      lost = error instanceof Error ? error : new Error(String(error))
      throw error
    } finally {
      client.release(lost ?? false)
    }
  }

  /** Runs one transaction for the group; resolves with the sessions whose fence held. */
  private async append(group: readonly Pending[]): Promise<Set<string>> {
    const ids: string[] = []
    const starts: number[] = []
    const ends: number[] = []
    const summaryCounts: (number | null)[] = []
    const titles: (string | null)[] = []
    const lastEventAts: (number | null)[] = []
    const openTurns: (boolean | null)[] = []
    const pendingInboxes: (number | null)[] = []
    const nextDueAts: (number | null)[] = []
    const leaseOwners: (string | null)[] = []
    const leaseTokens: (number | null)[] = []
    const owners: string[] = []
    const seqs: number[] = []
    const times: number[] = []
    const types: string[] = []
    const texts: string[] = []
    for (const pending of group) {
      const summary = pending.summary
      ids.push(pending.sessionId)
      starts.push(pending.start)
      ends.push(pending.start + pending.events.length)
      summaryCounts.push(summary?.eventCount ?? null)
      titles.push(columnTitle(summary?.title ?? null))
      lastEventAts.push(summary?.lastEventAt ?? null)
      openTurns.push(summary?.openTurn ?? null)
      pendingInboxes.push(summary?.pendingInbox ?? null)
      nextDueAts.push(summary?.nextDueAt ?? null)
      leaseOwners.push(pending.lease?.owner ?? null)
      leaseTokens.push(pending.lease?.token ?? null)
      for (const event of pending.events) {
        owners.push(pending.sessionId)
        seqs.push(event.seq)
        times.push(event.time)
        types.push(event.type)
        texts.push(JSON.stringify(event))
      }
    }
    let client: pg.PoolClient
    try {
      client = await checkout(this.pool)
    } catch (error) {
      throw new CommitFailure(error, null)
    }
    let lost: Error | undefined
    try {
      const result = await client.query<[string]>({
        ...APPEND,
        values: [ids, starts, ends, summaryCounts, titles, lastEventAts, openTurns, pendingInboxes, nextDueAts, owners, seqs, times, types, texts, leaseOwners, leaseTokens],
      })
      return new Set(result.rows.map((row) => row[0]))
    } catch (error) {
      if (refusedByServer(error)) throw new CommitFailure(error, null)
      lost = error instanceof Error ? error : new Error(String(error))
      throw new CommitFailure(error, backendPid(client))
    } finally {
      client.release(lost ?? false)
    }
  }
}
