import type { ScheduleView } from '../../protocol/index.ts'
import { countdownText, instantMs, reminderState, type ReminderState } from './countdown.ts'
import { formatDueTimes, type DueTimes } from './due-time.ts'
import { formatSeconds } from '../../protocol/index.ts'

/** What one row of the reminders panel shows at a given instant. */
export type ReminderRow = {
  id: string
  prompt: string
  rule: string
  scheduledAt: string
  due: DueTimes
  state: ReminderState
  countdown: string
}

/** Describes how a reminder repeats: `One-off`, `One-off, 10m 0s after it was set`, or `Every 15m 0s`. */
export function describeRule(view: ScheduleView): string {
  switch (view.kind) {
    case 'at':
      return 'One-off'
    case 'after':
      return `One-off, ${formatSeconds(view.afterSeconds)} after it was set`
    case 'every':
      return `Every ${formatSeconds(view.everySeconds)}`
    default: {
      const unreachable: never = view
      return unreachable
    }
  }
}

/** The panel row of a reminder at `nowMs`; the state is recomputed live (overdue iff now ≥ scheduledAt). */
export function reminderRow(view: ScheduleView, sessionZone: string | null, browserZone: string | null, nowMs: number): ReminderRow {
  const target = instantMs(view.scheduledAt)
  return {
    id: view.id,
    prompt: view.prompt,
    rule: describeRule(view),
    scheduledAt: view.scheduledAt,
    due: target === null ? { session: null, browser: null, sameZone: false } : formatDueTimes(target, sessionZone, browserZone),
    state: target === null ? view.state : reminderState(target, nowMs),
    countdown: target === null ? 'unknown due time' : countdownText(target, nowMs),
  }
}
