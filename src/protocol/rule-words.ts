import { atSetPositions, parseRrule, ruleMinutesOfDay, WEEKDAYS, type CalendarRule, type RuleDay, type Weekday } from './rrule.ts'

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

/**
 * How a rule's words write its times of day, its yearly date and its end. The plain forms (24-hour times, ISO
 * dates and UTC instants) are what the model is told; the overlay writes them as the person's locale does.
 */
export type RuleForms = {
  /** A time of day: `08:30`. */
  time(hour: number, minute: number): string
  /** The one day of the year a yearly rule falls on (month 1–12): `3 March`. */
  dayOfYear(month: number, day: number): string
  /** The last date of an `UNTIL` date (month 1–12): `2026-12-31`. */
  date(year: number, month: number, day: number): string
  /** The last instant of an `UNTIL` date-time: `2026-12-31T23:00:00Z`. */
  instant(epochMs: number): string
}

/** The plain forms: `08:30`, `3 March`, `2026-12-31`, `2026-12-31T23:00:00Z`. */
export const PLAIN_RULE_FORMS: RuleForms = {
  time: (hour, minute) => `${pad(hour)}:${pad(minute)}`,
  dayOfYear: (month, day) => `${day} ${MONTH_NAMES[month - 1]}`,
  date: (year, month, day) => `${year}-${pad(month)}-${pad(day)}`,
  instant: (epochMs) => new Date(epochMs).toISOString().replace('.000Z', 'Z'),
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

/** The local date a series starts on (its `starts`, in the reminder's zone), from which a rule takes the days it leaves out. */
export type RuleStart = { year: number; month: number; day: number }

/** A series start written `YYYY-MM-DD` (a record's `starts`), or null when it is not a real date. */
export function parseRuleStart(starts: string): RuleStart | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(starts)
  if (match === null) return null
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  const date = new Date(Date.UTC(2000, month - 1, day))
  date.setUTCFullYear(year)
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? { year, month, day } : null
}

function weekdayOf(start: RuleStart): Weekday {
  const date = new Date(Date.UTC(2000, start.month - 1, start.day))
  date.setUTCFullYear(start.year)
  return WEEKDAYS[(date.getUTCDay() + 6) % 7]
}

/**
 * The rule with the days RFC 5545 takes from the series start when it names none: a weekly rule's weekday, a monthly
 * rule's day of the month, a yearly rule's day (and its month when it names no month either).
 */
export function withStartDays(rule: CalendarRule, start: RuleStart): CalendarRule {
  const { freq, byDay, byMonthDay, byMonth } = rule
  if (byDay !== null || byMonthDay !== null) return rule
  switch (freq) {
    case 'DAILY':
      return rule
    case 'WEEKLY':
      return { ...rule, byDay: [{ weekday: weekdayOf(start), ordinal: null }] }
    case 'MONTHLY':
      return { ...rule, byMonthDay: [start.day] }
    case 'YEARLY':
      return { ...rule, byMonthDay: [start.day], byMonth: byMonth ?? [start.month] }
    default: {
      const unreachable: never = freq
      return unreachable
    }
  }
}

/**
 * A yearly rule that names days but no month as the rule it is (RFC 5545: a BYMONTHDAY in every month of the year, a
 * plain weekday every week): `FREQ=YEARLY;BYMONTHDAY=1` is monthly on the 1st, `FREQ=YEARLY;BYDAY=MO` every Monday;
 * null when it has no plain words (every few years, or a BYSETPOS over the whole year's days).
 */
function asYearWide(rule: CalendarRule): CalendarRule | null {
  const { freq, byMonth, byMonthDay, byDay, bySetPos, interval } = rule
  if (freq !== 'YEARLY' || byMonth !== null) return rule
  const plainDays = byDay !== null && byDay.every((d) => d.ordinal === null)
  // the nth weekdays of the year (`BYDAY=1MO`) are yearly, and so is a rule with no days (it took the start's)
  if (byMonthDay === null && !plainDays) return rule
  if (interval !== 1 || bySetPos !== null || (byDay !== null && !plainDays)) return null
  return { ...rule, freq: byMonthDay !== null ? 'MONTHLY' : 'WEEKLY' }
}

type TimeOfDay = { hour: number; minute: number }

function timesOfDay(rule: CalendarRule): TimeOfDay[] {
  return ruleMinutesOfDay(rule).map((minutes) => ({ hour: Math.floor(minutes / 60), minute: minutes % 60 }))
}

/** A rule with its times of day as a list, which a BYSETPOS may pick from. */
type SaidRule = { rule: CalendarRule; times: TimeOfDay[] }

/**
 * The rule as its words can say it: BYSETPOS folded into the days and times it picks where each period (a day, a week,
 * a month with one day) holds the same set, kept for a monthly or yearly set of days at one time (`the last weekday`),
 * else null: a rule whose picks differ from one period to the next has no plain words.
 */
