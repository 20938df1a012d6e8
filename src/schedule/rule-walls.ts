import { ruleMinutesOfDay, setPositionIndexes, WEEKDAYS, withStartDays, type CalendarRule, type Weekday } from '../protocol/index.ts'
import { daysInMonth, type LocalDate } from './absolute-time.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** The weekday (Monday = 0) of day 0, 1 January 1970. */
const EPOCH_WEEKDAY = 3

/**
 * A series as its wall times are made, period by period of its frequency: the rule with the days RFC 5545 takes from
 * the series start named (`withStartDays`), its times of day (ms after midnight), its first wall time (`dtstart`, the
 * start day at the first time of day), the index of the period holding it (days, weeks from WKST, months or years
 * counted from 1970), and the last wall time and period its wall times may reach.
 */
export type Series = {
  readonly rule: CalendarRule
  readonly times: readonly number[]
  readonly dtstart: number
  readonly firstPeriod: number
  readonly until: number
  readonly lastPeriod: number
}

/** The day (counted from 1 January 1970) a wall time (floating milliseconds) falls on. */
function dayOf(floating: number): number {
  return Math.floor(floating / DAY_MS)
}

function weekdayOf(day: number): Weekday {
  return WEEKDAYS[(((day + EPOCH_WEEKDAY) % 7) + 7) % 7]
}

function dayOfDate(year: number, month: number, day: number): number {
  const at = new Date(0)
  at.setUTCFullYear(year, month - 1, day)
  return at.getTime() / DAY_MS
}

function dateOfDay(day: number): { year: number; month: number; day: number } {
  const at = new Date(day * DAY_MS)
  return { year: at.getUTCFullYear(), month: at.getUTCMonth() + 1, day: at.getUTCDate() }
}

/** The first day (from 1970) whose weekday is the week start: a rule's weeks are counted from it. */
function weekAnchor(rule: CalendarRule): number {
  return (WEEKDAYS.indexOf(rule.wkst ?? 'MO') - EPOCH_WEEKDAY + 7) % 7
}

/** The index of the period of the rule's frequency that holds a day: the day, its week (from WKST), month or year. */
function periodOfDay(rule: CalendarRule, day: number): number {
  switch (rule.freq) {
    case 'DAILY':
      return day
    case 'WEEKLY':
      return Math.floor((day - weekAnchor(rule)) / 7)
    case 'MONTHLY': {
      const date = dateOfDay(day)
      return date.year * 12 + date.month - 1
    }
    case 'YEARLY':
      return dateOfDay(day).year
    default: {
      const unreachable: never = rule.freq
      return unreachable
    }
  }
}

/** The first day of a period of the rule's frequency. */
function periodFirstDay(rule: CalendarRule, period: number): number {
  switch (rule.freq) {
    case 'DAILY':
      return period
    case 'WEEKLY':
      return weekAnchor(rule) + 7 * period
    case 'MONTHLY':
      return dayOfDate(Math.floor(period / 12), (period % 12) + 1, 1)
    case 'YEARLY':
      return dayOfDate(period, 1, 1)
    default: {
      const unreachable: never = rule.freq
      return unreachable
    }
  }
}

function monthDayMatches(monthDays: readonly number[], day: number, length: number): boolean {
  return monthDays.some((n) => (n > 0 ? n === day : length + n + 1 === day))
}

/**
 * The days of one month the rule names, earliest first: its BYMONTHDAY (from the end when negative; days the month does
 * not have are none) kept to its BYDAY weekdays, or else its BYDAY counted within the month (`1MO`, `-1FR`, `TU`).
 */
function monthDays(rule: CalendarRule, year: number, month: number): number[] {
  const first = dayOfDate(year, month, 1)
  const length = daysInMonth(year, month)
  const days = new Set<number>()
  if (rule.byMonthDay !== null) {
    for (const n of rule.byMonthDay) {
      const date = n > 0 ? n : length + n + 1
      if (date >= 1 && date <= length && (rule.byDay === null || rule.byDay.some((d) => d.weekday === weekdayOf(first + date - 1)))) days.add(first + date - 1)
    }
  } else {
    addWeekdays(days, rule, first, length)
  }
  return [...days].sort((a, b) => a - b)
}

