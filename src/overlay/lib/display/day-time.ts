import { instantsForWallTime, utcOffsetMinutes, wallClockAt, wallFieldsAsUtc, type WallClock } from '../../../protocol/index.ts'
import { clockOptions, dateTimeFormat, wordLocale } from './formatters.ts'

const DAY_MS = 86_400_000
const relative = new Map<string, Intl.RelativeTimeFormat>()

function relativeFormat(locale: string): Intl.RelativeTimeFormat {
  let format = relative.get(locale)
  if (format === undefined) {
    format = new Intl.RelativeTimeFormat(locale, { numeric: 'auto' })
    relative.set(locale, format)
  }
  return format
}

function civilDay(zone: string, instantMs: number): number {
  const wall = wallClockAt(zone, instantMs)
  const date = new Date(Date.UTC(2000, wall.month - 1, wall.day))
  date.setUTCFullYear(wall.year)
  return Math.round(date.getTime() / DAY_MS)
}

/** Calendar days from `nowMs`'s date to `instantMs`'s date on the wall clock of `zone` (0 today, 1 tomorrow, −1 yesterday). */
export function dayOffset(instantMs: number, nowMs: number, zone: string): number {
  return civilDay(zone, instantMs) - civilDay(zone, nowMs)
}

/** The time of day in the locale's own clock: `18:30` (de-DE, en-GB), `6:30 PM` (en-US). */
export function formatClock(instantMs: number, zone: string, locale: string): string {
  if (repeatedWallTime(instantMs, zone)) return dateTimeFormat(locale, zone, 'clock-zone', { ...clockOptions(locale), timeZoneName: 'short' }).format(instantMs)
  return dateTimeFormat(locale, zone, 'clock', clockOptions(locale)).format(instantMs)
}

/** A wall time of day in the locale's own clock, whatever zone it is in (it may not exist there): `02:30`, `2:30 AM`. */
export function formatWallClock(wall: WallClock, locale: string): string {
  return dateTimeFormat(locale, 'UTC', 'clock', clockOptions(locale)).format(wallFieldsAsUtc(wall))
}

const HOURS_2 = 2 * 3_600_000

/**
 * Whether the wall time of an instant happens twice in its zone (the hour the clocks go back repeats): then a clock
 * alone does not say which, and the zone's short name does (`1:30 AM EDT`, `1:30 AM EST`). Only near a change of
 * offset is it worked out.
 */
function repeatedWallTime(instantMs: number, zone: string): boolean {
  try {
    if (utcOffsetMinutes(zone, instantMs - HOURS_2) === utcOffsetMinutes(zone, instantMs + HOURS_2)) return false
    return instantsForWallTime(wallClockAt(zone, instantMs), zone).length > 1
  } catch {
    return false
  }
}

/**
 * The day of an instant in words: `yesterday`, `today`, `tomorrow`, or a weekday in the coming week (`Monday`); null for
 * another day, which is said by its date (a weekday alone reads as the next one: last Wednesday is not `Wednesday`).
 */
export function dayWord(instantMs: number, nowMs: number, zone: string, locale: string): string | null {
  const days = dayOffset(instantMs, nowMs, zone)
  const words = wordLocale(locale)
  if (days >= -1 && days <= 1) return relativeFormat(words).format(days, 'day')
  if (days >= 2 && days <= 6) return dateTimeFormat(words, zone, 'weekday', { weekday: 'long' }).format(instantMs)
  return null
}

/**
 * When something happens, as a person reads it in a zone: `yesterday 22:10`, `today 18:30`, `tomorrow 9:30 AM`,
 * `Monday 08:00` in the coming week, else `Wed, Dec 2, 6:30 PM` this year and `Dec 2, 2027, 6:30 PM` in another; the
 * words in English (see `wordLocale`: `Sun 20 Dec, 09:05` in de-DE), the clock as the locale writes it.
 */
export function formatWhen(instantMs: number, zone: string, locale: string, nowMs: number): string {
  const word = dayWord(instantMs, nowMs, zone, locale)
  if (word !== null) return `${word} ${formatClock(instantMs, zone, locale)}`
  const sameYear = wallClockAt(zone, instantMs).year === wallClockAt(zone, nowMs).year
  const options: Intl.DateTimeFormatOptions = sameYear ? { weekday: 'short', day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' }
  const date = dateTimeFormat(wordLocale(locale), zone, sameYear ? 'date' : 'date-year', options).format(instantMs)
  return `${date}, ${formatClock(instantMs, zone, locale)}`
}

/** A timestamp for the conversation: the clock alone today, else with its day (`yesterday 18:30`, `Mon, Dec 1, 6:30 PM`). */
export function formatStamp(instantMs: number, zone: string, locale: string, nowMs: number): string {
  return dayOffset(instantMs, nowMs, zone) === 0 ? formatClock(instantMs, zone, locale) : formatWhen(instantMs, zone, locale, nowMs)
}

/** The full date and time with seconds and zone, for hover and expanded views. */
export function formatFull(instantMs: number, zone: string, locale: string): string {
  return dateTimeFormat(locale, zone, 'full', { dateStyle: 'full', timeStyle: 'long' }).format(instantMs)
}
