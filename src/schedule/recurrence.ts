import type { ScheduleRecord } from '../protocol/wire.ts'
import { checkTarget, toScheduledAt } from './absolute-time.ts'
import type { ScheduleResult } from './errors.ts'

/** Smallest accepted `every_seconds` (SPEC 7.4). */
export const MIN_EVERY_SECONDS = 300

/** A recurring record. */
export type EveryRecord = Extract<ScheduleRecord, { kind: 'every' }>

/** The first target of a new recurring reminder: creation instant plus one interval, range-checked. */
export function firstEveryTarget(now: number, everySeconds: number): ScheduleResult<string> {
  return checkTarget(now + everySeconds * 1000, now)
}

/**
 * The first target on the grid `anchor + k * intervalMs` (k ≥ 0) that is strictly after `after`.
 * `anchor` is any target already on the grid, so targets stay anchored at creation.
 */
export function targetAfter(anchor: number, intervalMs: number, after: number): number {
  if (after < anchor) return anchor
  return anchor + (Math.floor((after - anchor) / intervalMs) + 1) * intervalMs
}

/** The latest grid target at or before `now`, or null when even `anchor` is still in the future. */
export function latestDueTarget(anchor: number, intervalMs: number, now: number): number | null {
  if (now < anchor) return null
  return anchor + Math.floor((now - anchor) / intervalMs) * intervalMs
}

/** The target that follows a recurring dispatch accepted at `acceptedAt` (epoch ms). */
export function nextTarget(record: EveryRecord, acceptedAt: number): number {
  return targetAfter(Date.parse(record.scheduledAt), record.everySeconds * 1000, acceptedAt)
}

/** One occurrence to deliver: the reminder, the occurrence instant, and the dispatch's `acceptedAt` (recurring only). */
export type DueOccurrence = {
  id: string
  prompt: string
  occurrenceAt: string
  acceptedAt: string | null
}

/**
 * The occurrence an active record delivers at a decision made at `now`, or null when not due.
 * A late recurring reminder delivers only its latest due target; missed targets are not replayed.
 */
export function dueOccurrence(record: ScheduleRecord, now: number): DueOccurrence | null {
  const target = Date.parse(record.scheduledAt)
  if (now < target) return null
  switch (record.kind) {
    case 'after':
    case 'at':
      return { id: record.id, prompt: record.prompt, occurrenceAt: record.scheduledAt, acceptedAt: null }
    case 'every': {
      const latest = latestDueTarget(target, record.everySeconds * 1000, now) ?? target
      return { id: record.id, prompt: record.prompt, occurrenceAt: toScheduledAt(latest), acceptedAt: toScheduledAt(now) }
    }
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}
