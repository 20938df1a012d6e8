import type { SessionEvent } from '../protocol/events.ts'
import type { ScheduleRecord, ScheduleView } from '../protocol/wire.ts'
import { isInRange, toScheduledAt } from './absolute-time.ts'
import { decodeScheduleChange, scheduleId, scheduleIdNumber, type ScheduleChange } from './changes.ts'
import { corruptScheduleLog, fail, ok, type ScheduleResult } from './errors.ts'
import { dueOccurrence, nextTarget, type DueOccurrence } from './recurrence.ts'

/**
 * Schedule state folded from the log: active reminders in creation order, each with its current
 * target as `scheduledAt` (a recurring one advances on every dispatch), and the next id number.
 * A dispatched one-shot and a deleted reminder leave `active`.
 */
export type ScheduleState = {
  readonly active: readonly ScheduleRecord[]
  readonly nextIdNumber: number
}

/** The state of a session without Schedule changes. */
export const emptyScheduleState: ScheduleState = { active: [], nextIdNumber: 1 }

/** The id the next created reminder gets (`schedule-<max seen + 1>`). */
export function nextScheduleId(state: ScheduleState): string {
  return scheduleId(state.nextIdNumber)
}

/** The active reminder with this id, if any. */
export function findActive(state: ScheduleState, id: string): ScheduleRecord | undefined {
  return state.active.find((record) => record.id === id)
}

function applyChange(state: ScheduleState, change: ScheduleChange): ScheduleState | string {
  switch (change.operation) {
    case 'create': {
      const { schedule } = change
      const n = scheduleIdNumber(schedule.id) ?? 0
      if (n < state.nextIdNumber) {
        return `create of ${JSON.stringify(schedule.id)} is not after the last created id (the next free id is ${nextScheduleId(state)})`
      }
      return { active: [...state.active, schedule], nextIdNumber: n + 1 }
    }
    case 'delete': {
      if (findActive(state, change.id) === undefined) return `delete of ${JSON.stringify(change.id)}, which is not an active reminder`
      return { ...state, active: state.active.filter((record) => record.id !== change.id) }
    }
    case 'dispatch': {
      const record = findActive(state, change.id)
      if (record === undefined) return `dispatch of ${JSON.stringify(change.id)}, which is not an active reminder`
      const remaining = state.active.filter((other) => other.id !== change.id)
      if (record.kind !== 'every') {
        if ('acceptedAt' in change) return `dispatch of one-shot reminder ${JSON.stringify(change.id)} must not carry acceptedAt`
        return { ...state, active: remaining }
      }
      if (!('acceptedAt' in change)) return `dispatch of recurring reminder ${JSON.stringify(change.id)} needs acceptedAt`
      const acceptedAt = Date.parse(change.acceptedAt)
      if (acceptedAt < Date.parse(record.scheduledAt)) {
        return `dispatch of ${JSON.stringify(change.id)} accepted at ${change.acceptedAt}, before its target ${record.scheduledAt}`
      }
      const next = nextTarget(record, acceptedAt)
      if (!isInRange(next)) return { ...state, active: remaining }
      const advanced: ScheduleRecord = { ...record, scheduledAt: toScheduledAt(next) }
      return { ...state, active: state.active.map((other) => (other.id === change.id ? advanced : other)) }
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
  const next = applyChange(state, decoded.change)
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

/** A record as tools and the API show it: overdue iff now ≥ scheduledAt. */
export function viewOf(record: ScheduleRecord, now: number): ScheduleView {
  const state = now >= Date.parse(record.scheduledAt) ? 'overdue' : 'scheduled'
  return { ...record, state, deliveryMode: 'session-local' }
}

/** Views of the active reminders in creation order. */
export function views(state: ScheduleState, now: number): ScheduleView[] {
  return state.active.map((record) => viewOf(record, now))
}

/** The earliest current target among active reminders (epoch ms), or null when none is active. */
export function nextDueAt(state: ScheduleState): number | null {
  let earliest: number | null = null
  for (const record of state.active) {
    const target = Date.parse(record.scheduledAt)
    if (earliest === null || target < earliest) earliest = target
  }
  return earliest
}

/** Every occurrence due at a decision made at `now`, in creation order (one per reminder). */
export function dueOccurrences(state: ScheduleState, now: number): DueOccurrence[] {
  const due: DueOccurrence[] = []
  for (const record of state.active) {
    const occurrence = dueOccurrence(record, now)
    if (occurrence !== null) due.push(occurrence)
  }
  return due
}
