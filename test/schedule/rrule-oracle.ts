import type { CalendarRule, Weekday } from '../../src/protocol/rrule.ts'
import { WEEKDAYS } from '../../src/protocol/rrule.ts'

/** A wall date-time as floating epoch milliseconds (read as UTC). */
type Floating = number

const DAY_MS = 86_400_000

function weekdayOf(ms: number): Weekday {
  return WEEKDAYS[(new Date(ms).getUTCDay() + 6) % 7]
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

/**
 * An independent, deliberately naive RFC 5545 expansion of the SPEC 7.7 subset for tests: walks day
 * by day, groups days into FREQ periods, applies the BY* rules of RFC 5545 §3.3.10 (expand/limit
 * table), BYSETPOS per period, and INTERVAL by period index. It shares no code with the library.
 */
export function oracleWallTimes(rule: CalendarRule, start: { year: number; month: number; day: number }, days: number): Floating[] {
  const startDay = Date.UTC(start.year, start.month - 1, start.day)
  const dtstart = startDay + (rule.byHour[0] * 60 + rule.byMinute[0]) * 60_000
  const wkst = WEEKDAYS.indexOf(rule.wkst ?? 'MO')
  const startDate = new Date(startDay)
  const periodOf = (ms: number): number => {
    const d = new Date(ms)
    switch (rule.freq) {
      case 'DAILY':
        return Math.round((ms - startDay) / DAY_MS)
      case 'WEEKLY': {
        const weekStart = (t: number): number => t - (((new Date(t).getUTCDay() + 6) % 7) - wkst + 7) % 7 * DAY_MS
        return Math.round((weekStart(ms) - weekStart(startDay)) / (7 * DAY_MS))
      }
      case 'MONTHLY':
        return (d.getUTCFullYear() - startDate.getUTCFullYear()) * 12 + d.getUTCMonth() - startDate.getUTCMonth()
      case 'YEARLY':
        return d.getUTCFullYear() - startDate.getUTCFullYear()
    }
  }
  const dayMatches = (ms: number): boolean => {
    const d = new Date(ms)
    const year = d.getUTCFullYear()
    const month = d.getUTCMonth() + 1
    const day = d.getUTCDate()
    const weekday = weekdayOf(ms)
    const dim = daysInMonth(year, month)
    if (rule.byMonth !== null && !rule.byMonth.includes(month)) return false
    if (rule.byMonthDay !== null && !rule.byMonthDay.some((n) => (n > 0 ? n === day : dim + n + 1 === day))) return false
    if (rule.byDay !== null) {
      const ok = rule.byDay.some((entry) => {
        if (entry.weekday !== weekday) return false
        if (entry.ordinal === null) return true
        const inYear = rule.freq === 'YEARLY' && rule.byMonth === null
        const first = inYear ? Date.UTC(year, 0, 1) : Date.UTC(year, month - 1, 1)
        const last = inYear ? Date.UTC(year, 11, 31) : Date.UTC(year, month - 1, dim)
        const nth = Math.floor((ms - first) / (7 * DAY_MS)) + 1
        const nthFromEnd = Math.floor((last - ms) / (7 * DAY_MS)) + 1
        return entry.ordinal > 0 ? entry.ordinal === nth : -entry.ordinal === nthFromEnd
      })
      if (!ok) return false
    }
    const anyDayRule = rule.byDay !== null || rule.byMonthDay !== null
    if (rule.freq === 'WEEKLY' && rule.byDay === null) return weekday === weekdayOf(startDay)
    if (rule.freq === 'MONTHLY' && !anyDayRule) return day === startDate.getUTCDate()
    if (rule.freq === 'YEARLY' && !anyDayRule) {
      if (rule.byMonth === null && month !== startDate.getUTCMonth() + 1) return false
      return day === startDate.getUTCDate()
    }
    return true
  }
  const periods = new Map<number, Floating[]>()
  const firstDay = startDay - 400 * DAY_MS
  for (let ms = firstDay; ms < startDay + days * DAY_MS; ms += DAY_MS) {
    const period = periodOf(ms)
    if (period < 0 || period % rule.interval !== 0 || !dayMatches(ms)) continue
    const list = periods.get(period) ?? []
    for (const hour of rule.byHour) for (const minute of rule.byMinute) list.push(ms + (hour * 60 + minute) * 60_000)
    periods.set(period, list)
  }
  const out: Floating[] = []
  for (const period of [...periods.keys()].sort((a, b) => a - b)) {
    const list = (periods.get(period) ?? []).sort((a, b) => a - b)
    const chosen = rule.bySetPos === null ? list : rule.bySetPos.map((p) => (p > 0 ? list[p - 1] : list[list.length + p])).filter((v) => v !== undefined)
    for (const t of [...new Set(chosen)].sort((a, b) => a - b)) if (t >= dtstart) out.push(t)
  }
  return out
}
