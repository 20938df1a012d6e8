import { formatInTimeZone } from 'date-fns-tz'
import { sameTimeZone } from '../../protocol/index.ts'

/** One instant rendered in one zone. */
export type ZonedTime = { zone: string; text: string }

/** A due time in the Session zone (null for headerless Sessions) and in this browser's zone. */
export type DueTimes = { session: ZonedTime | null; browser: ZonedTime | null; sameZone: boolean }

/** Formats an instant in a zone as `Wed 15 Jul 2026, 09:30:00 +08:00`, or null when the zone or instant is unusable. */
export function formatInstantInZone(instantMs: number, zone: string): string | null {
  if (!Number.isFinite(instantMs)) return null
  try {
    return formatInTimeZone(instantMs, zone, 'EEE d MMM yyyy, HH:mm:ss xxx')
  } catch {
    return null
  }
}

/** Formats an instant for display in the Session zone and in the browser zone. */
export function formatDueTimes(instantMs: number, sessionZone: string | null, browserZone: string | null): DueTimes {
  const inZone = (zone: string | null): ZonedTime | null => {
    if (zone === null) return null
    const text = formatInstantInZone(instantMs, zone)
    return text === null ? null : { zone, text }
  }
  return {
    session: inZone(sessionZone),
    browser: inZone(browserZone),
    sameZone: sessionZone !== null && browserZone !== null && sameTimeZone(sessionZone, browserZone),
  }
}

/** Formats an event time compactly (`09:30`) in a zone, with the date when it is not on `nowMs`'s day there. */
export function formatClockTime(instantMs: number, zone: string | null, nowMs: number): string {
  const tz = zone ?? 'UTC'
  try {
    const day = formatInTimeZone(instantMs, tz, 'yyyy-MM-dd')
    const today = formatInTimeZone(nowMs, tz, 'yyyy-MM-dd')
    return formatInTimeZone(instantMs, tz, day === today ? 'HH:mm' : 'd MMM yyyy, HH:mm')
  } catch {
    return new Date(instantMs).toISOString()
  }
}
