import { ruleMinutesOfDay, setPositionIndexes, WEEKDAYS, type CalendarRule } from '../protocol/index.ts'
import { daysInMonth } from './absolute-time.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
const LAST_YEAR = 9999

/**
 * True for a YEARLY rule with an ordinal BYDAY and no BYMONTH (`BYDAY=53MO`: the 53rd Monday of the
 * year). rrule-temporal 2.2.8 counts such an ordinal on from the first weekday of the year without
 * stopping at its end, so a 53MO of a year with 52 Mondays lands in January of the next; these rules
 * are expanded by `yearlyWeekdayWalls` instead.
 */
export function expandsYearlyWeekdays(rule: CalendarRule): boolean {
  return rule.freq === 'YEARLY' && rule.byMonth === null && rule.byDay !== null && rule.byDay.some((d) => d.ordinal !== null)
}

function floatingDay(year: number, dayOfYear: number): number {
  const at = new Date(0)
  at.setUTCFullYear(year, 0, 1 + dayOfYear)
  return at.getTime()
}

/** Days of `year` (0 = 1 January) the rule's BYDAY names, counting ordinals within the year (RFC 5545 3.3.10). */
function daysOfYear(rule: CalendarRule, year: number): number[] {
  const length = daysInMonth(year, 2) === 29 ? 366 : 365
  const firstWeekday = (new Date(floatingDay(year, 0)).getUTCDay() + 6) % 7
  const days = new Set<number>()
  for (const entry of rule.byDay ?? []) {
    const first = (WEEKDAYS.indexOf(entry.weekday) - firstWeekday + 7) % 7
    if (entry.ordinal === null) {
      for (let day = first; day < length; day += 7) days.add(day)
    } else if (entry.ordinal > 0) {
      const day = first + 7 * (entry.ordinal - 1)
      if (day < length) days.add(day)
    } else {
      const day = first + 7 * Math.floor((length - 1 - first) / 7) + 7 * (entry.ordinal + 1)
      if (day >= 0) days.add(day)
    }
  }
  return [...days].sort((a, b) => a - b)
}

/**
 * One year of the rule, its wall times not yet made: the year's first day (floating), the days (from 0) its BYDAY
 * names, the rule's times of day, and the candidates BYSETPOS picks (indexes of days × times, ascending; null: all).
 * The candidates rise with their index, so any range of wall times is found by bisection without making the year's
 * others (one with every Monday at every minute of the day holds 76,320).
 */
type YearWalls = { firstDay: number; days: number[]; times: readonly number[]; picked: number[] | null; size: number }

function yearOf(rule: CalendarRule, year: number, times: readonly number[]): YearWalls {
  const days = daysOfYear(rule, year)
  const candidates = days.length * times.length
  const picked = rule.bySetPos === null ? null : setPositionIndexes(candidates, rule.bySetPos)
  return { firstDay: floatingDay(year, 0), days, times, picked, size: picked === null ? candidates : picked.length }
}

/** The `j`th wall time (floating) the year selects, earliest first (BYSETPOS applied). */
function wallAt(year: YearWalls, j: number): number {
  const index = year.picked === null ? j : year.picked[j]
  const count = year.times.length
  return year.firstDay + year.days[Math.floor(index / count)] * DAY_MS + year.times[index % count]
}

/** How many of the year's wall times lie before `floating` (`inclusive`: at or before it). */
function wallsBefore(year: YearWalls, floating: number, inclusive: boolean): number {
  let low = 0
  let high = year.size
  while (low < high) {
    const middle = (low + high) >>> 1
    const wall = wallAt(year, middle)
    if (wall < floating || (inclusive && wall === floating)) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The wall times, as floating milliseconds in `[fromMs, toMs]`, of a rule `expandsYearlyWeekdays`
 * accepts: years counted by INTERVAL from the year of `dtstart`, nothing before `dtstart` or after
 * `untilMs`, and at most COUNT from `dtstart` on. A year's wall times are counted, not made: only
 * those in `[fromMs, toMs]` are.
 */
export function yearlyWeekdayWalls(rule: CalendarRule, dtstart: number, untilMs: number, fromMs: number, toMs: number): number[] {
  const startYear = new Date(dtstart).getUTCFullYear()
  const count = rule.end.kind === 'count' ? rule.end.count : Infinity
  let year = startYear
  const fromYear = new Date(fromMs).getUTCFullYear()
  if (count === Infinity && fromYear > startYear) year += Math.floor((fromYear - startYear) / rule.interval) * rule.interval
  const times = ruleMinutesOfDay(rule).map((minutes) => minutes * MINUTE_MS)
  const out: number[] = []
  let counted = 0
  for (; year <= LAST_YEAR && floatingDay(year, 0) <= Math.min(toMs, untilMs); year += rule.interval) {
    const walls = yearOf(rule, year, times)
    // the year's wall times from `dtstart` on count, up to the first past UNTIL, which ends the series
    const first = wallsBefore(walls, dtstart, false)
    const end = Math.max(first, wallsBefore(walls, untilMs, true))
    const last = Math.min(end, first + (count - counted))
    const high = Math.min(last, wallsBefore(walls, toMs, true))
    for (let j = Math.max(first, wallsBefore(walls, fromMs, false)); j < high; j += 1) out.push(wallAt(walls, j))
    counted += end - first
    if (end < walls.size || counted >= count) return out
  }
  return out
}
