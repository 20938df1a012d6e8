import { describeRrule, sameTimeZone, zonePlace } from '../../protocol/index.ts'
import type { ScheduleView } from '../../protocol/index.ts'
import { countdownText, instantMs, reminderState, type ReminderState } from './countdown.ts'
import { formatDueTimes, formatInstantInZone, type DueTimes } from './due-time.ts'
import { formatSeconds } from '../../protocol/index.ts'

/** One upcoming occurrence in the reminder's own zone and, when different, in this browser's. */
export type UpcomingTime = { at: string; own: string | null; browser: string | null }

/** What one row of the reminders panel shows at a given instant. */
export type ReminderRow = {
  id: string
  prompt: string
  rule: string
  scheduledAt: string
  due: DueTimes
  state: ReminderState
  countdown: string
  /** The reminder's own zone (calendar or local `at`), when it has one. */
  zone: string | null
  upcoming: UpcomingTime[]
  history: string
}

/** Describes how a reminder repeats: `One-off`, `Every 15m 0s`, or a calendar rule in words with its place (`Weekdays at 08:30 · New York`). */
export function describeRule(view: ScheduleView): string {
  switch (view.kind) {
    case 'at':
      return 'One-off'
    case 'after':
      return `One-off, ${formatSeconds(view.afterSeconds)} after it was set`
    case 'every':
      return `Every ${formatSeconds(view.everySeconds)}`
    case 'calendar': {
      const words = describeRrule(view.rrule) ?? view.rrule
      return view.timeZone === null ? words : `${words} · ${zonePlace(view.timeZone)}`
    }
    default: {
      const unreachable: never = view
      return unreachable
    }
  }
}

/** The delivery history in words: `Not delivered yet`, `Delivered 3 times, last Wed 15 Jul 2026, 09:30:00 +02:00 · 2 missed`. */
export function describeHistory(view: ScheduleView, zone: string | null): string {
  const missed = view.missed > 0 ? ` · ${view.missed} missed` : ''
  if (view.deliveries === 0) return `Not delivered yet${missed}`
  const last = view.lastDeliveredAt === null ? null : instantMs(view.lastDeliveredAt)
  const lastText = last === null ? null : formatInstantInZone(last, zone ?? 'UTC')
  const times = view.deliveries === 1 ? 'once' : `${view.deliveries} times`
  return `Delivered ${times}${lastText === null ? '' : `, last ${lastText}`}${missed}`
}

function ownZone(view: ScheduleView): string | null {
  return view.kind === 'calendar' || view.kind === 'at' ? view.timeZone : null
}

/** The panel row of a reminder at `nowMs`; the state is recomputed live (overdue iff now ≥ scheduledAt). */
export function reminderRow(view: ScheduleView, sessionZone: string | null, browserZone: string | null, nowMs: number): ReminderRow {
  const target = instantMs(view.scheduledAt)
  const zone = ownZone(view)
  const shownZone = zone ?? sessionZone
  const upcoming = view.kind === 'calendar' || view.kind === 'every' ? view.upcoming : []
  return {
    id: view.id,
    prompt: view.prompt,
    rule: describeRule(view),
    scheduledAt: view.scheduledAt,
    due: target === null ? { session: null, browser: null, sameZone: false } : formatDueTimes(target, shownZone, browserZone),
    state: target === null ? view.state : reminderState(target, nowMs),
    countdown: target === null ? 'unknown due time' : countdownText(target, nowMs),
    zone,
    upcoming: upcoming.map((at) => {
      const ms = instantMs(at)
      const own = ms === null || shownZone === null ? null : formatInstantInZone(ms, shownZone)
      const differs = browserZone !== null && (shownZone === null || !sameTimeZone(shownZone, browserZone))
      return { at, own, browser: ms === null || !differs ? null : formatInstantInZone(ms, browserZone) }
    }),
    history: describeHistory(view, shownZone),
  }
}
