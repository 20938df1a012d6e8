import { wallClockAt, wallFieldsAsUtc, type RuleForms } from '../../../protocol/index.ts'
import { formatClock, formatWallClock } from './day-time.ts'
import { dateTimeFormat, wordLocale } from './formatters.ts'

function civilDate(year: number, month: number, day: number): number {
  return wallFieldsAsUtc({ year, month, day, hour: 0, minute: 0, second: 0 })
}

/**
 * A calendar rule's times, yearly date and end for its words in the overlay, in English as the rule's words are (see
 * `wordLocale`) on the locale's clock: `8:30 AM`, `March 3`, `December 31, 2026` (en-US), `08:30`, `3 March`,
 * `31 December 2026` (en-GB, and de-DE or pt-BR); an end instant in the reminder's zone (`zone`), whose place the words
 * are shown beside.
 */
export function ruleForms(locale: string, zone: string): RuleForms {
  const words = wordLocale(locale)
  const date = (year: number, month: number, day: number) => dateTimeFormat(words, 'UTC', 'date-long', { day: 'numeric', month: 'long', year: 'numeric' }).format(civilDate(year, month, day))
  return {
    time: (hour, minute) => formatWallClock({ year: 2000, month: 1, day: 1, hour, minute, second: 0 }, locale),
    // a leap year, so the 29th of February has its name too
    dayOfYear: (month, day) => dateTimeFormat(words, 'UTC', 'day-of-year', { month: 'long', day: 'numeric' }).format(civilDate(2000, month, day)),
    date,
    instant: (epochMs) => {
      const wall = wallClockAt(zone, epochMs)
      return `${date(wall.year, wall.month, wall.day)} at ${formatClock(epochMs, zone, locale)}`
    },
  }
}
