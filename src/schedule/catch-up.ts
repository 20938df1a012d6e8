import type { CatchUpPolicy } from '../protocol/index.ts'

/** Most occurrences `all` delivers at one decision (SPEC 7.7). */
export const MAX_CATCH_UP = 10

/** How late `skip` may deliver the latest due occurrence (SPEC 7.7). */
export const SKIP_GRACE_MS = 15 * 60_000

/** The occurrences due at one decision: how many, and the latest of them (at most 10, oldest first). */
export type DueSeries = { count: number; latest: readonly number[] }

/** What one decision delivers of a late recurring reminder, and how many occurrences it counts as missed. */
export type CatchUpPlan = { deliver: number[]; missed: number }

/**
 * Applies a catch-up policy: `latest` delivers the latest due occurrence; `all` every due one, oldest
 * first, at most 10; `skip` the latest only when it is at most 15 minutes late. The rest are missed.
 */
export function planCatchUp(policy: CatchUpPolicy, due: DueSeries, now: number): CatchUpPlan {
  if (due.count === 0 || due.latest.length === 0) return { deliver: [], missed: 0 }
  const last = due.latest[due.latest.length - 1]
  switch (policy) {
    case 'latest':
      return { deliver: [last], missed: due.count - 1 }
    case 'all': {
      const deliver = due.latest.slice(-MAX_CATCH_UP)
      return { deliver, missed: due.count - deliver.length }
    }
    case 'skip':
      return now - last <= SKIP_GRACE_MS ? { deliver: [last], missed: due.count - 1 } : { deliver: [], missed: due.count }
    default: {
      const unreachable: never = policy
      return unreachable
    }
  }
}
