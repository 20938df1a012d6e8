const MINUTE = 60
const HOUR = 3_600
const DAY = 86_400

function coarse(seconds: number): string {
  if (seconds >= DAY) {
    const days = Math.floor(seconds / DAY)
    const hours = Math.floor((seconds % DAY) / HOUR)
    return hours === 0 ? `${days} d` : `${days} d ${hours} h`
  }
  if (seconds >= HOUR) {
    const hours = Math.floor(seconds / HOUR)
    const minutes = Math.floor((seconds % HOUR) / MINUTE)
    return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`
  }
  return `${Math.floor(seconds / MINUTE)}:${String(seconds % MINUTE).padStart(2, '0')}`
}

/** A countdown that coarsens with distance: `in 2 d 4 h`, `in 3 h 20 min`, `in 4:05`; `due now`, then `overdue by 1:03`. */
export function coarseCountdown(targetMs: number, nowMs: number): string {
  const remaining = targetMs - nowMs
  if (remaining > 0) return `in ${coarse(Math.ceil(remaining / 1000))}`
  const late = Math.floor(-remaining / 1000)
  return late === 0 ? 'due now' : `overdue by ${coarse(late)}`
}

/** Milliseconds until `coarseCountdown` next changes: per second within the hour, per minute beyond. */
export function msUntilCountdownChanges(targetMs: number, nowMs: number): number {
  const remaining = targetMs - nowMs
  const step = Math.abs(remaining) > HOUR * 1000 ? MINUTE * 1000 : 1000
  const phase = ((remaining % step) + step) % step
  return phase === 0 ? step : phase
}
