import { wallFieldsAsUtc, type RuleForms } from '../../../protocol/index.ts'
import { formatWallClock } from './day-time.ts'
import { clockOptions, dateTimeFormat } from './formatters.ts'

function civilDate(year: number, month: number, day: number): number {
  return wallFieldsAsUtc({ year, month, day, hour: 0, minute: 0, second: 0 })
}

/**
 * A calendar rule's times, yearly date and end as the locale writes them, for its words in the overlay:
 * `8:30 AM`, `March 3`, `December 31, 2026` (en-US) or `08:30`, `3 March`, `31 December 2026` (en-GB); an end
 * instant in the reminder's zone (`zone`), whose place the words are shown beside.
 */
export function ruleForms(locale: string, zone: string): RuleForms {
  return {
    time: (hour, minute) => formatWallClock({ year: 2000, month: 1, day: 1, hour, minute, second: 0 }, locale),
    // a leap year, so the 29th of February has its name too
    dayOfYear: (month, day) => dateTimeFormat(locale, 'UTC', 'day-of-year', { month: 'long', day: 'numeric' }).format(civilDate(2000, month, day)),
    date: (year, month, day) => dateTimeFormat(locale, 'UTC', 'date-long', { day: 'numeric', month: 'long', year: 'numeric' }).format(civilDate(year, month, day)),
    instant: (epochMs) => dateTimeFormat(locale, zone, 'date-long-clock', { day: 'numeric', month: 'long', year: 'numeric', ...clockOptions(locale) }).format(epochMs),
  }
}
