import type pg from 'pg'
import type { SessionEvent, SessionHeader } from '../../../protocol/index.ts'
import { StoreError, storageUnavailable } from '../store-error.ts'
import type { SessionWriter, StoredSummary } from '../store.ts'
import { afterQueuedWork, DurableWriter } from '../durability.ts'
import { END_BACKEND, type CommitFailure, type GroupCommitter, type LeaseFence } from './group-commit.ts'
import { unavailable } from './pg-failure.ts'

/** Most events one batch gathers from several appends (a longer queue goes in several transactions, in order; one append is never split). */
const MAX_BATCH_EVENTS = 10_000

/**
 * Appends of one session on PostgreSQL with group commit: a batch waits for the work queued with its
 * first append (`afterQueuedWork`), events queued while the session's batch is in flight go
 * together in its next one, and the store's committer joins the batches of many
 * sessions in one transaction. An event is durable when its transaction commits (SPEC 14.2). A
 * batch whose answer was lost is settled by the committer (it committed, or it goes again); only
 * when the database stays out of reach does the writer fail with the outcome unknown, and then
 * `repair()` waits until that backend is gone, so a reopen reads the settled log.
 */
export class PostgresSessionWriter extends DurableWriter implements SessionWriter {
  /** Queued appends, each kept whole: the events of one `append` always commit in one transaction. */
  private queue: (readonly SessionEvent[])[] = []
  /** The latest summary appended, with the event count it describes, until it is committed. */
  private summary: { summary: StoredSummary; count: number } | null = null
  private cycling: Promise<void> | null = null
  private closed = false
  /** The backend that ran a batch whose outcome is unknown, until repair saw it end. */
  private unsettled: number | null = null

  constructor(
    private readonly pool: pg.Pool,
    private readonly committer: GroupCommitter,
    readonly header: SessionHeader,
    durableCount: number,
    /** The lease its appends are fenced by (replicas), read at each commit; 'lost' once this replica no longer holds it. */
    private readonly lease: () => LeaseFence | 'lost' = () => null,
    /** What must reach the database before this session's next append commits (its streamed text, for other replicas), or null. */
    private readonly beforeCommit: () => Promise<void> | null = () => null,
  ) {
    super(durableCount)
  }

  append(events: readonly SessionEvent[], summary?: StoredSummary): void {
    if (this.durability.failure) throw this.durability.failure
    if (this.closed) throw storageUnavailable(this.header.id, new Error('the session is closed'))
    for (const [i, event] of events.entries()) {
      if (event.seq !== this.accepted + i) {
        throw new StoreError('conflict', `session ${this.header.id}: append of seq ${event.seq} where seq ${this.accepted + i} is next`)
      }
    }
    if (events.length > 0) this.queue.push(events)
    this.accepted += events.length
    if (summary !== undefined) this.summary = { summary, count: this.accepted }
    if (events.length > 0 || summary !== undefined) this.kick()
  }

  async repair(): Promise<void> {
    await this.cycling
    const pid = this.unsettled
    if (pid === null) return
    let ended: boolean
    try {
      const result = await this.pool.query<{ gone: boolean }>(END_BACKEND, [pid])
      ended = result.rows.every((row) => row.gone)
    } catch (error) {
      throw unavailable(`session ${this.header.id}`, error)
    }
    if (!ended) throw storageUnavailable(this.header.id, new Error(`the append in flight on database backend ${pid} has not ended yet`))
    this.unsettled = null
  }

  async close(): Promise<void> {
    this.closed = true
    await this.cycling
  }

  private kick(): void {
    if (this.cycling !== null || this.durability.failure) return
    this.cycling = afterQueuedWork().then(() => this.cycle()).finally(() => {
      this.cycling = null
      if ((this.queue.length > 0 || this.summary !== null) && !this.durability.failure) this.kick()
    })
  }

  private async cycle(): Promise<void> {
    while ((this.queue.length > 0 || this.summary !== null) && !this.durability.failure) {
      let taken = 0
      let size = 0
      while (taken < this.queue.length && (taken === 0 || size + this.queue[taken].length <= MAX_BATCH_EVENTS)) size += this.queue[taken++].length
      const batch = this.queue.slice(0, taken).flat()
      this.queue = this.queue.slice(taken)
      const end = this.durability.count + batch.length
      const pending = this.summary
      const summary = pending !== null && pending.count === end ? pending.summary : null
      if (batch.length === 0 && summary === null) {
        this.summary = null
        return
      }
      const first = this.beforeCommit()
      if (first !== null) await first
      const lease = this.lease()
      if (lease === 'lost') {
        this.fail(new StoreError('unavailable', `storage for session ${this.header.id} is unavailable: this replica no longer holds its lease`, { fenced: true }))
        return
      }
      try {
        await this.committer.commit(this.header.id, this.durability.count, batch, summary, lease)
      } catch (error) {
        const failure = error as CommitFailure
        this.unsettled = failure.unsettledPid
        this.fail(failure.error)
        return
      }
      if (summary !== null && this.summary === pending) this.summary = null
      if (batch.length === 0) continue
      this.durability.advance(batch.length)
    }
  }

  private fail(error: unknown): void {
    if (!this.durability.failure) this.durability.fail(unavailable(`session ${this.header.id}`, error))
  }
}