/** The days of a stretch of `length` days from `first` that the rule's BYDAY names, its ordinals counted within the stretch (RFC 5545 3.3.10). */
function addWeekdays(days: Set<number>, rule: CalendarRule, first: number, length: number): void {
  for (const entry of rule.byDay ?? []) {
    const offset = (WEEKDAYS.indexOf(entry.weekday) - WEEKDAYS.indexOf(weekdayOf(first)) + 7) % 7
    if (entry.ordinal === null) {
      for (let day = offset; day < length; day += 7) days.add(first + day)
    } else if (entry.ordinal > 0) {
      const day = offset + 7 * (entry.ordinal - 1)
      if (day < length) days.add(first + day)
    } else {
      const day = offset + 7 * Math.floor((length - 1 - offset) / 7) + 7 * (entry.ordinal + 1)
      if (day >= 0) days.add(first + day)
    }
  }
}

/**
 * The days one period of the rule names before its times of day and BYSETPOS, earliest first (RFC 5545 3.3.10 for the
 * subset): a day kept to BYMONTH, BYMONTHDAY and BYDAY; a week's BYDAY weekdays kept to BYMONTH; a month (of BYMONTH)
 * by `monthDays`; a year's BYMONTH months by `monthDays`, or without BYMONTH every month's BYMONTHDAY, or its BYDAY
 * counted within the year (`53MO`: the 53rd Monday of the year, in years that have one).
 */
function periodDays(rule: CalendarRule, period: number): number[] {
  switch (rule.freq) {
    case 'DAILY': {
      const date = dateOfDay(period)
      if (rule.byMonth !== null && !rule.byMonth.includes(date.month)) return []
      if (rule.byMonthDay !== null && !monthDayMatches(rule.byMonthDay, date.day, daysInMonth(date.year, date.month))) return []
      if (rule.byDay !== null && !rule.byDay.some((d) => d.weekday === weekdayOf(period))) return []
      return [period]
    }
    case 'WEEKLY': {
      const days: number[] = []
      const first = periodFirstDay(rule, period)
      for (let day = first; day < first + 7; day += 1) {
        if (rule.byDay?.some((d) => d.weekday === weekdayOf(day)) !== true) continue
        if (rule.byMonth === null || rule.byMonth.includes(dateOfDay(day).month)) days.push(day)
      }
      return days
    }
    case 'MONTHLY': {
      const year = Math.floor(period / 12)
      const month = (period % 12) + 1
      return rule.byMonth === null || rule.byMonth.includes(month) ? monthDays(rule, year, month) : []
    }
    case 'YEARLY': {
      if (rule.byMonth !== null) return [...rule.byMonth].sort((a, b) => a - b).flatMap((month) => monthDays(rule, period, month))
      if (rule.byMonthDay !== null) return Array.from({ length: 12 }, (_, i) => monthDays(rule, period, i + 1)).flat()
      const days = new Set<number>()
      addWeekdays(days, rule, dayOfDate(period, 1, 1), daysInMonth(period, 2) === 29 ? 366 : 365)
      return [...days].sort((a, b) => a - b)
    }
    default: {
      const unreachable: never = rule.freq
      return unreachable
    }
  }
}

/**
 * One period's wall times, not yet made: its days × the rule's times of day, and the candidates BYSETPOS picks
 * (indexes into those, ascending; null: all). They rise with their index, so any range of them is found by bisection
 * without making the others (every minute of every day of a year is 527,040).
 */
type PeriodWalls = { days: number[]; times: readonly number[]; picked: number[] | null; size: number }

function periodWalls(series: Series, period: number): PeriodWalls {
  const days = periodDays(series.rule, period)
  const candidates = days.length * series.times.length
  const picked = series.rule.bySetPos === null ? null : setPositionIndexes(candidates, series.rule.bySetPos)
  return { days, times: series.times, picked, size: picked === null ? candidates : picked.length }
}

