import { useEffect, useState } from 'react'
import { onTrustedClockChange, trustedNow } from '../lib/trusted-clock.ts'

/**
 * The time now in epoch ms (the device clock, corrected when the clock check found it off), refreshed every
 * `intervalMs` while `active`, and at once when the clock check's correction comes (a minute's tick read the device's
 * own clock until then: messages of today were dated as another day on a device 100 days ahead).
 */
export function useNow(intervalMs = 1000, active = true): number {
  const [now, setNow] = useState(() => trustedNow())
  useEffect(() => {
    if (!active) return
    setNow(trustedNow())
    const timer = setInterval(() => setNow(trustedNow()), intervalMs)
    const unsubscribe = onTrustedClockChange(() => setNow(trustedNow()))
    return () => {
      clearInterval(timer)
      unsubscribe()
    }
  }, [intervalMs, active])
  return now
}
