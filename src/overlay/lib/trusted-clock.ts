/** How far this device's clock runs ahead of the server's (negative: behind), once the clock check found it off; else 0. */
let deviceAheadMs = 0

const listeners = new Set<() => void>()

/** Notes what the device clock check found: an offset beyond its tolerance is corrected from now on, a smaller one not. */
export function noteDeviceClock(aheadMs: number, toleranceMs: number): void {
  const next = Math.abs(aheadMs) > toleranceMs ? aheadMs : 0
  if (next === deviceAheadMs) return
  deviceAheadMs = next
  for (const listener of listeners) listener()
}

/** Calls back when the correction changes (the clock check came back); returns the unsubscribe function. */
export function onTrustedClockChange(listener: () => void): () => void {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/**
 * The time now as the server keeps it, as well as this device can tell: its own clock, corrected by the offset the
 * clock check found when that is more than the check's tolerance (SPEC 9), so countdowns and "has passed" follow the
 * server that delivers the reminders, not a clock that is off.
 */
export function trustedNow(): number {
  return Date.now() - deviceAheadMs
}
