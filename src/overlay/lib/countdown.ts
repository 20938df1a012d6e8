/** Whether a reminder is still ahead or already due at `now` (SPEC 7.1: overdue iff now ≥ scheduledAt). */
export type ReminderState = 'scheduled' | 'overdue'

/** Parses an ISO instant to epoch ms, or null when it does not parse. */
export function instantMs(iso: string): number | null {
  const ms = Date.parse(iso)
  return Number.isFinite(ms) ? ms : null
}

/** The live state of a reminder at `nowMs`. */
export function reminderState(targetMs: number, nowMs: number): ReminderState {
  return nowMs >= targetMs ? 'overdue' : 'scheduled'
}
