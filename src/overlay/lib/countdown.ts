import { formatSeconds } from '../../protocol/index.ts'

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

/** Countdown text: `in 4m 12s` before the target, `due now` within its first second, `overdue by 1m 3s` after. */
export function countdownText(targetMs: number, nowMs: number): string {
  const remaining = targetMs - nowMs
  if (remaining > 0) return `in ${formatSeconds(Math.ceil(remaining / 1000))}`
  const late = Math.floor(-remaining / 1000)
  return late === 0 ? 'due now' : `overdue by ${formatSeconds(late)}`
}

/** Milliseconds until the countdown text next changes, for scheduling the next tick. */
export function msUntilNextTick(targetMs: number, nowMs: number): number {
  const remaining = targetMs - nowMs
  const phase = ((remaining % 1000) + 1000) % 1000
  return phase === 0 ? 1000 : phase
}
