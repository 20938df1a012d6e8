/** The frequencies of the RRULE subset (SPEC 7.7). */
export type RuleFrequency = 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'

/** RFC 5545 weekday codes, Monday first. */
export const WEEKDAYS = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU'] as const

/** One RFC 5545 weekday code. */
export type Weekday = (typeof WEEKDAYS)[number]

/** One BYDAY entry: a weekday, with an ordinal (`1MO`, `-1FR`) for MONTHLY and YEARLY rules. */
export type RuleDay = { weekday: Weekday; ordinal: number | null }

/** How a series ends: after COUNT occurrences, at the end of a local date, at a UTC instant, or never. */
export type RuleEnd =
  | { kind: 'count'; count: number }
  | { kind: 'until-date'; year: number; month: number; day: number }
  | { kind: 'until-instant'; epochMs: number }
  | { kind: 'never' }

/** A parsed RRULE of the SPEC 7.7 subset; times of day are defaulted (09:00) and sorted. */
export type CalendarRule = {
  freq: RuleFrequency
  interval: number
  byDay: RuleDay[] | null
  byMonthDay: number[] | null
  byMonth: number[] | null
  byHour: number[]
  byMinute: number[]
  bySetPos: number[] | null
  wkst: Weekday | null
  end: RuleEnd
}

/** A parsed rule, or the reason the text is not in the subset. */
export type ParsedRule = { ok: true; rule: CalendarRule } | { ok: false; reason: string }

const FREQUENCIES: readonly RuleFrequency[] = ['DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY']
const PARTS = ['FREQ', 'INTERVAL', 'BYDAY', 'BYMONTHDAY', 'BYMONTH', 'BYHOUR', 'BYMINUTE', 'BYSETPOS', 'COUNT', 'UNTIL', 'WKST'] as const
type PartName = (typeof PARTS)[number]
const INTEGER = /^[+-]?[0-9]{1,4}$/
const DAY = /^([+-]?[0-9]{1,2})?(MO|TU|WE|TH|FR|SA|SU)$/
const UNTIL_DATE = /^(\d{4})(\d{2})(\d{2})$/
const UNTIL_INSTANT = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/
const MAX_INTERVAL = 9999
const MAX_COUNT = 9999
/** The time of day a rule without BYHOUR/BYMINUTE fires at. */
export const DEFAULT_HOUR = 9

type Failure = { ok: false; reason: string }
const failure = (reason: string): Failure => ({ ok: false, reason })

function isPartName(name: string): name is PartName {
  return (PARTS as readonly string[]).includes(name)
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate()
}

function integerList(name: string, value: string, ok: (n: number) => boolean, range: string): number[] | Failure {
  const out: number[] = []
  for (const item of value.split(',')) {
    if (!INTEGER.test(item)) return failure(`${name} must be a comma-separated list of ${range}, got ${JSON.stringify(value)}`)
    const n = Number(item)
    if (!ok(n)) return failure(`${name} must be a comma-separated list of ${range}, got ${JSON.stringify(value)}`)
    if (!out.includes(n)) out.push(n)
  }
  return out
}

function positive(name: string, value: string, max: number): number | Failure {
  if (!/^[1-9][0-9]*$/.test(value) || Number(value) > max) return failure(`${name} must be an integer from 1 to ${max}, got ${JSON.stringify(value)}`)
  return Number(value)
}

function parseDays(value: string, freq: RuleFrequency): RuleDay[] | Failure {
  const days: RuleDay[] = []
  const maxOrdinal = freq === 'YEARLY' ? 53 : 5
  for (const item of value.split(',')) {
    const match = DAY.exec(item)
    if (match === null) return failure(`BYDAY must list weekdays MO..SU, optionally with an ordinal such as 1MO or -1FR, got ${JSON.stringify(value)}`)
    const weekday = match[2] as Weekday
    if (match[1] === undefined) {
      if (!days.some((d) => d.weekday === weekday && d.ordinal === null)) days.push({ weekday, ordinal: null })
      continue
    }
    if (freq !== 'MONTHLY' && freq !== 'YEARLY') return failure(`BYDAY ordinals such as ${JSON.stringify(item)} need FREQ=MONTHLY or FREQ=YEARLY`)
    const ordinal = Number(match[1])
    if (ordinal === 0 || Math.abs(ordinal) > maxOrdinal) {
      return failure(`a BYDAY ordinal with FREQ=${freq} must be from 1 to ${maxOrdinal} or -${maxOrdinal} to -1, got ${JSON.stringify(item)}`)
    }
    if (!days.some((d) => d.weekday === weekday && d.ordinal === ordinal)) days.push({ weekday, ordinal })
  }
  return days
}

