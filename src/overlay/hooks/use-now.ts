import { useEffect, useState } from 'react'
import { trustedNow } from '../lib/trusted-clock.ts'

/** The time now in epoch ms (the device clock, corrected when the clock check found it off), refreshed every `intervalMs` while `active`. */
export function useNow(intervalMs = 1000, active = true): number {
  const [now, setNow] = useState(() => trustedNow())
  useEffect(() => {
    if (!active) return
    setNow(trustedNow())
    const timer = setInterval(() => setNow(trustedNow()), intervalMs)
    return () => clearInterval(timer)
  }, [intervalMs, active])
  return now
}
