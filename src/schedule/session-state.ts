import type { SessionFold } from '../host/index.ts'
import type { SessionEvent } from '../protocol/index.ts'
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
    validated.set(event, { from: current.state, next: next.value })
  },
  apply(current, event) {
    if (!current.ok || event.type !== 'schedule/change') return current
    const known = validated.get(event)
    validated.delete(event)
    if (known !== undefined && known.from === current.state) return { ok: true, state: known.next }
    const next = applyScheduleEvent(current.state, event)
    return next.ok ? { ok: true, state: next.value } : { ok: false, error: next.error }
  },
}

/** What `validate` computed for an event, so `apply` right after it does not compute it again (the fold is pure). */
const validated = new WeakMap<SessionEvent, { from: ScheduleState; next: ScheduleState }>()