function parseUntil(value: string): RuleEnd | Failure {
  const date = UNTIL_DATE.exec(value)
  const instant = date === null ? UNTIL_INSTANT.exec(value) : null
  const match = date ?? instant
  if (match === null) return failure(`UNTIL must be a date YYYYMMDD or a UTC date-time YYYYMMDDTHHMMSSZ, got ${JSON.stringify(value)}`)
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])]
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) {
    return failure(`UNTIL must name a real calendar date, got ${JSON.stringify(value)}`)
  }
  if (date !== null) return { kind: 'until-date', year, month, day }
  const [hour, minute, second] = [Number(match[4]), Number(match[5]), Number(match[6])]
  if (hour > 23 || minute > 59 || second > 59) return failure(`UNTIL must name a real time of day, got ${JSON.stringify(value)}`)
  const at = new Date(0)
  at.setUTCFullYear(year, month - 1, day)
  at.setUTCHours(hour, minute, second, 0)
  return { kind: 'until-instant', epochMs: at.getTime() }
}

const PERIOD_NAMES: Record<RuleFrequency, string> = { DAILY: 'day', WEEKLY: 'week', MONTHLY: 'month', YEARLY: 'year' }

/** The most of one weekday a month holds, so the reach of a BYDAY ordinal counted within a month. */
const MOST_WEEKDAYS_IN_MONTH = 5

function daysInOneMonth(byDay: RuleDay[] | null, byMonthDay: number[] | null): number {
  if (byMonthDay !== null) return Math.min(byMonthDay.length, 31)
  if (byDay !== null) return Math.min(byDay.reduce((sum, d) => sum + (d.ordinal === null ? MOST_WEEKDAYS_IN_MONTH : Math.abs(d.ordinal) <= MOST_WEEKDAYS_IN_MONTH ? 1 : 0), 0), 31)
  return 1
}

function mostDaysInPeriod(rule: CalendarRule): number {
  switch (rule.freq) {
    case 'DAILY':
      return 1
    case 'WEEKLY':
      return rule.byDay === null ? 1 : rule.byDay.length
    case 'MONTHLY':
      return daysInOneMonth(rule.byDay, rule.byMonthDay)
    case 'YEARLY': {
      if (rule.byMonth !== null) return Math.min(rule.byMonth.length * daysInOneMonth(rule.byDay, rule.byMonthDay), 366)
      if (rule.byMonthDay !== null) return Math.min(12 * rule.byMonthDay.length, 366)
      if (rule.byDay !== null) return Math.min(rule.byDay.reduce((sum, d) => sum + (d.ordinal === null ? 53 : 1), 0), 366)
      return 1
    }
    default: {
      const unreachable: never = rule.freq
      return unreachable
    }
  }
}

/** A rule's times of day as minutes after midnight, earliest first: every BYHOUR with every BYMINUTE (both sorted). */
export function ruleMinutesOfDay(rule: CalendarRule): number[] {
  return rule.byHour.flatMap((hour) => rule.byMinute.map((minute) => hour * 60 + minute))
}

/** The items of a set (in its order) at RFC 5545 set positions (1 the first, -1 the last), each once, in the set's order. */
export function atSetPositions<T>(items: readonly T[], positions: readonly number[]): T[] {
  return setPositionIndexes(items.length, positions).map((index) => items[index])
}

/** The indexes (from 0, ascending, each once) that RFC 5545 set positions pick in a set of `size` items. */
export function setPositionIndexes(size: number, positions: readonly number[]): number[] {
  const picked = new Set(positions.map((p) => (p > 0 ? p - 1 : size + p)))
  return [...picked].filter((index) => index >= 0 && index < size).sort((a, b) => a - b)
}

/** The most wall times one period of the rule (a day, week, month or year of FREQ) can hold before BYSETPOS selects. */
export function mostCandidatesPerPeriod(rule: CalendarRule): number {
  return mostDaysInPeriod(rule) * rule.byHour.length * rule.byMinute.length
}

/**
 * Parses an RRULE value (no `RRULE:` prefix) of the SPEC 7.7 subset: FREQ DAILY/WEEKLY/MONTHLY/YEARLY,
 * INTERVAL, BYDAY, BYMONTHDAY, BYMONTH, BYHOUR, BYMINUTE, BYSETPOS, COUNT or UNTIL, WKST.
 */
