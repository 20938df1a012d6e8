import type { ScheduleRecord } from '../protocol/index.ts'
import { checkTarget, isInRange } from './absolute-time.ts'
import { MAX_CATCH_UP, type DueSeries } from './catch-up.ts'
import type { ScheduleResult } from './errors.ts'

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

/** The grid targets in `[target, now]`: their count and the latest ten, oldest first. */
export function dueGrid(target: number, intervalMs: number, now: number): DueSeries {
  if (now < target) return { count: 0, latest: [] }
  const count = Math.floor((now - target) / intervalMs) + 1
  const shown = Math.min(count, MAX_CATCH_UP)
  const latest: number[] = []
  for (let k = count - shown; k < count; k += 1) latest.push(target + k * intervalMs)
  return { count, latest }
}

/** The next `n` grid targets from `target` on (the target itself first), within the accepted range. */
export function upcomingGrid(target: number, intervalMs: number, n: number): number[] {
  const out: number[] = []
  for (let k = 0; k < n && isInRange(target + k * intervalMs); k += 1) out.push(target + k * intervalMs)
  return out
}
