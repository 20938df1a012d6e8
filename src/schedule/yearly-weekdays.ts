import { atSetPositions, ruleMinutesOfDay, WEEKDAYS, type CalendarRule } from '../protocol/index.ts'
import { daysInMonth } from './absolute-time.ts'

const MINUTE_MS = 60_000
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

/** The wall times one year of the rule selects, as floating milliseconds, earliest first (BYSETPOS applied). */
function yearWalls(rule: CalendarRule, year: number): number[] {
  const times = ruleMinutesOfDay(rule).map((minutes) => minutes * MINUTE_MS)
  const candidates = daysOfYear(rule, year).flatMap((day) => times.map((time) => floatingDay(year, day) + time))
  return rule.bySetPos === null ? candidates : atSetPositions(candidates, rule.bySetPos)
}

/**
 * The wall times, as floating milliseconds in `[fromMs, toMs]`, of a rule `expandsYearlyWeekdays`
 * accepts: years counted by INTERVAL from the year of `dtstart`, nothing before `dtstart` or after
 * `untilMs`, and at most COUNT from `dtstart` on.
 */
export function yearlyWeekdayWalls(rule: CalendarRule, dtstart: number, untilMs: number, fromMs: number, toMs: number): number[] {
  const startYear = new Date(dtstart).getUTCFullYear()
  const count = rule.end.kind === 'count' ? rule.end.count : Infinity
  let year = startYear
  const fromYear = new Date(fromMs).getUTCFullYear()
  if (count === Infinity && fromYear > startYear) year += Math.floor((fromYear - startYear) / rule.interval) * rule.interval
  const out: number[] = []
  let counted = 0
  for (; year <= LAST_YEAR && floatingDay(year, 0) <= Math.min(toMs, untilMs); year += rule.interval) {
    for (const wall of yearWalls(rule, year)) {
      if (wall < dtstart) continue
      if (wall > untilMs) return out
      counted += 1
      if (counted > count) return out
      if (wall >= fromMs && wall <= toMs) out.push(wall)
    }
  }
  return out
}