/** The `j`th wall time (floating) of a period, earliest first. */
function wallAt(walls: PeriodWalls, j: number): number {
  const index = walls.picked === null ? j : walls.picked[j]
  const count = walls.times.length
  return walls.days[Math.floor(index / count)] * DAY_MS + walls.times[index % count]
}

/** How many of a period's wall times lie before `floating` (`inclusive`: at or before it). */
function wallsBefore(walls: PeriodWalls, floating: number, inclusive: boolean): number {
  let low = 0
  let high = walls.size
  while (low < high) {
    const middle = (low + high) >>> 1
    const wall = wallAt(walls, middle)
    if (wall < floating || (inclusive && wall === floating)) low = middle + 1
    else high = middle
  }
  return low
}

/** The series of a rule from a start date, its wall times reaching `until` (floating) and the period `lastPeriod` at the latest. */
export function seriesOf(rule: CalendarRule, starts: LocalDate, until: number, lastPeriod: number): Series {
  const times = ruleMinutesOfDay(rule).map((minutes) => minutes * MINUTE_MS)
  const startDay = dayOfDate(starts.year, starts.month, starts.day)
  return { rule: withStartDays(rule, starts), times, dtstart: startDay * DAY_MS + times[0], firstPeriod: periodOfDay(rule, startDay), until, lastPeriod }
}

/** The first period of the series (every INTERVAL-th from its start's) that can hold wall times at or after `floating`. */
function periodFrom(series: Series, floating: number): number {
  const period = periodOfDay(series.rule, dayOf(floating))
  if (period <= series.firstPeriod) return series.firstPeriod
  const { interval } = series.rule
  return series.firstPeriod + Math.floor((period - series.firstPeriod) / interval) * interval
}

/**
 * The series' wall times (floating milliseconds) in `[fromFloating, toFloating]`, earliest first, at most `most` of
 * them: every INTERVAL-th period's wall times from the period of `fromFloating` on, BYSETPOS picked from each period
 * whole, none before `dtstart` or after `until`.
 */
export function seriesWalls(series: Series, fromFloating: number, toFloating: number, most = Infinity): number[] {
  const from = Math.max(fromFloating, series.dtstart)
  const to = Math.min(toFloating, series.until)
  const out: number[] = []
  if (to < from) return out
  const { rule } = series
  for (let period = periodFrom(series, from); out.length < most; period += rule.interval) {
    if (period > series.lastPeriod || periodFirstDay(rule, period) * DAY_MS > to) break
    const walls = periodWalls(series, period)
    const end = wallsBefore(walls, to, true)
    for (let j = wallsBefore(walls, from, false); j < end && out.length < most; j += 1) out.push(wallAt(walls, j))
  }
  return out
}

/** How far a series' COUNT has been counted: the periods before `period` hold `seen` wall times; `last`, once found, is the COUNTth. */
export type Counting = { period: number; seen: number; last: number | null }

/** The counting of a series not yet begun. */
export function countingOf(series: Series): Counting {
  return { period: series.firstPeriod, seen: 0, last: null }
}

/**
 * Counts the series' wall times from `dtstart`, none past `limit`, period by period (each period's counted, not made)
 * until the `count`th is found or the next period begins after `through`; carries `counting` on.
 */
export function countOn(series: Series, counting: Counting, count: number, through: number, limit: number): void {
  const { rule } = series
  while (counting.last === null && counting.period <= series.lastPeriod && periodFirstDay(rule, counting.period) * DAY_MS <= Math.min(through, limit)) {
    const walls = periodWalls(series, counting.period)
    const first = wallsBefore(walls, series.dtstart, false)
    const counted = Math.max(0, wallsBefore(walls, Math.min(limit, series.until), true) - first)
    if (counting.seen + counted >= count) counting.last = wallAt(walls, first + count - counting.seen - 1)
    counting.seen += counted
    counting.period += rule.interval
  }
}
