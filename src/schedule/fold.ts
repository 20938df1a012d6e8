import type { SessionEvent, CatchUpPolicy, ScheduleRecord, ScheduleView } from '../protocol/index.ts'
import { parseRrule, formatZonedTimestamp } from '../protocol/index.ts'
import { isInRange, parseLocalDate, toScheduledAt } from './absolute-time.ts'
import { firstOccurrenceAfter, occurrencesAfter, occurrencesBetween, type CalendarSpec } from './calendar.ts'
import { MAX_CATCH_UP, planCatchUp, type CatchUpPlan, type DueSeries } from './catch-up.ts'
import { decodeScheduleChange, scheduleId, scheduleIdNumber, type DispatchChange, type ScheduleChange } from './changes.ts'
import { corruptScheduleLog, fail, ok, type ScheduleResult } from './errors.ts'
import { dueGrid, targetAfter, upcomingGrid } from './recurrence.ts'

/** How often a reminder was delivered, when last, and how many occurrences it missed. */
export type ScheduleHistory = { readonly deliveries: number; readonly lastDeliveredAt: string | null; readonly missed: number }

/** An active reminder: its record as last written, its current target (epoch ms), and its history. */
export type ActiveSchedule = { readonly record: ScheduleRecord; readonly target: number; readonly history: ScheduleHistory }

/**
 * Schedule state folded from the log: active reminders in creation order with their current targets
 * (a recurring one advances on every dispatch; a calendar one is recomputed from its rule with the
 * running tzdata), and the next id number. A dispatched one-shot, an ended series and a deleted
 * reminder leave `active`.
 */
export type ScheduleState = {
  readonly active: readonly ActiveSchedule[]
  readonly nextIdNumber: number
}

/** The state of a session without Schedule changes. */
export const emptyScheduleState: ScheduleState = { active: [], nextIdNumber: 1 }

/** The history of a reminder never delivered. */
export const NO_HISTORY: ScheduleHistory = { deliveries: 0, lastDeliveredAt: null, missed: 0 }
const UPCOMING = 5

/** The id the next created reminder gets (`schedule-<max seen + 1>`). */
export function nextScheduleId(state: ScheduleState): string {
  return scheduleId(state.nextIdNumber)
}

/** The active reminder with this id, if any. */
export function findActive(state: ScheduleState, id: string): ActiveSchedule | undefined {
  return state.active.find((entry) => entry.record.id === id)
}

/** The occurrence spec of a calendar record (the record was decoded, so its rule and date parse). */
export function calendarSpecOf(record: Extract<ScheduleRecord, { kind: 'calendar' }>): CalendarSpec {
  const parsed = parseRrule(record.rrule)
  const starts = parseLocalDate(record.starts)
  if (!parsed.ok || starts === null) throw new Error(`calendar record ${record.id} does not decode`)
  return { rrule: record.rrule, rule: parsed.rule, timeZone: record.timeZone, starts }
}

/** The catch-up policy of a recurring record (version-1 `every` records have none: `latest`). */
export function catchUpOf(record: ScheduleRecord): CatchUpPolicy {
  return record.kind === 'every' || record.kind === 'calendar' ? (record.catchUp ?? 'latest') : 'latest'
}

/**
 * The first target of a record written at `writtenAt`: its stored `scheduledAt`, except that a
 * calendar target is recomputed from the rule with the running tzdata (so it keeps its wall time).
 */
function initialTarget(record: ScheduleRecord, writtenAt: number): number {
  const stored = Date.parse(record.scheduledAt)
  if (record.kind !== 'calendar') return stored
  const next = firstOccurrenceAfter(calendarSpecOf(record), Math.min(writtenAt, stored) - 1)
  return next === null ? stored : next.instant
}

