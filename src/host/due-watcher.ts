import type { Clock, Timers } from './plugin-api.ts'
import type { DueEntry } from './store/index.ts'

/** Longest wait between two looks at the clock, so a wall-clock jump is noticed within it (SPEC 12.2). */
export const MAX_DUE_WAIT_MS = 30_000

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
}

/**
 * Wakes sessions that are not open when their next reminder is due (SPEC 12.1): one timer for the
 * earliest entry of the store's due index, re-read every 30 s at most so clock jumps are noticed.
 */
export class DueWatcher {
  private timer: unknown = null
  private running: Promise<void> | null = null
  private again = false
  private stopped = false
  private readonly refused = new Map<string, number>()

  constructor(private readonly deps: DueWatcherDeps) {}

  /** Looks at the due index again (coalesced): wakes what is due, arms a timer for what comes next. */
  refresh(): void {
    if (this.stopped) return
    if (this.running !== null) {
      this.again = true
      return
    }
    this.running = this.look()
      .catch(() => undefined)
      .finally(() => {
        this.running = null
        if (this.again) {
          this.again = false
          this.refresh()
        }
      })
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
    const entries = (await this.deps.due(this.deps.lookahead)).filter(
      (entry) => !this.deps.isOpen(entry.id) && this.refused.get(entry.id) !== entry.nextDueAt,
    )
    const now = this.deps.clock.now()
    for (const entry of entries) {
      if (this.stopped) return
      if (entry.nextDueAt > now) break
      await this.deps.wake(entry.id)
      if (!this.deps.isOpen(entry.id)) this.refused.set(entry.id, entry.nextDueAt)
    }
    const next = entries.find((entry) => entry.nextDueAt > now)
    if (next === undefined || this.stopped) return
    const wait = Math.min(MAX_DUE_WAIT_MS, next.nextDueAt - now)
    this.timer = this.deps.timers.set(() => {
      this.timer = null
      this.refresh()
    }, wait)
  }
}
