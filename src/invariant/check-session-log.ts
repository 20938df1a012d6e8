import type { SessionEvent, SessionHeader } from '../protocol/index.ts'
import { InvariantError } from './invariant-error.ts'
import { invariantFold } from './invariant-fold.ts'

/** Outcome of validating a whole session log. */
export type SessionLogCheck = { ok: true } | { ok: false; seq: number; message: string }

/** Starts a streaming check: feed each event once, in order; answers the first violation or null. */
export function startInvariantCheck(header: SessionHeader): (event: SessionEvent) => { seq: number; message: string } | null {
  let state = invariantFold.init(header)
  return (event) => {
    try {
      invariantFold.validate?.(state, event, header)
    } catch (error) {
      if (error instanceof InvariantError) return { seq: error.seq, message: error.message }
      throw error
    }
    state = invariantFold.apply(state, event)
    return null
  }
}

/** Validates a whole session log in one forward pass (O(events)) with the companion's fold (SPEC 6). */
export function checkSessionLog(header: SessionHeader, events: Iterable<SessionEvent>): SessionLogCheck {
  const step = startInvariantCheck(header)
  for (const event of events) {
    const failure = step(event)
    if (failure) return { ok: false, ...failure }
  }
  return { ok: true }
}
