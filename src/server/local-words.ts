import { instantsForWallTime, parseZonedTimestamp, wallClockAt, zonePlace } from '../protocol/index.ts'

const ZONED = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})[+-]\d{2}:\d{2}\[([^\]]+)\]$/
/** English day and month names, Sunday first (as `Date.getUTCDay`). */
export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const DAY_MS = 86_400_000

function localDay(zone: string, ms: number): number {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric' }).formatToParts(ms)
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0)
  return Date.UTC(get('year'), get('month') - 1, get('day'))
}

/**
 * An RFC 9557 local time (`scheduledAtLocal`) in the words a person reads, relative to now:
 * `today at 18:30 in Berlin`, `tomorrow at 07:45 in Chatham`, `on Monday at 08:00 in New York`,
 * `on 2 December 2026 at 09:30 in Shanghai` — without that `on` after a word that takes the day itself
 * (`set for Monday at 08:00 …`). Null when the text is not such a timestamp.
 */
export function localTimeWords(scheduledAtLocal: string, nowMs: number, options: { on?: boolean } = {}): string | null {
  const match = ZONED.exec(scheduledAtLocal)
  if (match === null) return null
  const words = wallTimeWords(`${match[1]}-${match[2]}-${match[3]}`, `${match[4]}:${match[5]}`, match[7], nowMs, options)
  return words === null ? null : `${words}${repeatedWords(scheduledAtLocal)}`
}

/**
 * Which of the two an RFC 9557 local time is when a clock change repeats its wall time in its zone, in words to add
 * after it: ` (the first of the two 02:30s, before the clocks go back)`; empty when the time comes once.
 */
function repeatedWords(scheduledAtLocal: string): string {
  const stamp = parseZonedTimestamp(scheduledAtLocal)
  if (stamp === null) return ''
  const instants = instantsForWallTime(wallClockAt(stamp.zone, stamp.epochMs), stamp.zone)
  if (instants.length < 2) return ''
  const clock = stamp.time.slice(0, 5)
  return instants[0] === stamp.epochMs ? ` (the first of the two ${clock}s, before the clocks go back)` : ` (the second of the two ${clock}s, after the clocks go back)`
}

/** A wall date and time in a zone (`2026-07-15`, `20:00`, `Europe/Berlin`) in the same words as `localTimeWords`; null for an unknown zone. */
export function wallTimeWords(date: string, time: string, zone: string, nowMs: number, { on = true }: { on?: boolean } = {}): string | null {
  const [year, month, day] = date.split('-').map(Number)
  let today: number
  try {
    today = localDay(zone, nowMs)
  } catch {
    return null
  }
  const target = Date.UTC(year, month - 1, day)
  const days = Math.round((target - today) / DAY_MS)
  let when: string
  if (days === 0) when = 'today'
  else if (days === 1) when = 'tomorrow'
  else if (days > 1 && days < 7) when = `${on ? 'on ' : ''}${WEEKDAY_NAMES[new Date(target).getUTCDay()]}`
  else when = `${on ? 'on ' : ''}${day} ${MONTH_NAMES[month - 1]} ${year}`
  return `${when} at ${time} in ${zonePlace(zone)}`
}

/**
 * The next date (`YYYY-MM-DD`) on which a time of day comes in a zone: today when it is still ahead, else tomorrow —
 * as a reminder said at a bare time is set. Null for an unknown zone.
 */
export function nextDateOf(hour: number, minute: number, zone: string, nowMs: number): string | null {
  let parts: Intl.DateTimeFormatPart[]
  try {
    parts = new Intl.DateTimeFormat('en-US', { timeZone: zone, year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', hourCycle: 'h23' }).formatToParts(nowMs)
  } catch {
    return null
  }
  const get = (type: string): number => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const passed = hour < get('hour') || (hour === get('hour') && minute <= get('minute'))
  const date = new Date(Date.UTC(get('year'), get('month') - 1, get('day') + (passed ? 1 : 0)))
  return date.toISOString().slice(0, 10)
}

/** Today's date (`YYYY-MM-DD`) in a zone; null for an unknown zone. */
export function todayIn(zone: string, nowMs: number): string | null {
  try {
    return new Date(localDay(zone, nowMs)).toISOString().slice(0, 10)
  } catch {
    return null
  }
}