export function parseRrule(text: unknown): ParsedRule {
  if (typeof text !== 'string') return failure('rrule must be a string such as "FREQ=WEEKLY;BYDAY=MO,TU,WE,TH,FR;BYHOUR=8;BYMINUTE=30"')
  if (text.length === 0 || text.length > 500) return failure('rrule must be a non-empty RRULE value of at most 500 characters')
  if (/^RRULE:/i.test(text)) return failure('rrule takes the RRULE value without the "RRULE:" prefix')
  const parts = new Map<PartName, string>()
  for (const part of text.split(';')) {
    const eq = part.indexOf('=')
    const name = eq === -1 ? part : part.slice(0, eq)
    const value = eq === -1 ? '' : part.slice(eq + 1)
    if (!isPartName(name)) return failure(`rrule part ${JSON.stringify(name)} is not supported; use ${PARTS.join(', ')}`)
    if (parts.has(name)) return failure(`rrule names ${name} more than once`)
    if (value.length === 0) return failure(`rrule part ${name} needs a value`)
    parts.set(name, value)
  }
  const freqText = parts.get('FREQ')
  if (freqText === undefined) return failure('rrule needs FREQ')
  const freq = FREQUENCIES.find((f) => f === freqText)
  if (freq === undefined) return failure(`FREQ must be one of ${FREQUENCIES.join(', ')}, got ${JSON.stringify(freqText)}`)

  const read = <T>(name: PartName, parse: (value: string) => T | Failure): T | null | Failure => {
    const value = parts.get(name)
    return value === undefined ? null : parse(value)
  }
  const isFailure = (value: unknown): value is Failure =>
    typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false
  const interval = read('INTERVAL', (v) => positive('INTERVAL', v, MAX_INTERVAL))
  if (isFailure(interval)) return interval
  const byDay = read('BYDAY', (v) => parseDays(v, freq))
  if (isFailure(byDay)) return byDay
  const byMonthDay = read('BYMONTHDAY', (v) => integerList('BYMONTHDAY', v, (n) => n !== 0 && Math.abs(n) <= 31, 'days 1 to 31 or -31 to -1'))
  if (isFailure(byMonthDay)) return byMonthDay
  if (byMonthDay !== null && freq === 'WEEKLY') return failure('BYMONTHDAY cannot be used with FREQ=WEEKLY')
  if (byMonthDay !== null && byDay !== null && byDay.some((d) => d.ordinal !== null)) {
    return failure('BYDAY with an ordinal cannot be combined with BYMONTHDAY')
  }
  const byMonth = read('BYMONTH', (v) => integerList('BYMONTH', v, (n) => n >= 1 && n <= 12, 'months 1 to 12'))
  if (isFailure(byMonth)) return byMonth
  const byHour = read('BYHOUR', (v) => integerList('BYHOUR', v, (n) => n >= 0 && n <= 23, 'hours 0 to 23'))
  if (isFailure(byHour)) return byHour
  const byMinute = read('BYMINUTE', (v) => integerList('BYMINUTE', v, (n) => n >= 0 && n <= 59, 'minutes 0 to 59'))
  if (isFailure(byMinute)) return byMinute
  const bySetPos = read('BYSETPOS', (v) => integerList('BYSETPOS', v, (n) => n !== 0 && Math.abs(n) <= 366, 'positions 1 to 366 or -366 to -1'))
  if (isFailure(bySetPos)) return bySetPos
  if (bySetPos !== null && byDay === null && byMonthDay === null && byMonth === null && byHour === null && byMinute === null) {
    return failure('BYSETPOS needs another BY rule part to select from')
  }
  const wkstText = parts.get('WKST')
  const wkst = wkstText === undefined ? null : (WEEKDAYS.find((d) => d === wkstText) ?? null)
  if (wkstText !== undefined && wkst === null) return failure(`WKST must be one of ${WEEKDAYS.join(', ')}, got ${JSON.stringify(wkstText)}`)
  const countText = parts.get('COUNT')
  const untilText = parts.get('UNTIL')
  if (countText !== undefined && untilText !== undefined) return failure('rrule cannot have both COUNT and UNTIL')
  let end: RuleEnd = { kind: 'never' }
  if (countText !== undefined) {
    const count = positive('COUNT', countText, MAX_COUNT)
    if (isFailure(count)) return count
    end = { kind: 'count', count }
  } else if (untilText !== undefined) {
    const until = parseUntil(untilText)
    if (isFailure(until)) return until
    end = until
  }
  const rule: CalendarRule = {
    freq,
    interval: interval ?? 1,
    byDay,
    byMonthDay,
    byMonth,
    byHour: byHour === null ? [DEFAULT_HOUR] : [...byHour].sort((a, b) => a - b),
    byMinute: byMinute === null ? [0] : [...byMinute].sort((a, b) => a - b),
    bySetPos,
    wkst,
    end,
  }
  // with BYMONTH, a YEARLY ordinal counts within each month (RFC 5545 3.3.10), as in rrule-temporal; MONTHLY ordinals are refused past 5 above
  if (freq === 'YEARLY' && byMonth !== null && byDay !== null && byDay.every((d) => d.ordinal !== null && Math.abs(d.ordinal) > MOST_WEEKDAYS_IN_MONTH)) {
    return failure(
      `BYDAY=${parts.get('BYDAY')} can never select a day: with BYMONTH, a BYDAY ordinal counts within the month, and a month holds at most ${MOST_WEEKDAYS_IN_MONTH} of each weekday`,
    )
  }
  if (rule.bySetPos !== null) {
    const most = mostCandidatesPerPeriod(rule)
    if (rule.bySetPos.every((p) => Math.abs(p) > most)) {
      const times = most === 1 ? '1 candidate time' : `${most} candidate times`
      return failure(`BYSETPOS=${parts.get('BYSETPOS')} can never select an occurrence: each ${PERIOD_NAMES[freq]} of this rule holds at most ${times}`)
    }
  }
  return { ok: true, rule }
}
