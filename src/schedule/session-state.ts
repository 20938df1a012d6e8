import type { SessionFold } from '../host/plugin-api.ts'
import type { ScheduleError } from './errors.ts'
import { applyScheduleEvent, emptyScheduleState, type ScheduleState } from './fold.ts'

/** Schedule state of one session, or the corruption that stopped the fold (tools then answer corrupt_schedule_log). */
export type SessionScheduleState = { ok: true; state: ScheduleState } | { ok: false; error: ScheduleError }

/**
 * The per-session fold the Schedule plugin keeps. A change the fold rejects makes the session corrupt
 * (SPEC 2.5): it refuses to open, and an append of such a change writes nothing.
 */
export const sessionScheduleFold: SessionFold<SessionScheduleState> = {
  name: 'schedule/state',
  init: () => ({ ok: true, state: emptyScheduleState }),
  validate(current, event) {
    if (!current.ok || event.type !== 'schedule/change') return
    const next = applyScheduleEvent(current.state, event)
    if (!next.ok) throw next.error
  },
  apply(current, event) {
    if (!current.ok || event.type !== 'schedule/change') return current
    const next = applyScheduleEvent(current.state, event)
    return next.ok ? { ok: true, state: next.value } : { ok: false, error: next.error }
  },
}