/** The occurrences of an active reminder due at a decision made at `now`. */
export function dueSeries(entry: ActiveSchedule, now: number): DueSeries {
  const { record, target } = entry
  if (now < target) return { count: 0, latest: [] }
  switch (record.kind) {
    case 'after':
    case 'at':
      return { count: 1, latest: [target] }
    case 'every':
      return dueGrid(target, record.everySeconds * 1000, now)
    case 'calendar': {
      const due = occurrencesBetween(calendarSpecOf(record), target, now).map((o) => o.instant)
      return { count: due.length, latest: due.slice(-MAX_CATCH_UP) }
    }
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}

function dispatchAdvance(entry: ActiveSchedule, change: DispatchChange): ActiveSchedule | null | string {
  const { record } = entry
  const id = JSON.stringify(record.id)
  if (record.kind === 'after' || record.kind === 'at') {
    return 'acceptedAt' in change ? `dispatch of one-shot reminder ${id} must not carry acceptedAt` : null
  }
  if (!('acceptedAt' in change)) return `dispatch of recurring reminder ${id} needs acceptedAt`
  const acceptedAt = Date.parse(change.acceptedAt)
  const missed = 'missed' in change ? change.missed : 0
  const policy = catchUpOf(record)
  let next: number | null
  let dueCount: number
  if (record.kind === 'every') {
    if (acceptedAt < entry.target) {
      return `dispatch of ${id} accepted at ${change.acceptedAt}, before its target ${toScheduledAt(entry.target)}`
    }
    const intervalMs = record.everySeconds * 1000
    dueCount = dueGrid(entry.target, intervalMs, acceptedAt).count
    const delivered = policy === 'latest' ? 1 : dueCount - missed
    const most = policy === 'all' ? MAX_CATCH_UP : 1
    if (missed > dueCount - (policy === 'latest' ? 1 : 0) || delivered > most) {
      return `dispatch of ${id} counts ${missed} missed of ${dueCount} due occurrences, which its ${policy} catch-up cannot deliver`
    }
    const after = targetAfter(entry.target, intervalMs, acceptedAt)
    next = isInRange(after) ? after : null
  } else {
    const spec = calendarSpecOf(record)
    dueCount = acceptedAt < entry.target ? 0 : occurrencesBetween(spec, entry.target, acceptedAt).length
    next = firstOccurrenceAfter(spec, acceptedAt)?.instant ?? null
  }
  const delivered = policy === 'latest' ? 1 : Math.max(0, dueCount - missed)
  if (next === null) return null
  const history: ScheduleHistory = {
    deliveries: entry.history.deliveries + delivered,
    lastDeliveredAt: delivered > 0 ? change.acceptedAt : entry.history.lastDeliveredAt,
    missed: entry.history.missed + missed,
  }
  return { record, target: next, history }
}

function replaceEntry(state: ScheduleState, id: string, entry: ActiveSchedule | null): ScheduleState {
  if (entry === null) return { ...state, active: state.active.filter((other) => other.record.id !== id) }
  return { ...state, active: state.active.map((other) => (other.record.id === id ? entry : other)) }
}

function applyChange(state: ScheduleState, change: ScheduleChange, time: number): ScheduleState | string {
  switch (change.operation) {
    case 'create': {
      const { schedule } = change
      const n = scheduleIdNumber(schedule.id) ?? 0
      if (n < state.nextIdNumber) {
        return `create of ${JSON.stringify(schedule.id)} is not after the last created id (the next free id is ${nextScheduleId(state)})`
      }
      const entry: ActiveSchedule = { record: schedule, target: initialTarget(schedule, time), history: NO_HISTORY }
      return { active: [...state.active, entry], nextIdNumber: n + 1 }
    }
    case 'update': {
      const current = findActive(state, change.id)
      if (current === undefined) return `update of ${JSON.stringify(change.id)}, which is not an active reminder`
      return replaceEntry(state, change.id, { record: change.schedule, target: initialTarget(change.schedule, time), history: current.history })
    }
    case 'delete': {
      if (findActive(state, change.id) === undefined) return `delete of ${JSON.stringify(change.id)}, which is not an active reminder`
      return replaceEntry(state, change.id, null)
    }
    case 'dispatch': {
      const entry = findActive(state, change.id)
      if (entry === undefined) return `dispatch of ${JSON.stringify(change.id)}, which is not an active reminder`
      const advanced = dispatchAdvance(entry, change)
      return typeof advanced === 'string' ? advanced : replaceEntry(state, change.id, advanced)
    }
    default: {
      const unreachable: never = change
      return unreachable
    }
  }
}

/**
 * Folds one event into the state: other event types leave it unchanged (same object);
 * a `schedule/change` the log must not contain is `corrupt_schedule_log` with the event's seq.
 */
export function applyScheduleEvent(state: ScheduleState, event: SessionEvent): ScheduleResult<ScheduleState> {
  if (event.type !== 'schedule/change') return ok(state)
  const decoded = decodeScheduleChange(event.data)
  if (!decoded.ok) return fail(corruptScheduleLog(event.seq, decoded.reason))
  const next = applyChange(state, decoded.change, event.time)
  return typeof next === 'string' ? fail(corruptScheduleLog(event.seq, next)) : ok(next)
}

/** Folds a whole log; stops at the first refused change. */
export function foldSchedule(events: Iterable<SessionEvent>): ScheduleResult<ScheduleState> {
  let state = emptyScheduleState
  for (const event of events) {
    if (event.type !== 'schedule/change') continue
    const step = applyScheduleEvent(state, event)
    if (!step.ok) return step
    state = step.value
  }
  return ok(state)
}

/** The zone a reminder is shown in (SPEC 7.8): its own, else the Session zone, else none. */
export function viewZone(record: ScheduleRecord, sessionZone: string | null): string | null {
  switch (record.kind) {
    case 'calendar':
      return record.timeZone
    case 'at':
      return record.timeZone ?? sessionZone
    case 'after':
    case 'every':
      return sessionZone
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}

/**
 * A calendar reminder's upcoming occurrences from each target, kept with its record: they are a function of the record
 * and the target alone, a rule's expansion can take a good part of a second, and every list of the reminders asks.
 */
const upcomingCalendar = new WeakMap<ScheduleRecord, { target: number; instants: readonly number[] }>()

function upcomingOf(entry: ActiveSchedule): readonly number[] {
  const { record, target } = entry
  switch (record.kind) {
    case 'after':
    case 'at':
      return [target]
    case 'every':
      return upcomingGrid(target, record.everySeconds * 1000, UPCOMING)
    case 'calendar': {
      const kept = upcomingCalendar.get(record)
      if (kept?.target === target) return kept.instants
      const instants = [target, ...occurrencesAfter(calendarSpecOf(record), target, UPCOMING - 1).map((o) => o.instant)]
      upcomingCalendar.set(record, { target, instants })
      return instants
    }
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}

/** A reminder as tools and the API show it (SPEC 7.1, 7.8): overdue iff now ≥ its current target. */
export function viewOf(entry: ActiveSchedule, now: number, sessionZone: string | null): ScheduleView {
  const { record, target, history } = entry
  const timeZone = viewZone(record, sessionZone)
  const { timeZone: _ownZone, ...fields } = record as ScheduleRecord & { timeZone?: string }
  return {
    ...fields,
    scheduledAt: toScheduledAt(target),
    state: now >= target ? 'overdue' : 'scheduled',
    deliveryMode: 'session-local',
    timeZone,
    scheduledAtLocal: formatZonedTimestamp(target, timeZone ?? 'UTC'),
    upcoming: upcomingOf(entry).map(toScheduledAt),
    deliveries: history.deliveries,
    lastDeliveredAt: history.lastDeliveredAt,
    missed: history.missed,
  } as ScheduleView
}

/** Views of the active reminders in creation order. */
export function views(state: ScheduleState, now: number, sessionZone: string | null): ScheduleView[] {
  return state.active.map((entry) => viewOf(entry, now, sessionZone))
}

/** The earliest current target among active reminders (epoch ms), or null when none is active. */
export function nextDueAt(state: ScheduleState): number | null {
  let earliest: number | null = null
  for (const entry of state.active) {
    if (earliest === null || entry.target < earliest) earliest = entry.target
  }
  return earliest
}

/** What one decision does for one due reminder: the occurrences it delivers and the dispatch it records. */
export type DueOccurrence = {
  id: string
  prompt: string
  plan: CatchUpPlan
  /** `acceptedAt` of the dispatch: the decision time for recurring reminders, null for one-shots. */
  acceptedAt: string | null
}

/** Every reminder due at a decision made at `now`, in creation order, with its catch-up plan (SPEC 7.5, 7.7). */
export function dueOccurrences(state: ScheduleState, now: number): DueOccurrence[] {
  const due: DueOccurrence[] = []
  for (const entry of state.active) {
    const series = dueSeries(entry, now)
    if (series.count === 0) continue
    const { record } = entry
    const oneShot = record.kind === 'after' || record.kind === 'at'
    const plan = oneShot ? { deliver: [entry.target], missed: 0 } : planCatchUp(catchUpOf(record), series, now)
    due.push({ id: record.id, prompt: record.prompt, plan, acceptedAt: oneShot ? null : toScheduledAt(now) })
  }
  return due
}
