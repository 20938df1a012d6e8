import type { SessionFold } from '../host/plugin-api.ts'
import type { ScheduleError } from './errors.ts'
import { applyScheduleEvent, emptyScheduleState, type ScheduleState } from './fold.ts'

/** Schedule state of one session, or the corruption that stopped the fold (tools then answer corrupt_schedule_log). */
export type SessionScheduleState = { ok: true; state: ScheduleState } | { ok: false; error: ScheduleError }

/** The per-session fold the Schedule plugin keeps; a corrupt history never stops the session from opening. */
export const sessionScheduleFold: SessionFold<SessionScheduleState> = {
  name: 'schedule/state',
  init: () => ({ ok: true, state: emptyScheduleState }),
  apply(current, event) {
    if (!current.ok || event.type !== 'schedule/change') return current
    const next = applyScheduleEvent(current.state, event)
    return next.ok ? { ok: true, state: next.value } : { ok: false, error: next.error }
  },
}
