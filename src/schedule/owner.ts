import { realTimers, type Clock, type SessionView, type Timers, randomId } from '../host/index.ts'
import { dispatchChange, scheduleChangeDraft } from './changes.ts'
import { dueOccurrences, nextDueAt, type DueOccurrence } from './fold.ts'
import { toScheduledAt } from './absolute-time.ts'
import { errorMessage, followUpMessage, type FollowUpReminder } from '../protocol/index.ts'
import { sessionScheduleFold } from './session-state.ts'
import type { ScheduleWriter } from './writer.ts'

/** Longest single timer segment (setTimeout's limit). */
export const MAX_TIMER_MS = 2 ** 31 - 1

/** Longest wait between two looks at the wall clock, so a jump (forward or back) is noticed within it (SPEC 12.2). */
export const CLOCK_CHECK_MS = 30_000

export { realTimers, type Timers } from '../host/index.ts'

type Armed = { session: SessionView; handle: unknown; target: number }

/**
 * The live owner of every open session's reminders (SPEC 7.5): waits for the earliest target in
 * bounded segments, re-reading the clock on every wake, and delivers due reminders as one queued
 * follow-up inside an exclusive maintenance claim, then records the dispatch durably.
 */
export class ScheduleOwner {
  private readonly armed = new Map<string, Armed>()
  private readonly delivering = new Set<string>()
  private stopped = false

  constructor(
    private readonly clock: Clock,
    private readonly writer: ScheduleWriter,
    private readonly timers: Timers = realTimers,
    private readonly log: (line: string) => void = () => undefined,
  ) {}

  /** (Re)arms the timer of a session from its folded state. */
  arm(session: SessionView): void {
    if (this.stopped || session.closed) return
    this.disarm(session.id)
    const current = session.fold(sessionScheduleFold)
    if (!current.ok) return
    const target = nextDueAt(current.state)
    if (target === null) return
    const wait = target - this.clock.now()
    if (wait <= 0) {
      void this.deliver(session)
      return
    }
    const handle = this.timers.set(() => this.wake(session, target), Math.min(wait, CLOCK_CHECK_MS, MAX_TIMER_MS))
    this.armed.set(session.id, { session, handle, target })
  }

  /** Drops the timer of a session that was closed (it is re-armed when the session reopens). */
  forget(id: string): void {
    this.disarm(id)
  }

  /** Stops every timer; nothing is delivered afterwards. */
  stop(): void {
    this.stopped = true
    for (const id of [...this.armed.keys()]) this.disarm(id)
  }

  private disarm(id: string): void {
    const armed = this.armed.get(id)
    if (armed) this.timers.clear(armed.handle)
    this.armed.delete(id)
  }

  private wake(session: SessionView, target: number): void {
    this.armed.delete(session.id)
    if (this.stopped) return
    if (this.clock.now() < target) this.arm(session)
    else void this.deliver(session)
  }

  /** Delivers what is due now; waits once for the session to become idle when a turn holds it. */
  async deliver(session: SessionView): Promise<void> {
    if (this.stopped || session.closed || this.delivering.has(session.id)) return
    this.delivering.add(session.id)
    try {
      for (;;) {
        if (session.running) await session.whenIdle()
        if (this.stopped || session.closed) return
        try {
          await session.runMaintenance(() => this.writer.exclusive(session, () => this.dispatchDue(session)))
          return
        } catch (error) {
          if (!session.running || session.closed) throw error
        }
      }
    } catch (error) {
      // a session whose store failed is reopened by the host, which logs the failure once and re-arms it
      if (!session.closed) this.log(`session ${session.id}: reminder delivery failed: ${errorMessage(error)}`)
    } finally {
      this.delivering.delete(session.id)
      this.arm(session)
    }
  }

  private async dispatchDue(session: SessionView): Promise<void> {
    const current = session.fold(sessionScheduleFold)
    if (!current.ok) return
    const due = dueOccurrences(current.state, this.clock.now())
    if (due.length === 0) return
    const reminders = due.flatMap(followUpBlocks)
    const dispatches = due.map((o) => scheduleChangeDraft(dispatchChange(o.id, o.acceptedAt, o.plan.missed)))
    // the follow-up and its dispatch go in one append: on PostgreSQL one transaction, so a reminder is delivered exactly once (SPEC 14.3)
    if (reminders.length > 0) await session.enqueue(followUpMessage(randomId('reminder-'), reminders), 'next-turn', dispatches)
    else {
      await session.append(dispatches)
      await session.flush()
    }
  }
}

/** The follow-up blocks of one due reminder: one per delivered occurrence, the first naming what was missed. */
export function followUpBlocks(due: DueOccurrence): FollowUpReminder[] {
  return due.plan.deliver.map((at, index) => ({
    id: due.id,
    occurrenceAt: toScheduledAt(at),
    prompt: due.prompt,
    ...(index === 0 && due.plan.missed > 0 ? { missed: due.plan.missed } : {}),
  }))
}
