import { describeRrule, instantsForWallTime, parseRrule, wallClockAt, zonePlace } from '../../protocol/index.ts'
import type { ScheduleView } from '../../protocol/index.ts'
import { instantMs, reminderState, type ReminderState } from './countdown.ts'
import { coarseCountdown, durationWords, everyWords, formatWallClock, formatWhen, ruleForms } from './display/index.ts'
import { zonedTimes, type ZonedTimes } from './zoned-time.ts'

/**
 * One upcoming occurrence in the reminder's own zone and, when different, in this browser's; `moved` says why a
 * calendar occurrence is not at its rule's time that day (a clock change skips that time there), else null.
 */
export type UpcomingTime = { at: string; own: string | null; browser: string | null; moved: string | null }

/** What one row of the reminders panel shows at a given instant. */
export type ReminderRow = {
  id: string
  prompt: string
  rule: string
  scheduledAt: string
  /** The zone the reminder keeps time in: its own, else the Session's. */
  zone: string | null
  times: ZonedTimes
  state: ReminderState
  countdown: string
  upcoming: UpcomingTime[]
  history: string
}

/**
 * How a reminder repeats, in words: `Once`, `Once, 10 min after it was set`, `Every 15 min`, or a calendar rule with
 * its place, its times and dates as the locale writes them (`Weekdays at 8:30 AM · New York` in en-US); `zone` is the
 * one the reminder keeps time in, where an end instant is said. A snooze (`snoozedFrom`: the occurrence it snoozes,
 * ISO, known from the log) says which: `Once, snoozed from today 10:30 AM`.
 */
export function describeRule(view: ScheduleView, locale: string, zone: string | null, nowMs?: number, snoozedFrom: string | null = null): string {
  switch (view.kind) {
    case 'at':
      return 'Once'
    case 'after': {
      const from = snoozedFrom === null ? null : instantMs(snoozedFrom)
      if (from !== null && nowMs !== undefined) return `Once, snoozed from ${formatWhen(from, zone ?? 'UTC', locale, nowMs)}`
      return `Once, ${durationWords(view.afterSeconds)} after it was set`
    }
    case 'every':
      return everyWords(view.everySeconds)
    case 'calendar': {
      const forms = ruleForms(locale, zone ?? 'UTC')
      const rule = describeRrule(view.rrule, view.starts, forms) ?? view.rrule
      // a series that starts on a later day says from when: its rule alone reads as if it ran already
      const later = nowMs === undefined ? null : laterStart(view.starts, view.timeZone ?? zone ?? 'UTC', nowMs)
      const words = later === null ? rule : `${rule}, from ${forms.date(later.year, later.month, later.day)}`
      return view.timeZone === null ? words : `${words} · ${zonePlace(view.timeZone)}`
    }
    default: {
      const unreachable: never = view
      return unreachable
    }
  }
}

/** The start date of a series (`YYYY-MM-DD`) when it is a later day than today in `zone`, else null. */
function laterStart(starts: string, zone: string, nowMs: number): { year: number; month: number; day: number } | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(starts)
  if (match === null) return null
  const today = wallClockAt(zone, nowMs)
  const todayText = `${String(today.year).padStart(4, '0')}-${String(today.month).padStart(2, '0')}-${String(today.day).padStart(2, '0')}`
  return starts > todayText ? { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) } : null
}

/** The zone a reminder keeps time in: its own (`timeZone` of the view), else the Session's. */
export function reminderZone(view: ScheduleView, sessionZone: string | null): string | null {
  return view.timeZone ?? sessionZone
}

/**
 * The zone a due occurrence of reminder `scheduleId` is read in, as its panel row is: its own, from the reminders listed
 * (`views`), else from its record in the log (`logged`: a one-off is no longer listed once delivered), else the Session's.
 */
export function dueReminderZone(
  scheduleId: string,
  views: readonly ScheduleView[] | undefined,
  logged: ReadonlyMap<string, string | null> | undefined,
  sessionZone: string | null,
): string | null {
  const view = views?.find((v) => v.id === scheduleId)
  if (view !== undefined) return reminderZone(view, sessionZone)
  return logged?.get(scheduleId) ?? sessionZone
}

