import { parseRrule, type CalendarRule, type RuleDay, type Weekday } from './rrule.ts'

/** English names of the RFC 5545 weekdays. */
export const DAY_NAMES: Readonly<Record<Weekday, string>> = {
  MO: 'Monday',
  TU: 'Tuesday',
  WE: 'Wednesday',
  TH: 'Thursday',
  FR: 'Friday',
  SA: 'Saturday',
  SU: 'Sunday',
}
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December']
const ORDINAL_WORDS = ['', 'first', 'second', 'third', 'fourth', 'fifth']
const WEEKDAY_SET = ['MO', 'TU', 'WE', 'TH', 'FR']
const WEEKEND_SET = ['SA', 'SU']

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

/** `a`, `a and b`, `a, b and c`. */
export function joinWords(items: readonly string[]): string {
  if (items.length <= 1) return items.join('')
  return `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`
}

/** `1st`, `2nd`, `3rd`, `11th`, `22nd`. */
export function ordinalNumber(n: number): string {
  const tens = n % 100
  if (tens >= 11 && tens <= 13) return `${n}th`
  switch (n % 10) {
    case 1:
      return `${n}st`
    case 2:
      return `${n}nd`
    case 3:
      return `${n}rd`
    default:
      return `${n}th`
  }
}

function ordinalWord(n: number): string {
  if (n === -1) return 'last'
  if (n === -2) return 'second to last'
  if (n > 0 && n < ORDINAL_WORDS.length) return ORDINAL_WORDS[n]
  return n > 0 ? ordinalNumber(n) : `${ordinalNumber(-n)} to last`
}

function monthDayWords(day: number): string {
  if (day === -1) return 'the last day'
  if (day < 0) return `the ${ordinalNumber(-day)} to last day`
  return `the ${ordinalNumber(day)}`
}

function sameSet(days: readonly RuleDay[], codes: readonly string[]): boolean {
  return days.length === codes.length && days.every((d) => d.ordinal === null && codes.includes(d.weekday))
}

function plainDays(days: readonly RuleDay[]): string {
  if (sameSet(days, WEEKDAY_SET)) return 'weekdays'
  if (sameSet(days, WEEKEND_SET)) return 'weekends'
  return joinWords(days.map((d) => (d.ordinal === null ? DAY_NAMES[d.weekday] : `the ${ordinalWord(d.ordinal)} ${DAY_NAMES[d.weekday]}`)))
}

/** The times of day of a rule, `08:30` or `08:00 and 18:00`. */
export function ruleTimes(rule: CalendarRule): string[] {
  const times: string[] = []
  for (const hour of rule.byHour) for (const minute of rule.byMinute) times.push(`${pad(hour)}:${pad(minute)}`)
  return times
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0].toUpperCase() + text.slice(1)
}

function every(interval: number, unit: string, adverb: string): string {
  return interval === 1 ? adverb : `every ${interval} ${unit}s`
}

function monthOrYearDays(rule: CalendarRule): string | null {
  const { byDay, byMonthDay, bySetPos } = rule
  const pieces: string[] = []
  if (byMonthDay !== null) pieces.push(joinWords(byMonthDay.map(monthDayWords)))
  if (byDay !== null) pieces.push(plainDays(byDay))
  if (pieces.length === 0) return null
  if (bySetPos === null) return pieces.join(' that is a ')
  const positions = joinWords(bySetPos.map(ordinalWord))
  if (byMonthDay === null && byDay !== null && sameSet(byDay, WEEKDAY_SET)) return `the ${positions} weekday`
  return `the ${positions} of ${pieces.join(' that is a ')}`
}

function dayClause(rule: CalendarRule): string {
  const { freq, interval, byDay } = rule
  const weekly = (head: string): string => {
    if (byDay === null) return head
    const days = plainDays(byDay)
    if (interval === 1) return days === 'weekdays' || days === 'weekends' ? days : `every ${days}`
    return `${head} on ${days}`
  }
  switch (freq) {
    case 'DAILY':
      return weekly(every(interval, 'day', 'every day'))
    case 'WEEKLY':
      return weekly(every(interval, 'week', 'every week'))
    case 'MONTHLY':
    case 'YEARLY': {
      const head = freq === 'MONTHLY' ? every(interval, 'month', 'monthly') : every(interval, 'year', 'yearly')
      const days = monthOrYearDays(rule)
      return days === null ? head : `${head} on ${days}`
    }
    default: {
      const unreachable: never = freq
      return unreachable
    }
  }
}

/** The one date a yearly rule falls on, as a date is said (`3 March`), or null when it names more or other days. */
function yearlyDate(rule: CalendarRule): string | null {
  const { freq, byMonth, byMonthDay, byDay, bySetPos } = rule
  if (freq !== 'YEARLY' || byMonth?.length !== 1 || byMonthDay?.length !== 1 || byMonthDay[0] < 1 || byDay !== null || bySetPos !== null) return null
  return `${byMonthDay[0]} ${MONTH_NAMES[byMonth[0] - 1]}`
}

/** A calendar rule in English words: `Weekdays at 08:30`, `Monthly on the 1st at 09:00`, `Every Monday at 10:00, 4 times`. */
export function describeCalendarRule(rule: CalendarRule): string {
  const date = yearlyDate(rule)
  let text = date === null ? dayClause(rule) : `${every(rule.interval, 'year', 'yearly')} on ${date}`
  if (rule.byMonth !== null && date === null) text += ` in ${joinWords(rule.byMonth.map((m) => MONTH_NAMES[m - 1]))}`
  text += ` at ${joinWords(ruleTimes(rule))}`
  switch (rule.end.kind) {
    case 'count':
      text += rule.end.count === 1 ? ', once' : `, ${rule.end.count} times`
      break
    case 'until-date':
      text += `, until ${rule.end.year}-${pad(rule.end.month)}-${pad(rule.end.day)}`
      break
    case 'until-instant':
      text += `, until ${new Date(rule.end.epochMs).toISOString().replace('.000Z', 'Z')}`
      break
    case 'never':
      break
    default: {
      const unreachable: never = rule.end
      return unreachable
    }
  }
  return capitalise(text)
}

/** An RRULE value of the SPEC 7.7 subset in English words, or null when it is not in the subset. */
export function describeRrule(rrule: string): string | null {
  const parsed = parseRrule(rrule)
  return parsed.ok ? describeCalendarRule(parsed.rule) : null
}
