import type { SessionEvent, SessionHeader } from '../protocol/events.ts'
import { InvariantError } from './invariant-error.ts'
import { invariantFold } from './invariant-fold.ts'

/** Outcome of validating a whole session log. */
export type SessionLogCheck = { ok: true } | { ok: false; seq: number; message: string }

/** Validates a whole session log in one forward pass (O(events)) with the companion's fold (SPEC 6). */
export function checkSessionLog(header: SessionHeader, events: Iterable<SessionEvent>): SessionLogCheck {
  let state = invariantFold.init(header)
  for (const event of events) {
    try {
      invariantFold.validate?.(state, event, header)
    } catch (error) {
      if (error instanceof InvariantError) return { ok: false, seq: error.seq, message: error.message }
      throw error
    }
    state = invariantFold.apply(state, event)
  }
  return { ok: true }
}
