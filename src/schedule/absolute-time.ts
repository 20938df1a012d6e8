import { instantsForWallTime, intlOffsets, wallClockAt as wallClockOf, wallFieldsAsUtc, zoneOffsetsNear, type OffsetAt } from '../protocol/index.ts'
import {
  fail,
  invalidRule,
  notFuture,
  ok,
  timeOutOfRange,
  type ScheduleResult,
} from './errors.ts'

/** A calendar date in the proleptic Gregorian calendar. */
export type LocalDate = { readonly year: number; readonly month: number; readonly day: number }

/** A wall-clock time of day with millisecond precision. */
export type LocalTime = {
  readonly hour: number
  readonly minute: number
  readonly second: number
  readonly millisecond: number
}

/** A wall-clock date and time without a zone. */
export type LocalDateTime = LocalDate & LocalTime

/** Earliest accepted target: `0001-01-01T00:00:00.000Z`. */
export const MIN_INSTANT_MS = -62135596800000

/** Latest accepted target: `9999-12-31T23:59:59.999Z`. */
export const MAX_INSTANT_MS = 253402300799999

const MS_PER_MINUTE = 60_000
const MS_PER_HOUR = 3_600_000
const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(?:(Z)|([+-])(\d{2}):(\d{2}))$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const TIME = /^(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0
}

/** Number of days in a month (1–12) of a proleptic Gregorian year. */
export function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

function toDate(year: string, month: string, day: string): LocalDate | null {
  const y = Number(year)
  const m = Number(month)
  const d = Number(day)
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m)) return null
  return { year: y, month: m, day: d }
}

function toTime(hour: string, minute: string, second: string, fraction: string | undefined): LocalTime | null {
  const h = Number(hour)
  const m = Number(minute)
  const s = Number(second)
  if (h > 23 || m > 59 || s > 59) return null
  return { hour: h, minute: m, second: s, millisecond: fraction === undefined ? 0 : Number(fraction.padEnd(3, '0')) }
}

/** Parses a `YYYY-MM-DD` real calendar date, or null. */
export function parseLocalDate(value: unknown): LocalDate | null {
  if (typeof value !== 'string') return null
  const match = DATE.exec(value)
  return match === null ? null : toDate(match[1], match[2], match[3])
}

/** Parses an `HH:mm:ss` or `HH:mm:ss.f{1,3}` time of day (no leap second), or null. */
export function parseLocalTime(value: unknown): LocalTime | null {
  if (typeof value !== 'string') return null
  const match = TIME.exec(value)
  return match === null ? null : toTime(match[1], match[2], match[3], match[4])
}

/**
 * Parses the strict RFC 3339 profile of SPEC 7.3 into epoch milliseconds, or null when malformed.
 * The result is not range-checked (see `checkTarget`).
 */
export function parseRfc3339(value: unknown): number | null {
  if (typeof value !== 'string') return null
  const match = RFC3339.exec(value)
  if (match === null) return null
  const date = toDate(match[1], match[2], match[3])
  const time = toTime(match[4], match[5], match[6], match[7])
  if (date === null || time === null) return null
  if (match[8] === 'Z') return wallFieldsAsUtc({ ...date, ...time })
  const sign = match[9]
  const offsetHours = Number(match[10])
  const offsetMinutes = Number(match[11])
  if (offsetHours > 23 || offsetMinutes > 59) return null
  if (sign === '-' && offsetHours === 0 && offsetMinutes === 0) return null
  const offsetMs = (sign === '-' ? -1 : 1) * (offsetHours * MS_PER_HOUR + offsetMinutes * MS_PER_MINUTE)
  return wallFieldsAsUtc({ ...date, ...time }) - offsetMs
}

/** The wall-clock reading of an instant in an IANA zone with its milliseconds (the zone must be valid). */
export function wallClockAt(timeZone: string, ms: number): LocalDateTime {
  const wholeSecond = Math.floor(ms / 1000) * 1000
  return { ...wallClockOf(timeZone, wholeSecond), millisecond: ms - wholeSecond }
}

/** A wall time resolved to an instant: `shifted` when it fell in a gap and moved forward by the gap's length. */
export type ResolvedWallTime = { instant: number; shifted: boolean }

/**
 * Resolves a wall time in a valid zone the RFC 5545 way: a repeated wall time is the earlier instant;
 * a skipped one is read with the offset in force before the gap, which moves it forward by the gap's
 * length (02:30 on a spring-forward night → 03:30). Every candidate is verified by round trip. The
 * zone's offsets are read through `offsetAt` (default: Intl, each time).
 */
export function resolveWallTime(date: LocalDate, time: LocalTime, timeZone: string, offsetAt: OffsetAt = intlOffsets(timeZone)): ResolvedWallTime {
  const instants = instantsForWallTime({ ...date, ...time }, timeZone, offsetAt)
  if (instants.length > 0) return { instant: instants[0], shifted: false }
  const wall = wallFieldsAsUtc({ ...date, ...time })
  const before = offsetAt(wall - Math.max(...zoneOffsetsNear(timeZone, wall, offsetAt)))
  return { instant: wall - before, shifted: true }
}

/** Renders a local date and time as `YYYY-MM-DDTHH:mm:ss` (plus `.SSS` when not whole seconds). */
export function formatLocalDateTime(date: LocalDate, time: LocalTime): string {
  const pad = (value: number, width: number): string => String(value).padStart(width, '0')
  const base = `${pad(date.year, 4)}-${pad(date.month, 2)}-${pad(date.day, 2)}T${pad(time.hour, 2)}:${pad(time.minute, 2)}:${pad(time.second, 2)}`
  return time.millisecond === 0 ? base : `${base}.${pad(time.millisecond, 3)}`
}

/**
 * The instant of a local date and time in a valid IANA zone: a wall time skipped by a clock change
 * is `invalid_rule`; a repeated wall time resolves to the earlier instant.
 */
export function localToInstant(date: LocalDate, time: LocalTime, timeZone: string): ScheduleResult<number> {
  const instants = instantsForWallTime({ ...date, ...time }, timeZone)
  if (instants.length === 0) {
    return fail(
      invalidRule(`${formatLocalDateTime(date, time)} does not exist in ${timeZone}: a clock change skips it`),
    )
  }
  return ok(instants[0])
}

/** True iff the instant has a four-digit UTC year (SPEC 7.3 range). */
export function isInRange(ms: number): boolean {
  return Number.isFinite(ms) && ms >= MIN_INSTANT_MS && ms <= MAX_INSTANT_MS
}

/** The canonical UTC form of an instant (`Date.prototype.toISOString()`). */
export function toScheduledAt(ms: number): string {
  return new Date(ms).toISOString()
}

/** Epoch milliseconds of a canonical in-range `toISOString()` instant, or null. */
export function parseCanonicalInstant(value: unknown): number | null {
  if (typeof value !== 'string') return null
  // the built-in parser reads its own `toISOString()` form exactly; the round trip refuses everything else
  const ms = Date.parse(value)
  if (!isInRange(ms) || toScheduledAt(ms) !== value) return null
  return ms
}

/** Checks a target against the accepted range and then against now; yields its canonical `scheduledAt`. */
export function checkTarget(ms: number, now: number): ScheduleResult<string> {
  if (!isInRange(ms)) return fail(timeOutOfRange())
  if (ms <= now) return fail(notFuture(toScheduledAt(ms), toScheduledAt(now)))
  return ok(toScheduledAt(ms))
}