function settled(rule: CalendarRule): SaidRule | null {
  const times = timesOfDay(rule)
  const { freq, bySetPos, byDay, byMonthDay, byMonth } = rule
  if (bySetPos === null) return { rule, times }
  const pickedTimes = (): SaidRule | null => {
    const picked = atSetPositions(times, bySetPos)
    return picked.length === 0 ? null : { rule: { ...rule, bySetPos: null }, times: picked }
  }
  switch (freq) {
    case 'DAILY':
      return pickedTimes()
    case 'WEEKLY': {
      // a week cut by BYMONTH holds fewer days, so its picks differ
      if (byDay === null || byMonth !== null) return null
      const start = WEEKDAYS.indexOf(rule.wkst ?? 'MO')
      const order = (d: RuleDay) => (WEEKDAYS.indexOf(d.weekday) - start + 7) % 7
      const week = [...byDay].sort((a, b) => order(a) - order(b))
      const picked = atSetPositions(week.flatMap((day) => times.map((time) => ({ day, time }))), bySetPos)
      const days = byDay.filter((day) => picked.some((p) => p.day === day))
      const timesOn = (day: RuleDay) => picked.filter((p) => p.day === day).map((p) => p.time)
      const first = days.length === 0 ? [] : timesOn(days[0])
      const same = (a: TimeOfDay[], b: TimeOfDay[]) => a.length === b.length && a.every((t, i) => t.hour === b[i].hour && t.minute === b[i].minute)
      if (days.length === 0 || !days.every((day) => same(timesOn(day), first))) return null
      return { rule: { ...rule, byDay: days, bySetPos: null }, times: first }
    }
    case 'MONTHLY':
    case 'YEARLY': {
      const oneDay =
        (byMonthDay?.length === 1 && byDay === null) || (byDay?.length === 1 && byDay[0].ordinal !== null && byMonthDay === null)
      const oneMonth = freq === 'MONTHLY' || byMonth?.length === 1 || (byMonth === null && byMonthDay === null)
      if (oneDay && oneMonth) return pickedTimes()
      // the set spans days and times, or the months of a year
      if (times.length > 1 || (freq === 'YEARLY' && byMonth !== null && byMonth.length > 1)) return null
      return { rule, times }
    }
    default: {
      const unreachable: never = freq
      return unreachable
    }
  }
}

/** The one date a yearly rule falls on, as a date is said (`3 March`), or null when it names more or other days. */
function yearlyDate(rule: CalendarRule, forms: RuleForms): string | null {
  const { freq, byMonth, byMonthDay, byDay, bySetPos } = rule
  if (freq !== 'YEARLY' || byMonth?.length !== 1 || byMonthDay?.length !== 1 || byMonthDay[0] < 1 || byDay !== null || bySetPos !== null) return null
  return forms.dayOfYear(byMonth[0], byMonthDay[0])
}

/**
 * A calendar rule in English words: `Weekdays at 08:30`, `Monthly on the 1st at 09:00`, `Every Monday at 10:00, 4 times`;
 * a day it leaves out is the start's (`FREQ=MONTHLY` started on 15 December is `Monthly on the 15th at 09:00`), a
 * BYSETPOS says what it picks (`FREQ=WEEKLY;BYDAY=MO,WE,FR;BYSETPOS=1` is `Every Monday`); its times, yearly date and
 * end written in `forms` (`Weekdays at 8:30 AM` in an en-US overlay). Null for a rule that has no plain words.
 */
export function describeCalendarRule(given: CalendarRule, start: RuleStart, forms: RuleForms = PLAIN_RULE_FORMS): string | null {
  // a nth weekday beside plain weekdays (`BYDAY=1MO,TU`: the first Monday, and every Tuesday) reads as if the ordinal
  // held for all of them: no plain words
  const mixed = given.byDay !== null && given.byDay.some((d) => d.ordinal === null) && given.byDay.some((d) => d.ordinal !== null)
  const yearWide = mixed ? null : asYearWide(withStartDays(given, start))
  const said = yearWide === null ? null : settled(yearWide)
  if (said === null) return null
  // every day that is the 1st is the 1st of every month; every other day that is the 1st has no plain words
  if (said.rule.freq === 'DAILY' && said.rule.byMonthDay !== null && said.rule.interval !== 1) return null
  const rule: CalendarRule = said.rule.freq === 'DAILY' && said.rule.byMonthDay !== null ? { ...said.rule, freq: 'MONTHLY' } : said.rule
  const date = yearlyDate(rule, forms)
  let text = date === null ? dayClause(rule) : `${every(rule.interval, 'year', 'yearly')} on ${date}`
  if (rule.byMonth !== null && date === null) text += ` in ${joinWords(rule.byMonth.map((m) => MONTH_NAMES[m - 1]))}`
  text += ` at ${joinWords(said.times.map((t) => forms.time(t.hour, t.minute)))}`
  switch (rule.end.kind) {
    case 'count':
      text += rule.end.count === 1 ? ', once' : `, ${rule.end.count} times`
      break
    case 'until-date':
      text += `, until ${forms.date(rule.end.year, rule.end.month, rule.end.day)}`
      break
    case 'until-instant':
      text += `, until ${forms.instant(rule.end.epochMs)}`
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

/**
 * An RRULE value of the SPEC 7.7 subset, in a series that starts on `starts` (`YYYY-MM-DD` in its zone), in English
 * words (see `describeCalendarRule`); null when it is not in the subset or `starts` is not a date.
 */
export function describeRrule(rrule: string, starts: string, forms: RuleForms = PLAIN_RULE_FORMS): string | null {
  const parsed = parseRrule(rrule)
  const start = parseRuleStart(starts)
  return parsed.ok && start !== null ? describeCalendarRule(parsed.rule, start, forms) : null
}