/**
 * The delivery history in words: `Not delivered yet`, `Delivered once (yesterday 08:30 · Berlin)`, `Delivered 3 times
 * (last: yesterday 08:30 · Berlin) · 2 missed`; the time on the locale's clock, in English words as the sentence is, and
 * the place of its zone, as the row's other times are (`(last: yesterday 08:30 · Berlin)` in de-DE too).
 */
export function describeHistory(view: ScheduleView, zone: string | null, locale: string, nowMs: number): string {
  const missed = view.missed > 0 ? ` · ${view.missed} missed` : ''
  if (view.deliveries === 0) return `Not delivered yet${missed}`
  const last = view.lastDeliveredAt === null ? null : instantMs(view.lastDeliveredAt)
  const at = last === null ? null : `${formatWhen(last, zone ?? 'UTC', locale, nowMs)} · ${zonePlace(zone ?? 'UTC')}`
  if (view.deliveries === 1) return `Delivered once${at === null ? '' : ` (${at})`}${missed}`
  return `Delivered ${view.deliveries} times${at === null ? '' : ` (last: ${at})`}${missed}`
}

/** The one time of day of a calendar reminder's rule (hour and minute), or null for another kind or a rule with several. */
function ruleTimeOf(view: ScheduleView): { hour: number; minute: number } | null {
  if (view.kind !== 'calendar') return null
  const parsed = parseRrule(view.rrule)
  if (!parsed.ok || parsed.rule.byHour.length !== 1 || parsed.rule.byMinute.length !== 1) return null
  return { hour: parsed.rule.byHour[0], minute: parsed.rule.byMinute[0] }
}

/**
 * Why an occurrence comes at another time of day than its rule's one time: that time does not exist that day in the
 * reminder's zone, so it came later by the gap (SPEC 7.7): `the clocks skip 02:30 that day`. Null otherwise.
 */
function movedWords(ruleTime: { hour: number; minute: number }, occurrenceMs: number, zone: string, locale: string): string | null {
  const wall = wallClockAt(zone, occurrenceMs)
  if (wall.hour === ruleTime.hour && wall.minute === ruleTime.minute) return null
  const meant = { ...wall, ...ruleTime, second: 0 }
  return instantsForWallTime(meant, zone).length > 0 ? null : `the clocks skip ${formatWallClock(meant, locale)} that day`
}

/**
 * The panel row of a reminder at `nowMs`; the state is recomputed live (overdue iff now ≥ scheduledAt). `snoozedFrom`:
 * the occurrence this reminder snoozes (ISO), when the log shows it is a snooze.
 */
export function reminderRow(view: ScheduleView, sessionZone: string | null, browserZone: string | null, locale: string, nowMs: number, snoozedFrom: string | null = null): ReminderRow {
  const target = instantMs(view.scheduledAt)
  const zone = reminderZone(view, sessionZone)
  const upcoming = view.kind === 'calendar' || view.kind === 'every' ? view.upcoming : []
  const ruleTime = zone === null ? null : ruleTimeOf(view)
  return {
    id: view.id,
    prompt: view.prompt,
    rule: describeRule(view, locale, zone, nowMs, snoozedFrom),
    scheduledAt: view.scheduledAt,
    zone,
    times: target === null ? { own: null, browser: null } : zonedTimes(target, zone, browserZone, locale, nowMs),
    state: target === null ? view.state : reminderState(target, nowMs),
    countdown: target === null ? 'unknown due time' : coarseCountdown(target, nowMs),
    upcoming: upcoming.map((at) => {
      const ms = instantMs(at)
      const times = ms === null ? null : zonedTimes(ms, zone, browserZone, locale, nowMs)
      return { at, own: times?.own?.when ?? null, browser: times?.browser?.when ?? null, moved: ms === null || ruleTime === null || zone === null ? null : movedWords(ruleTime, ms, zone, locale) }
    }),
    history: describeHistory(view, zone, locale, nowMs),
  }
}
