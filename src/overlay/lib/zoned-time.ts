import { canonicalTimeZone, sameTimeZone } from '../../protocol/index.ts'
import { formatFull, formatWhen, zoneDetail, zonePlace } from './display/index.ts'

/** One instant as a person reads it in one zone: `tomorrow 07:45` in `Chatham`, with the full form for hover. */
export type ZonedWhen = { zone: string; place: string; when: string; full: string; detail: string }

/** An instant in its own zone and, only when that differs (canonically), in this browser's. */
export type ZonedTimes = { own: ZonedWhen | null; browser: ZonedWhen | null }

/** An instant in one zone, or null when the zone is not one this runtime knows. */
export function zonedWhen(instantMs: number, zone: string, locale: string, nowMs: number): ZonedWhen | null {
  if (canonicalTimeZone(zone) === null || !Number.isFinite(instantMs)) return null
  return {
    zone,
    place: zonePlace(zone),
    when: formatWhen(instantMs, zone, locale, nowMs),
    full: formatFull(instantMs, zone, locale),
    detail: zoneDetail(zone, instantMs),
  }
}

/** An instant in `ownZone` (a reminder's zone, else the Session's) and in the browser's zone when it is another. */
export function zonedTimes(instantMs: number, ownZone: string | null, browserZone: string | null, locale: string, nowMs: number): ZonedTimes {
  const own = ownZone === null ? null : zonedWhen(instantMs, ownZone, locale, nowMs)
  const differs = browserZone !== null && (ownZone === null || !sameTimeZone(ownZone, browserZone))
  return { own, browser: differs && browserZone !== null ? zonedWhen(instantMs, browserZone, locale, nowMs) : null }
}

/**
 * When a snoozed occurrence comes back, as its due card says it: `again today 7:04 PM` on the clock of the card's zone
 * (the reminder's own), with both places named when this browser's zone differs (`again today 7:04 PM · Berlin (today
 * 1:04 PM · New York)`), as the card's own time is.
 */
export function snoozedAgain(untilMs: number | null, ownZone: string | null, browserZone: string | null, locale: string, nowMs: number): string {
  const times = untilMs === null ? null : zonedTimes(untilMs, ownZone, browserZone, locale, nowMs)
  if (times === null || times.own === null) return 'again later'
  if (times.browser === null) return `again ${times.own.when}`
  return `again ${times.own.when} · ${times.own.place} (${times.browser.when} · ${times.browser.place})`
}
