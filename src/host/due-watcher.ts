import type { Clock, Timers } from './plugin-api.ts'
import type { DueEntry } from './store/index.ts'

/** Longest wait between two looks at the clock, so a wall-clock jump is noticed within it (SPEC 12.2). */
export const MAX_DUE_WAIT_MS = 30_000

/** First wait before a wake that was refused (the session held elsewhere, or its store failing) is tried again; it doubles. */
export const FIRST_RETRY_MS = 1_000

/** Longest wait between two tries of a refused wake. */
export const MAX_RETRY_MS = 300_000

/** The wait before the next try after `failures` failed ones in a row: 1 s, twice as long each time, at most `longestMs`. */
export function retryWaitMs(failures: number, longestMs: number): number {
  return Math.min(longestMs, FIRST_RETRY_MS * 2 ** Math.min(failures, 16))
}

/** What the due watcher needs from the host. */
export type DueWatcherDeps = {
  clock: Clock
  timers: Timers
  /** The earliest entries of the due index. */
  due(limit: number): Promise<DueEntry[]>
  /** True when the session is open here (its own plugins watch it then). */
  isOpen(id: string): boolean
  /** Opens a session whose reminder is due (its plugins deliver it). */
  wake(id: string): Promise<void>
  /** How many due entries to look at (more than can be open at once). */
  lookahead: number
  /**
   * Longest wait between two looks at the index (`MAX_DUE_WAIT_MS` by default), also when nothing in it is due: with
   * replicas, other replicas add to it, and a reminder of a session whose owner died is due here then.
   */
  pollMs?: number
}

/** A wake that was refused for one occurrence: when to try it again, and the wait before that. */
type Refusal = { nextDueAt: number; retryAt: number; waitMs: number }

/**
 * Wakes sessions that are not open when their next reminder is due (SPEC 12.1): one timer for the
 * earliest entry of the store's due index, re-read every 30 s at most (or `pollMs`) so clock jumps and
 * entries another replica made are noticed. A wake that was refused is tried again after 1 s, then
 * after twice as long each time (at most 5 min, or `pollMs`), until it succeeds or the entry moves. A look that
 * fails (the index cannot be read) is tried again after 1 s, doubling up to the longest wait.
 */
export class DueWatcher {
  private timer: unknown = null
  private running: Promise<void> | null = null
  private again = false
  private stopped = false
  /** Looks that failed in a row (the store's due index could not be read): the next is tried after a backoff. */
  private failures = 0
  private readonly refused = new Map<string, Refusal>()

  constructor(private readonly deps: DueWatcherDeps) {}

  /** Looks at the due index again (coalesced): wakes what is due, arms a timer for what comes next. */
  refresh(): void {
    if (this.stopped) return
    if (this.running !== null) {
      this.again = true
      return
    }
    this.running = this.look()
      .then(
        () => {
          this.failures = 0
        },
        () => this.lookLater(),
      )
      .finally(() => {
        this.running = null
        if (this.again) {
          this.again = false
          this.refresh()
        }
      })
  }

  /**
   * A look failed (the store down, a wake that threw): the next is armed all the same, after 1 s and twice as long
   * each time up to the longest wait, so reminders of sessions not open here are delivered once the store is back.
   */
  private lookLater(): void {
    if (this.stopped) return
    if (this.timer !== null) this.deps.timers.clear(this.timer)
    const wait = retryWaitMs(this.failures, Math.min(MAX_DUE_WAIT_MS, this.deps.pollMs ?? MAX_DUE_WAIT_MS))
    this.failures++
    this.timer = this.deps.timers.set(() => {
      this.timer = null
      this.refresh()
    }, wait)
  }

  /** Stops watching. */
  stop(): void {
    this.stopped = true
    if (this.timer !== null) this.deps.timers.clear(this.timer)
    this.timer = null
  }

  private async look(): Promise<void> {
    if (this.timer !== null) this.deps.timers.clear(this.timer)
    this.timer = null
    const listed = await this.deps.due(this.deps.lookahead)
    const now = this.deps.clock.now()
    const waiting = (entry: DueEntry): boolean => {
      const refusal = this.refused.get(entry.id)
      return refusal !== undefined && refusal.nextDueAt === entry.nextDueAt && refusal.retryAt > now
    }
    // refusals of occurrences no longer listed are forgotten (the entry moved, or the session is gone)
    const listedAt = new Map(listed.map((entry) => [entry.id, entry.nextDueAt]))
    for (const [id, refusal] of this.refused) if (listedAt.get(id) !== refusal.nextDueAt) this.refused.delete(id)
    const entries = listed.filter((entry) => !this.deps.isOpen(entry.id))
    for (const entry of entries) {
      if (this.stopped) return
      if (entry.nextDueAt > now) break
      if (waiting(entry)) continue
      await this.deps.wake(entry.id)
      if (this.deps.isOpen(entry.id)) this.refused.delete(entry.id)
      else this.refuse(entry, now)
    }
    if (this.stopped) return
    // the next look: when the next entry comes due, a refused wake is tried again, or the longest wait is up
    let at = now + (this.deps.pollMs ?? MAX_DUE_WAIT_MS)
    const next = entries.find((entry) => entry.nextDueAt > now)
    if (next !== undefined) at = Math.min(at, next.nextDueAt)
    for (const refusal of this.refused.values()) at = Math.min(at, refusal.retryAt)
    const wait = Math.min(MAX_DUE_WAIT_MS, Math.max(0, at - now))
    this.timer = this.deps.timers.set(() => {
      this.timer = null
      this.refresh()
    }, wait)
  }

  private refuse(entry: DueEntry, now: number): void {
    const earlier = this.refused.get(entry.id)
    // never longer than a look's longest wait: with replicas, a dead owner's lease lapses within one
    const longest = Math.min(MAX_RETRY_MS, this.deps.pollMs ?? MAX_RETRY_MS)
    const waitMs = earlier !== undefined && earlier.nextDueAt === entry.nextDueAt ? Math.min(longest, earlier.waitMs * 2) : Math.min(longest, FIRST_RETRY_MS)
    this.refused.set(entry.id, { nextDueAt: entry.nextDueAt, retryAt: now + waitMs, waitMs })
  }
}
