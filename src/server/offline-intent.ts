import type { ReadingFields } from '../protocol/index.ts'
import { canonicalTimeZone, parseZonedTimestamp, zonePlace } from '../protocol/index.ts'

/** What the offline model reads out of a person's text (SPEC 10). */
export type Intent =
  | { kind: 'list' }
  | { kind: 'delete'; id: string }
  /** One reminder to make; `also`, more made with it (one series per minute of the hour when one rule cannot hold every time said). */
  | { kind: 'create'; args: Record<string, unknown>; also?: Record<string, unknown>[] }
  /** A relayed reminder snoozed: by id, by its words ("snooze the oven reminder"), else the one relayed last. */
  | { kind: 'snooze'; id: string | null; seconds: number; words?: string }
  | { kind: 'change'; id: string; hour: number; minute: number }
  /** A reminder named by its words ("cancel the bins reminder", "move the oven reminder to 20:00"): found in the list first. */
  | { kind: 'delete-named'; words: string }
  | { kind: 'change-named'; words: string; hour: number; minute: number }
  /**
   * A reminder moved to another day and time, or set to repeat ("change schedule-2 to tomorrow at 10", "move the oven
   * reminder to every 10 minutes"): `to` is the `schedule_update` selector, read as a create reads it.
   */
  | { kind: 'change-to'; id: string; to: Record<string, unknown> }
  | { kind: 'change-named-to'; words: string; to: Record<string, unknown>; said: string }
  /**
   * A change asked for whose reminder or time cannot be read ("change schedule-2 to next week"): how to say it. `id` or
   * `words` name the reminder when they could be read; `target` is what was said for when ('' when nothing).
   */
  | { kind: 'change-unreadable'; id: string | null; words: string | null; target: string }
  /** "cancel that", "delete it": the reminder the conversation spoke of last. */
  | { kind: 'delete-latest' }
  /** A request for a reminder ("remind me next week to …") with no time it can read. */
  | { kind: 'no-time'; prompt: string }
  /**
   * A period said with chosen days ("every 2 hours on weekdays"): no one reminder repeats like that. `days` is how the
   * days were said, `example` the times of day it could be set at instead (09:00 to 17:00 at that period).
   */
  | { kind: 'period-on-days'; period: string; days: string; example: Clock[]; prompt: string }
  | { kind: 'none' }

const ZONE = /\b(?:in\s+)?(UTC|[A-Z][A-Za-z_]+\/[A-Za-z_]+(?:\/[A-Za-z_]+)?)\b/
const UNIT = '(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?)'
const COUNT = '(\\d+(?:\\.\\d+)?|an?|one|two|three|four|five|ten|fifteen|twenty|thirty|half an?)'
const WORD_NUMBERS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, ten: 10, fifteen: 15, twenty: 20, thirty: 30 }
const UNIT_SECONDS: Record<string, number> = { second: 1, sec: 1, minute: 60, min: 60, hour: 3600, hr: 3600, day: 86400 }
const WEEKDAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']
const WEEKDAY_CODES = ['MO', 'TU', 'WE', 'TH', 'FR', 'SA', 'SU']
const WEEKDAY = '(monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?'
/** A time of day: `9`, `9:30`, `9.30` (as written in Britain), each with am/pm or not. */
const CLOCK = '(\\d{1,2})(?:[:.](\\d{2}))?\\s*(am|pm|a\\.m\\.|p\\.m\\.)?'
const MONTH = '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\\.?'
const ORDINAL = '(\\d{1,2})(?:st|nd|rd|th)?'
/** "2 September", "the 2nd of Sept", "September 2nd", each with an optional year ("2 Sep 2027", "Sep 2, 2027"). */
const DAY_MONTH = new RegExp(`(?<!\\bat\\s+)\\b(?:on\\s+)?(?:the\\s+)?${ORDINAL}\\s+(?:of\\s+)?${MONTH}(?:,?\\s+(\\d{4}))?\\b`, 'i')
const MONTH_DAY = new RegExp(`\\b(?:on\\s+)?${MONTH}\\s+(?:the\\s+)?${ORDINAL}(?:,?\\s+(\\d{4}))?\\b`, 'i')
const MONTH_PREFIXES = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const LEAD_IN =
  /^(?:(?:hey|ok|okay|please|can you|could you|would you|kindly)[\s,]+)*(?:remind me|ping me|alert me|nudge me|notify me|(?:push|send) me (?:a |an )?(?:reminder|alert|notification|message)|set (?:up )?(?:a |an )?(?:reminder|alarm)(?: for me)?|create (?:a )?reminder|add (?:a )?reminder|schedule (?:a )?reminder)\b/i
const CONNECTOR = /^(?:(?:to|about|that|of|for)\b|[:,;–—-])\s*/i
const TRAILING_CONNECTOR = /\s+(?:to|about|for|at|on|in|and)$/i

function unitSeconds(unit: string): number {
  return UNIT_SECONDS[unit.toLowerCase().replace(/s$/, '')] ?? 0
}

function countValue(word: string): number {
  const lower = word.toLowerCase()
  if (lower.startsWith('half')) return 0.5
  return WORD_NUMBERS[lower] ?? Number(lower)
}

function pad(n: number): string {
  return String(n).padStart(2, '0')
}

type Clock = { hour: number; minute: number }

function clockOf(hourText: string, minuteText: string | undefined, meridiem: string | undefined, evening = false): Clock | null {
  let hour = Number(hourText)
  const minute = Number(minuteText ?? '0')
  if (hour > 23 || minute > 59) return null
  const m = meridiem?.toLowerCase().replace(/\./g, '')
  if (m === 'pm' && hour < 12) hour += 12
  if (m === 'am' && hour === 12) hour = 0
  if (evening && m === undefined && hour < 12) hour += 12
  return { hour, minute }
}

/** A time of day said as `noon`/`midday`/`midnight` (`word`), else as a clock. */
function clockOrWord(word: string | undefined, hourText: string, minuteText: string | undefined, meridiem: string | undefined): Clock | null {
  const named = word?.toLowerCase()
  if (named === 'midnight') return { hour: 0, minute: 0 }
  if (named === 'noon' || named === 'midday') return { hour: 12, minute: 0 }
  return clockOf(hourText, minuteText, meridiem)
}

/** The text with a matched phrase cut out (so the rest is the reminder's content). */
function cut(text: string, match: RegExpExecArray): string {
  return `${text.slice(0, match.index)} ${text.slice(match.index + match[0].length)}`
}

let places: Map<string, string> | null = null

/** The zone of a place a person names ("New York", "new_york", "Kolkata", "Calcutta"), from IANA's city names and today's names; null for none. */
export function placeZone(name: string): string | null {
  return placeZones().get(name.trim().toLowerCase().replace(/[\s_]+/g, ' ')) ?? null
}

/** The places people name zones by, lower-case ("new york", "london", "kolkata"): IANA's city names and today's names. */
function placeZones(): Map<string, string> {
  if (places !== null) return places
  const found = new Map<string, string>()
  for (const zone of Intl.supportedValuesOf('timeZone')) {
    for (const name of [zonePlace(zone), (zone.split('/').at(-1) ?? zone).replace(/_/g, ' ')]) {
      const key = name.toLowerCase()
      if (!found.has(key)) found.set(key, zone)
    }
  }
  places = found
  return found
}

/** "in New York" right after a time ("at 9 in New York", "9:30am in London", "noon in Tokyo"): up to three words that may name a place. */
const PLACE_AFTER_TIME = /(?<=\d(?:\s?(?:am|pm|a\.m\.|p\.m\.))?|\bnoon|\bmidnight)\s+in\s+(\p{L}[\p{L}'.-]*(?:\s+\p{L}[\p{L}'.-]*){0,2})/iu

/**
 * A place named for the time said just before it, as a match of its zone's IANA name and the words that named it
 * (the longest run of words that is a place); null when the words name no place ("at 9 in the morning").
 */
function placeAfterTime(text: string): RegExpExecArray | null {
  const match = PLACE_AFTER_TIME.exec(text)
  if (match === null) return null
  const words = match[1].split(/\s+/)
  for (let n = words.length; n > 0; n--) {
    const name = words.slice(0, n).join(' ')
    const zone = placeZone(name)
    if (zone === null) continue
    const said = match[0].slice(0, match[0].length - match[1].length) + name
    const found = [said, zone] as unknown as RegExpExecArray
    found.index = match.index
    found.input = text
    return found
  }
  return null
}

/** The prompt of a reminder asked for with no words of its own ("set a reminder for 5 minutes from now"). */
export const DEFAULT_PROMPT = 'Reminder'

/** The reminder's content once the time phrases are cut out: lead-ins, connectors and punctuation removed. */
export function promptOf(rest: string): string {
  let text = rest.replace(/\s+/g, ' ').trim()
  for (let i = 0; i < 3; i += 1) {
    text = text.replace(LEAD_IN, '').trim()
    text = text.replace(CONNECTOR, '').trim()
    text = text.replace(/^(?:me\s+)?(?:to|about)\s+/i, '').trim()
  }
  for (let i = 0; i < 3; i += 1) text = text.replace(/[\s.!?,;:]+$/, '').replace(TRAILING_CONNECTOR, '').trim()
  return text.length > 0 ? text : DEFAULT_PROMPT
}

type Now = { ms: number; zone: string }

function wallDate(zone: string, ms: number): { year: number; month: number; day: number; weekday: number; hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    weekday: 'short',
    hourCycle: 'h23',
  }).formatToParts(ms)
  const get = (type: string): string => parts.find((p) => p.type === type)?.value ?? '0'
  const weekday = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(get('weekday'))
  return { year: Number(get('year')), month: Number(get('month')), day: Number(get('day')), weekday, hour: Number(get('hour')), minute: Number(get('minute')) }
}

function addDays(y: number, m: number, d: number, days: number): string {
  const date = new Date(Date.UTC(y, m - 1, d + days))
  return `${String(date.getUTCFullYear()).padStart(4, '0')}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())}`
}

/** A date named by its month (`2 September`, `Sep 2, 2027`): its month, day and year (null when not said), or null when the day is not in that month. */
function monthDate(text: string): { month: number; day: number; year: number | null; match: RegExpExecArray } | null {
  for (const [pattern, dayAt, monthAt] of [
    [DAY_MONTH, 1, 2],
    [MONTH_DAY, 2, 1],
  ] as const) {
    const match = pattern.exec(text)
    if (match === null) continue
    const month = MONTH_PREFIXES.indexOf(match[monthAt].slice(0, 3).toLowerCase()) + 1
    const day = Number(match[dayAt])
    const year = match[3] === undefined ? null : Number(match[3])
    const length = new Date(Date.UTC(year ?? 2000, month, 0)).getUTCDate()
    if (day >= 1 && day <= length) return { month, day, year, match }
  }
  return null
}

function readingNow(reading: ReadingFields | null, fallbackNow: number): Now {
  const parsed = reading === null ? null : parseZonedTimestamp(reading.timestamp)
  const zone = reading !== null && reading.session !== 'unavailable' ? reading.session : (parsed?.zone ?? 'UTC')
  return { ms: parsed?.epochMs ?? fallbackNow, zone }
}

/** "every other week", "every 2 months": how many of the unit between occurrences. */
const INTERVAL = '(other|\\d+|two|three|four|five|six)'
const INTERVAL_WORDS: Record<string, number> = { other: 2, two: 2, three: 3, four: 4, five: 5, six: 6 }
/** "every month", "every 3 months", "each other month" (its interval, when said, in the first group). */
const EVERY_MONTHS = `(?:every|each)\\s+(?:${INTERVAL}\\s+months?|month)`
const PART_OF_DAY = '(?:\\s+(morning|afternoon|evening|night)s?)?'
/** When a part of the day said without a clock rings: 09:00, 15:00, 20:00 (as "tonight"). */
const PART_OF_DAY_HOURS: Record<string, number> = { morning: 9, afternoon: 15, evening: 20, night: 20 }
const WEEKDAY_LIST = `${WEEKDAY}((?:\\s*(?:,|and|&)\\s*${WEEKDAY})*)`

/** A part of the day after noon, in which a clock said without am/pm is in the afternoon or evening ("tonight at 8", "every evening at 7"). */
function afterNoon(part: string | null): boolean {
  return part === 'afternoon' || part === 'evening' || part === 'night'
}

function intervalOf(word: string): number {
  return INTERVAL_WORDS[word.toLowerCase()] ?? Number(word)
}

function weekdayCodes(text: string): string {
  const names = text.toLowerCase().match(/monday|tuesday|wednesday|thursday|friday|saturday|sunday/g) ?? []
  return names.map((n) => WEEKDAY_CODES[WEEKDAY_NAMES.indexOf(n)]).join(',')
}

/** A calendar rule's days, before its time: how often, on which days, and a part of the day said with them. */
type RuleDays = { freq: 'DAILY' | 'WEEKLY' | 'MONTHLY' | 'YEARLY'; interval: number; byDay: string | null; byMonthDay: number | null; byMonth: number | null; part: string | null; needsClock: boolean }

/** The days a calendar phrase names ("every weekday", "every other Friday", "on the 1st of every month", "every year on 3 March") and the text without them, or null. */
function ruleDays(text: string): { days: RuleDays; rest: string; said: string; after: number } | null {
  const plain = (freq: RuleDays['freq'], more: Partial<RuleDays> = {}): RuleDays => ({ freq, interval: 1, byDay: null, byMonthDay: null, byMonth: null, part: null, needsClock: false, ...more })
  // `after`: where in the rest what was said right after the days begins (`cut` leaves one space for them)
  const found = (match: RegExpExecArray, days: RuleDays, rest = cut(text, match)) => ({ days, rest, said: match[0].trim(), after: match.index + 1 })
  const yearly = new RegExp(`\\b(?:(?:every|each)\\s+year|yearly|annually|every\\s+${INTERVAL}\\s+years?)\\b`, 'i').exec(text)
  if (yearly !== null) {
    const rest = cut(text, yearly)
    const interval = yearly[1] === undefined ? 1 : intervalOf(yearly[1])
    const date = monthDate(rest)
    // without a date, on today's (as "every week" is on today's weekday)
    if (date === null) return { days: plain('YEARLY', { interval }), rest, said: yearly[0], after: yearly.index + 1 }
    if (date.year !== null) return null
    return { days: plain('YEARLY', { interval, byMonth: date.month, byMonthDay: date.day }), rest: cut(rest, date.match), said: yearly[0], after: date.match.index + 1 }
  }
  let match = new RegExp(`\\b(?:every|each)\\s+${INTERVAL}\\s+months?\\s+on\\s+the\\s+${ORDINAL}\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('MONTHLY', { interval: intervalOf(match[1]), byMonthDay: Number(match[2]) }))
  match = new RegExp(`\\b(?:on\\s+)?the\\s+${ORDINAL}\\s+(?:day\\s+)?of\\s+(?:every|each)\\s+${INTERVAL}\\s+months?\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('MONTHLY', { interval: intervalOf(match[2]), byMonthDay: Number(match[1]) }))
  match = new RegExp(`\\b(?:every|each)\\s+(?:${INTERVAL}\\s+weeks?|week)(?:\\s+on\\s+${WEEKDAY_LIST})?\\b`, 'i').exec(text)
  if (match !== null) {
    return found(match, plain('WEEKLY', { interval: match[1] === undefined ? 1 : intervalOf(match[1]), byDay: match[2] === undefined ? null : weekdayCodes(match[0].slice(match[0].toLowerCase().indexOf(' on ') + 4)) }))
  }
  match = new RegExp(`\\b(?:every|each)\\s+other\\s+${WEEKDAY_LIST}${PART_OF_DAY}\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('WEEKLY', { interval: 2, byDay: weekdayCodes(match[0]), part: match[4] ?? null }))
  // "every 2 days" is a period (every_seconds) unless a time of day is said with it; "every other day" is a series
  match = new RegExp(`\\b(?:every|each)\\s+(?:(other)\\s+day|${INTERVAL}\\s+days)\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('DAILY', { interval: intervalOf(match[1] ?? match[2]), needsClock: match[1] === undefined }))
  match = /\b(?:every|each)\s+(?:single\s+)?(day|morning|afternoon|evening|night)\b|\bdaily\b|\bnightly\b/i.exec(text)
  if (match !== null) {
    const word = (match[1] ?? match[0]).toLowerCase()
    return found(match, plain('DAILY', { part: word === 'day' || word === 'daily' ? null : word === 'nightly' ? 'night' : word }))
  }
  match = /\b(?:every|each|on)\s+weekdays?\b|\bweekdays\b/i.exec(text)
  if (match !== null) return found(match, plain('WEEKLY', { byDay: 'MO,TU,WE,TH,FR' }))
  // "weekends" alone only right before a time ("weekends at 10"): "plan the weekends" names none
  match = /\b(?:every|each|on)\s+weekends?\b|\bweekends(?=\s+(?:at\s+)?(?:\d|noon\b|midnight\b))/i.exec(text)
  if (match !== null) return found(match, plain('WEEKLY', { byDay: 'SA,SU' }))
  match = new RegExp(`\\b(?:(?:every|each)\\s+${WEEKDAY}|on\\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s\\b)((?:\\s*(?:,|and|&)\\s*${WEEKDAY})*)${PART_OF_DAY}`, 'i').exec(text)
  if (match !== null) return found(match, plain('WEEKLY', { byDay: weekdayCodes(match[0]), part: match[4] ?? null }))
  // "on the last day of every month", "every 3 months on the last day", "monthly on the last day": the month's last day
  match = new RegExp(`\\b(?:on\\s+)?the\\s+last\\s+(?:day\\s+)?of\\s+(?:${EVERY_MONTHS}|the\\s+month)\\b`, 'i').exec(text)
  match ??= new RegExp(`\\b(?:${EVERY_MONTHS}|monthly)\\s+on\\s+the\\s+last(?:\\s+day)?\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('MONTHLY', { interval: match[1] === undefined ? 1 : intervalOf(match[1]), byMonthDay: -1 }))
  match = /\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)?\s+(?:day\s+)?of\s+(?:every|each|the)\s+month\b/i.exec(text)
  match ??= /\b(?:every|each)\s+month\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\b/i.exec(text)
  match ??= /\bmonthly\s+on\s+the\s+(\d{1,2})(?:st|nd|rd|th)?\b/i.exec(text)
  if (match !== null) return found(match, plain('MONTHLY', { byMonthDay: Number(match[1]) }))
  // "every month", "every 3 months", "monthly" without a day: on today's day of the month
  match = new RegExp(`\\b(?:(?:every|each)\\s+(?:${INTERVAL}\\s+months?|month)|monthly)\\b`, 'i').exec(text)
  if (match !== null) return found(match, plain('MONTHLY', { interval: match[1] === undefined ? 1 : intervalOf(match[1]) }))
  return null
}

/** What a calendar phrase reads as: the rules of one or more series, or a period said with chosen days. */
type CalendarReading =
  | { kind: 'rules'; rrules: string[]; rest: string }
  | { kind: 'period'; period: string; days: string; example: Clock[]; rest: string }

/** A period of less than a day ("every 2 hours", "every 30 minutes", "every hour"). */
const PERIOD = /\b(?:every|each)\s+(?:(\d+|two|three|four|five|ten|fifteen|twenty|thirty)\s*)?(seconds?|secs?|minutes?|mins?|hours?|hrs?)\b/i
const CLOCK_OR_WORD = `(?:${CLOCK}|(noon|midnight))`
/** Where a time said ends: a space, the end, punctuation, or a colon before what it is for ("at 8:30: stand-up"). */
const CLOCK_END = '(?=\\s|$|[.,!?]|:(?!\\d))'
/** "at 9", "at 9 and 17", "at 8:00, 12:00 and 20:00". */
const CLOCK_LIST = new RegExp(`\\bat\\s+${CLOCK_OR_WORD}((?:\\s*(?:,|and|&)\\s*${CLOCK_OR_WORD})*)${CLOCK_END}`, 'i')
/** The same list said right after a rule's days without "at" ("every weekday 8:30 stand-up"), groups as in `CLOCK_LIST`. */
const BARE_CLOCK_LIST = new RegExp(`^\\s*${CLOCK_OR_WORD}((?:\\s*(?:,|and|&)\\s*${CLOCK_OR_WORD})*)${CLOCK_END}`, 'i')
const NEXT_CLOCK = new RegExp(`(?:,|and|&)\\s*${CLOCK_OR_WORD}`, 'gi')

/** The times of day a clock list names, in order, each once; null when one is not a time. */
function clockList(match: RegExpExecArray, evening: boolean): Clock[] | null {
  // groups 1–3 are the clock, 4 a word (noon, midnight), in the list's first time and in each one after it
  const read = (m: RegExpExecArray | RegExpMatchArray): Clock | null => (m[4] === undefined ? clockOf(m[1], m[2], m[3], evening) : clockOrWord(m[4], m[1], m[2], m[3]))
  const clocks = [read(match)]
  for (const more of match[5].matchAll(NEXT_CLOCK)) clocks.push(read(more))
  if (clocks.some((c) => c === null)) return null
  const seen = new Map<number, Clock>()
  for (const clock of clocks as Clock[]) seen.set(clock.hour * 60 + clock.minute, clock)
  return [...seen.entries()].sort(([a], [b]) => a - b).map(([, clock]) => clock)
}

/** BYHOUR/BYMINUTE parts holding exactly `clocks`: one pair when every hour has every minute, else one pair per minute. */
function timeParts(clocks: readonly Clock[]): string[] {
  const hours = [...new Set(clocks.map((c) => c.hour))]
  const minutes = [...new Set(clocks.map((c) => c.minute))].sort((a, b) => a - b)
  if (hours.length * minutes.length === clocks.length) return [`BYHOUR=${hours.join(',')};BYMINUTE=${minutes.join(',')}`]
  return minutes.map((minute) => `BYHOUR=${clocks.filter((c) => c.minute === minute).map((c) => c.hour).join(',')};BYMINUTE=${minute}`)
}

/** Times of day from 09:00 to 17:00 (two at least, within the day), `seconds` apart (an hour at least), to offer instead of a period on chosen days. */
function workingHours(seconds: number): Clock[] {
  const step = Math.max(1, Math.round(seconds / 3600))
  const clocks: Clock[] = []
  for (let hour = 9; hour < 24 && (hour <= 17 || clocks.length < 2); hour += step) clocks.push({ hour, minute: 0 })
  return clocks
}

/**
 * A calendar phrase as rules (SPEC 7.7) and the text without it. Said without its day, a series is on today's, in
 * `zone`: "every week" on today's weekday, "every month" on today's day of the month, "every year" on today's date.
 */
function calendarIntent(text: string, now: Now, zone: string): CalendarReading | null {
  const named = ruleDays(text)
  if (named === null) return null
  const today = wallDate(zone, now.ms)
  const days = { ...named.days }
  if (days.freq === 'WEEKLY' && days.byDay === null) days.byDay = WEEKDAY_CODES[today.weekday]
  if (days.freq === 'MONTHLY' && days.byMonthDay === null) days.byMonthDay = today.day
  if (days.freq === 'YEARLY' && days.byMonth === null) {
    days.byMonth = today.month
    days.byMonthDay = today.day
  }
  let rest = named.rest
  let clocks: Clock[] | null = null
  const atMatch = CLOCK_LIST.exec(rest)
  if (atMatch !== null) {
    clocks = clockList(atMatch, afterNoon(days.part))
    if (clocks !== null) rest = cut(rest, atMatch)
  }
  // without "at", only a time that can be nothing else (with minutes or am/pm, or noon), right after the days: "every
  // day 9:00 vitamins", never "every Monday 3 laps"
  const bare = clocks === null ? BARE_CLOCK_LIST.exec(rest.slice(named.after)) : null
  if (bare !== null && (bare[2] !== undefined || bare[3] !== undefined || bare[4] !== undefined)) {
    clocks = clockList(bare, afterNoon(days.part))
    if (clocks !== null) rest = `${rest.slice(0, named.after)} ${rest.slice(named.after + bare[0].length)}`
  }
  const period = PERIOD.exec(rest)
  if (period !== null) {
    const seconds = (period[1] === undefined ? 1 : countValue(period[1])) * unitSeconds(period[2])
    return { kind: 'period', period: period[0].toLowerCase(), days: named.said, example: workingHours(seconds), rest: cut(rest, period) }
  }
  if (clocks === null && days.needsClock) return null
  clocks ??= [{ hour: days.part === null ? 9 : PART_OF_DAY_HOURS[days.part], minute: 0 }]
  const parts = [`FREQ=${days.freq}`]
  if (days.interval > 1) parts.push(`INTERVAL=${days.interval}`)
  if (days.byMonth !== null) parts.push(`BYMONTH=${days.byMonth}`)
  if (days.byMonthDay !== null) parts.push(`BYMONTHDAY=${days.byMonthDay}`)
  if (days.byDay !== null) parts.push(`BYDAY=${days.byDay}`)
  return { kind: 'rules', rrules: timeParts(clocks).map((times) => `${parts.join(';')};${times}`), rest }
}

/** A further part of a span said in parts, right after the first ("… and 30 minutes", "…, 15 minutes"). */
const MORE_SPAN = new RegExp(`^(?:\\s*,\\s*|\\s+and\\s+)${COUNT}\\s*${UNIT}(?![\\p{L}])`, 'iu')

function relativeSeconds(text: string): { seconds: number; rest: string } | null {
  const patterns = [
    new RegExp(`\\b(?:in|for|after)\\s+${COUNT}\\s*${UNIT}(\\s+and\\s+a\\s+half)?(?:\\s+from\\s+now)?`, 'i'),
    new RegExp(`\\b(?:for\\s+)?${COUNT}\\s*${UNIT}(\\s+and\\s+a\\s+half)?\\s+from\\s+now\\b`, 'i'),
    /\bin\s+half\s+an?\s+(hour)()()/i,
  ]
  for (const pattern of patterns) {
    const match = pattern.exec(text)
    if (match === null) continue
    if (pattern.source.includes('half\\s+an?\\s+(hour)')) return { seconds: 1800, rest: cut(text, match) }
    const unit = unitSeconds(match[2])
    const base = countValue(match[1]) * unit
    let seconds = Math.round(base + (match[3] !== undefined && match[3] !== '' ? unit / 2 : 0))
    // "in 1 hour and 30 minutes", "in 2 hours, 15 minutes": each further part adds its span
    let end = match.index + match[0].length
    for (let part = MORE_SPAN.exec(text.slice(end)); part !== null; part = MORE_SPAN.exec(text.slice(end))) {
      seconds += Math.round(countValue(part[1]) * unitSeconds(part[2]))
      end += part[0].length
    }
    const now = /^\s+from\s+now\b/i.exec(text.slice(end))
    if (now !== null) end += now[0].length
    if (seconds > 0) return { seconds, rest: `${text.slice(0, match.index)} ${text.slice(end)}` }
  }
  return null
}

/** A span said without "in" or "for" ("snooze 5 minutes", "snooze 5 min"), read as "for" it. */
function bareSpan(text: string): { seconds: number; rest: string } | null {
  const span = new RegExp(`(?<![\\p{L}\\d.])${COUNT}\\s*${UNIT}(?![\\p{L}])`, 'iu').exec(text)
  return span === null ? null : relativeSeconds(`${text.slice(0, span.index)}for ${text.slice(span.index)}`)
}

/** A clock said after "for", or alone, that can only be a time of day: with am/pm ("for 6pm", "6:30 pm"), or after "for" with minutes ("for 18:30"). */
const FOR_CLOCK = /(?:\bfor\s+|\b)(\d{1,2})(?::(\d{2}))?\s*(am|pm|a\.m\.|p\.m\.)(?=\s|$|[,!?]|\.(?!\w))|\bfor\s+(\d{1,2}):(\d{2})()(?=\s|$|[.,!?])/i

/**
 * Times said that could not be read or set ("at 25:00", "for 6", "9:75pm", "25:00"): kept out of what to be reminded
 * of. A time of day that is one, said without a preposition, stays ("the 18:30 train").
 */
const TIME_LIKE = /\b(?:at|for|by|around)\s+\d{1,2}(?:[:.]\d{2})*(?:\s*(?:am|pm|a\.m\.|p\.m\.))?|\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b(\d{1,2}):(\d{2})\b/gi

/** A text without the times in it that `TIME_LIKE` names. */
function withoutTimes(text: string): string {
  return text.replace(TIME_LIKE, (said, hour: string | undefined, minute: string | undefined) =>
    hour !== undefined && minute !== undefined && Number(hour) <= 23 && Number(minute) <= 59 ? said : ' ',
  )
}

function absoluteAt(text: string, now: Now, explicitZone: string | null): { at: Record<string, unknown>; rest: string } | null {
  let rest = text
  let clock: Clock | null = null
  let dayOffset: number | null = null
  let weekday: number | null = null
  let date: string | null = null
  /** A part of the day said with the day ("tonight", "tomorrow afternoon"): a clock without am/pm is after noon. */
  let part: string | null = null
  const tonight = /\btonight\b/i.exec(rest)
  if (tonight !== null) {
    part = 'night'
    dayOffset = 0
    rest = cut(rest, tonight)
  }
  const tomorrow = /\btomorrow(?:\s+(morning|afternoon|evening|night))?\b/i.exec(rest)
  if (tomorrow !== null) {
    dayOffset = 1
    part = tomorrow[1]?.toLowerCase() ?? part
    rest = cut(rest, tomorrow)
  }
  const today = /\btoday\b|\bthis\s+(morning|evening|afternoon)\b/i.exec(rest)
  if (today !== null) {
    dayOffset = 0
    part = today[1]?.toLowerCase() ?? part
    rest = cut(rest, today)
  }
  const evening = afterNoon(part)
  const iso = /\bon\s+(\d{4}-\d{2}-\d{2})\b/i.exec(rest)
  if (iso !== null) {
    date = iso[1]
    rest = cut(rest, iso)
  }
  const named = date === null ? monthDate(rest) : null
  if (named !== null) rest = cut(rest, named.match)
  const day = new RegExp(`\\b(?:on\\s+|next\\s+|this\\s+|coming\\s+)*${WEEKDAY}\\b`, 'i').exec(rest)
  if (day !== null) {
    weekday = WEEKDAY_NAMES.indexOf(day[1].toLowerCase())
    rest = cut(rest, day)
  }
  const noon = /\b(?:at\s+)?(noon|midday|midnight)\b/i.exec(rest)
  if (noon !== null) {
    clock = clockOrWord(noon[1], '', undefined, undefined)
    rest = cut(rest, noon)
  } else {
    const at = new RegExp(`\\bat\\s+${CLOCK}${CLOCK_END}`, 'i').exec(rest) ?? FOR_CLOCK.exec(rest)
    if (at !== null) {
      clock = at[4] === undefined ? clockOf(at[1], at[2], at[3], evening) : clockOf(at[4], at[5], undefined, evening)
      rest = cut(rest, at)
    }
  }
  if (clock === null && part !== null) clock = { hour: PART_OF_DAY_HOURS[part], minute: 0 }
  if (clock === null) return null
  const zone = explicitZone ?? now.zone
  const wall = wallDate(zone, now.ms)
  let target: string
  if (date !== null) target = date
  else if (named !== null) {
    // without a year, the next time that date comes round (a date today whose time has passed is next year's)
    const minuteOfYear = (month: number, day: number, hour: number, minute: number) => (((month * 32 + day) * 24 + hour) * 60 + minute)
    const ahead = minuteOfYear(named.month, named.day, clock.hour, clock.minute) > minuteOfYear(wall.month, wall.day, wall.hour, wall.minute)
    const year = named.year ?? (ahead ? wall.year : wall.year + 1)
    target = `${String(year).padStart(4, '0')}-${pad(named.month)}-${pad(named.day)}`
  } else if (weekday !== null) {
    let ahead = (weekday - wall.weekday + 7) % 7
    const passed = clock.hour < wall.hour || (clock.hour === wall.hour && clock.minute <= wall.minute)
    if (ahead === 0 && passed) ahead = 7
    target = addDays(wall.year, wall.month, wall.day, ahead)
  } else if (dayOffset !== null) target = addDays(wall.year, wall.month, wall.day, dayOffset)
  else {
    const passed = clock.hour < wall.hour || (clock.hour === wall.hour && clock.minute <= wall.minute)
    target = addDays(wall.year, wall.month, wall.day, passed ? 1 : 0)
  }
  const at: Record<string, unknown> = { date: target, time: `${pad(clock.hour)}:${pad(clock.minute)}:00` }
  if (explicitZone !== null) at.time_zone = explicitZone
  return { at, rest }
}

/**
 * A request to see the reminders ("list reminders", "what reminders do I have?", "any reminders?"),
 * unless it asks for a new one ("remind me at 5 to show the reminders deck").
 */
function isListRequest(text: string, lower: string): boolean {
  if (LEAD_IN.test(text.trim())) return false
  return /\b(list|show|what|what's|which|any)\b.*\b(reminders?|schedules?)\b/.test(lower) || /^\s*(my\s+)?reminders\??\s*$/.test(lower)
}

const NAMED = '(?:the\\s+|my\\s+)?(?:reminders?\\s+(?:to|about|for|of)\\s+(.+?)|(.+?)\\s+reminders?)'
const POLITE = '^\\s*(?:(?:please|can you|could you|would you|oops|sorry|actually|no|wait|ok|okay)[\\s,]+)*'
const DELETE_NAMED = new RegExp(`${POLITE}(?:delete|remove|cancel|drop|stop)\\s+${NAMED}(?:\\s+please)?\\s*[.!?]*\\s*$`, 'i')
const SNOOZE_NAMED = new RegExp(`${POLITE}snooze\\s+${NAMED}(?:\\s+please)?\\s*[.!?]*\\s*$`, 'i')
/** Words that name no reminder ("cancel that reminder", "delete the reminders"). */
const VAGUE = /^(?:that|this|it|the|my|a|an|all|every|each|those|these|one|last)(?:\s+(?:that|this|it|the|my|a|an|all|every|each|those|these|one|last))*$/i

const DELETE_LATEST = new RegExp(`${POLITE}(?:cancel|delete|remove|drop|undo)\\s+(?:that|this|it)(?:\\s+(?:one|reminder))?(?:\\s+please)?\\s*[.!?]*\\s*$`, 'i')

const VAGUE_WHEN = /^(?:(?:next|this|some)\s+(?:week|month|year|weekend|time|day)|later(?:\s+on)?|soon|someday|sometime|one day|at some point)\b\s*/i

/** A reminder named by its words, for a delete or a change, or null. */
function namedIntent(text: string): Intent | null {
  if (DELETE_LATEST.test(text)) return { kind: 'delete-latest' }
  const del = DELETE_NAMED.exec(text)
  if (del !== null) {
    const words = (del[1] ?? del[2]).trim()
    const id = /^(schedule-\d+)$/i.exec(words)?.[1].toLowerCase()
    if (id !== undefined) return { kind: 'delete', id }
    return VAGUE.test(words) ? null : { kind: 'delete-named', words }
  }
  return null
}

/** Words said with a change that change nothing ("move schedule-1 to 8 instead, please"). */
const CHANGE_FILLER = /\b(?:please|instead|thanks|thank you)\b/gi
const BARE_CLOCK = new RegExp(`^(?:at\\s+)?${CLOCK_OR_WORD}$`, 'i')

/**
 * When a change said to move a reminder to ("10:30", "tomorrow at 10", "every 10 minutes", "Friday at 9 in London"):
 * a time of day alone, or the `schedule_update` selector a create would read from it; null when it cannot be read
 * or says more than when.
 */
function changeTarget(target: string, reading: ReadingFields | null, fallbackNow: number): { clock: Clock } | { to: Record<string, unknown> } | null {
  const said = saidTarget(target.replace(CHANGE_FILLER, ' '))
  if (said === '') return null
  const bare = BARE_CLOCK.exec(said)
  if (bare !== null) {
    const clock = bare[4] === undefined ? clockOf(bare[1], bare[2], bare[3]) : clockOrWord(bare[4], bare[1], bare[2], bare[3])
    return clock === null ? null : { clock }
  }
  const when = whenIn(/^\d/.test(said) ? `at ${said}` : said, reading, fallbackNow)
  if (when?.kind !== 'create' || when.also !== undefined || when.args.prompt !== DEFAULT_PROMPT) return null
  const { prompt: _prompt, ...to } = when.args
  return { to }
}

/** What was said for when, for the answer that it could not be read. */
function saidTarget(target: string): string {
  return target.replace(/\s+/g, ' ').replace(/[\s.!?,;]+$/, '').trim().replace(/^(?:to|until|till)\s+/i, '').trim()
}

const CHANGE_ID = /\b(?:change|move|reschedule|update|set|push|shift)\s+(?:(?:the|my)\s+)?(?:reminder\s+)?(schedule-\d+)(?:\s+reminder)?\b(.*)$/is
// "push me a reminder at 5" asks for a new one: push moves a reminder, never a person
const CHANGE_VERB = new RegExp(`${POLITE}(?:change|move|reschedule|push(?!\\s+me\\b)|shift)\\s+(.+?)\\s*$`, 'is')
const NAMED_WHOLE = new RegExp(`^${NAMED}$`, 'is')

/**
 * A reminder changed, by its id ("change schedule-2 to tomorrow at 10") or by its words ("move the oven reminder to
 * 20:00"), or a change whose reminder or time cannot be read; null when the text asks no change of a reminder.
 */
function changeIntent(text: string, reading: ReadingFields | null, fallbackNow: number): Intent | null {
  if (LEAD_IN.test(text.trim())) return null
  const byId = CHANGE_ID.exec(text)
  if (byId !== null) {
    const id = byId[1].toLowerCase()
    const read = changeTarget(byId[2], reading, fallbackNow)
    if (read === null) return { kind: 'change-unreadable', id, words: null, target: saidTarget(byId[2]) }
    return 'clock' in read ? { kind: 'change', id, ...read.clock } : { kind: 'change-to', id, to: read.to }
  }
  const verb = CHANGE_VERB.exec(text)
  if (verb === null) return null
  const body = verb[1]
  // where the reminder's words may end: before each "to" (the last first), or right after "reminder"
  const splits = [...body.matchAll(/\s+to\s+|(?<=\breminders?)\s+/gi)].sort((a, b) => (b.index ?? 0) - (a.index ?? 0))
  let unread: { words: string | null; target: string } | null = null
  for (const split of splits) {
    const named = NAMED_WHOLE.exec(body.slice(0, split.index))
    if (named === null) continue
    const words = (named[1] ?? named[2]).trim()
    const target = split[0].trim() === '' ? body.slice(split.index) : body.slice((split.index ?? 0) + split[0].length)
    if (VAGUE.test(words)) {
      unread ??= { words: null, target: saidTarget(target) }
      continue
    }
    const read = changeTarget(target, reading, fallbackNow)
    if (read !== null) return 'clock' in read ? { kind: 'change-named', words, ...read.clock } : { kind: 'change-named-to', words, to: read.to, said: saidTarget(target.replace(CHANGE_FILLER, ' ')) }
    if (unread === null || unread.words === null) unread = { words, target: saidTarget(target) }
  }
  // never a new reminder made of a change request ("move that reminder to tomorrow")
  if (unread === null && !/\breminders?\b/i.test(body)) return null
  return { kind: 'change-unreadable', id: null, words: unread?.words ?? null, target: unread?.target ?? '' }
}

const WAKE_ME = new RegExp(`${POLITE}wake\\s+me(?:\\s+up)?\\b(.*)$`, 'is')
/** A message that begins with when ("tomorrow at 9 …", "at 7 …", "in 10 minutes …", "on Friday at 10 …", "every …", "on the 1st of every month …"). */
const TIME_FIRST = new RegExp(
  `^\\s*(?:(?:tomorrow|today|tonight)(?:\\s+(?:morning|afternoon|evening|night))?\\s+at\\s+${CLOCK_OR_WORD}|tomorrow\\s+(?:morning|afternoon|evening|night)\\b|this\\s+(?:morning|afternoon|evening)\\s+at\\s+${CLOCK_OR_WORD}|at\\s+${CLOCK_OR_WORD}|in\\s+${COUNT}\\s*${UNIT}\\b|in\\s+half\\s+an\\s+hour\\b|(?:on\\s+|next\\s+)?${WEEKDAY}\\s+at\\s+${CLOCK_OR_WORD}|on\\s+the\\s+(?:${ORDINAL}|last)\\s+(?:day\\s+)?of\\s+(?:every|each)\\b|(?:every|each|daily)\\b|(?:on\\s+)?week(?:day|end)s\\b)`,
  'i',
)

/**
 * Where a calendar phrase said after what it is for may begin ("stand-up every weekday at 8:30", "gym on Mondays and
 * Thursdays at 18:00"): at each of its first words, after the whole run of spaces and punctuation before it (a split is
 * tried once a run, from where the run begins, so a run of 60,000 dashes costs one try, not one per dash).
 */
const RULE_LAST = /(?<=[^\s,;:–—-])[\s,;:–—-]+(?=(?:every|each|daily|nightly|weekdays|weekends|on\s+(?:weekdays|weekends|(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s|the\s+(?:\d{1,2}(?:st|nd|rd|th)?|last)\s+(?:day\s+)?of\s+(?:every|each)))\b)/gi
/** A time of day said at the end of what comes before a rule said last ("stand-up at 8:30 every weekday"), from where the spaces before it begin (tried once a run of spaces, not once a space). */
const AT_CLOCK_LAST = new RegExp(`(?<!\\s)\\s+at\\s+${CLOCK_OR_WORD}((?:\\s*(?:,|and|&)\\s*${CLOCK_OR_WORD})*)$`, 'i')
/** Words that make what comes before a rule said last a statement ("I run every day at 7", "the stand-up is every weekday at 9"). */
const SAID_OF_SOMEONE = /\b(?:i|i'm|im|i've|i'll|me|we|we're|we've|we'll|us|our|you|you're|your|he|she|they|it|it's|its|that|this|there|is|was|are|were|am|be|been|has|have|had|do|does|did|will|would|should|could|can|might)\b/i

/**
 * A calendar reminder said with what it is for first and when last, with a time of day ("stand-up every weekday at
 * 8:30", "stand-up at 8:30 every weekday"): read as if when came first, and only when all of when is read (nothing of
 * it is left in the reminder's words); null for anything else.
 */
function ruleSaidLast(text: string, reading: ReadingFields | null, fallbackNow: number): Intent | null {
  for (const split of text.matchAll(RULE_LAST)) {
    const what = text.slice(0, split.index)
    const when = text.slice(split.index + split[0].length).replace(/(?<![\s.!])[\s.!]+$/, '')
    const words = what.replace(AT_CLOCK_LAST, '')
    if ((words === what && !/\d|\bnoon\b|\bmidnight\b/i.test(when)) || SAID_OF_SOMEONE.test(what)) continue
    const read = whenIn(`${when} ${what}`, reading, fallbackNow)
    if (read?.kind === 'create' && typeof read.args.rrule === 'string' && read.args.prompt === promptOf(words) && read.args.prompt !== DEFAULT_PROMPT) return read
  }
  return null
}

/** Words after a time said first that make it a statement, not something to do ("tomorrow at 9 is fine", "every day I wake up at 7"). */
const STATEMENT = /^(?:i|i'm|im|i've|i'll|we|we're|we've|we'll|you|you're|he|she|they|it|it's|its|that|that's|this|there|is|was|are|were|works|suits|sounds|should|would|could|will|might)\b/i

const RUN_OF_SPACE = /\s{2,}/g

/** Reads a reminder intent out of a person's text, local times interpreted from the latest reading (SPEC 10). */
export function parseIntent(said: string, reading: ReadingFields | null, fallbackNow: number): Intent {
  // a run of spaces or line breaks reads as one space: the patterns below would try every split of a long run
  // ("snooze", 2,000 spaces and a word took 3 s, 60,000 hours), and no reminder's words hang on how they are spaced
  const text = said.replace(RUN_OF_SPACE, ' ')
  const lower = text.toLowerCase()
  if (isListRequest(text, lower)) return { kind: 'list' }
  const del = /\b(?:delete|remove|cancel|drop)\s+(?:reminder\s+)?(schedule-\d+)\b/i.exec(text)
  if (del) return { kind: 'delete', id: del[1].toLowerCase() }
  const change = changeIntent(text, reading, fallbackNow)
  if (change !== null) return change
  const named = namedIntent(text)
  if (named !== null) return named
  // "remind me in 10 minutes to snooze the alarm" asks for a reminder: snooze is the command only outside one
  if (/\bsnooze\b/i.test(text) && !LEAD_IN.test(text.trim())) {
    const id = /\b(schedule-\d+)\b/i.exec(text)?.[1].toLowerCase() ?? null
    const relative = relativeSeconds(text) ?? bareSpan(text)
    const named = id === null ? SNOOZE_NAMED.exec(relative === null ? text : relative.rest.trim()) : null
    const words = named === null ? null : (named[1] ?? named[2]).trim()
    const snooze = { kind: 'snooze', id, seconds: relative?.seconds ?? 600 } as const
    return words === null || VAGUE.test(words) ? snooze : { ...snooze, words }
  }
  if (!/\b(remind|reminder|reminders|schedule|alert|ping|nudge|notify|notification|alarm)\b/.test(lower)) {
    // "wake me up at 7": a reminder to wake up
    const wake = WAKE_ME.exec(text)
    if (wake !== null) return parseIntent(`remind me to wake up${wake[1]}`, reading, fallbackNow)
    // a question stays one
    if (/\?\s*$/.test(text)) return { kind: 'none' }
    // "stand-up every weekday at 8:30": what to be reminded of, then a calendar rule with its time
    if (!TIME_FIRST.test(text)) return ruleSaidLast(text, reading, fallbackNow) ?? { kind: 'none' }
    // "tomorrow at 9 call mum", "at 7 wake up": a time said first, then what to be reminded of
    const when = whenIn(text, reading, fallbackNow)
    const prompt = when === null ? DEFAULT_PROMPT : when.kind === 'create' ? when.args.prompt : when.prompt
    return when !== null && prompt !== DEFAULT_PROMPT && !STATEMENT.test(String(prompt)) ? when : { kind: 'none' }
  }
  const when = whenIn(text, reading, fallbackNow)
  if (when !== null) return when
  // "next week", "later", "some day": a when it cannot read, not part of what to be reminded of
  if (LEAD_IN.test(text.trim())) return { kind: 'no-time', prompt: promptOf(promptOf(withoutTimes(zoneCut(text).base)).replace(VAGUE_WHEN, '')) }
  return { kind: 'none' }
}

/** An explicit zone said in a text ("in Asia/Tokyo", "at 9 in London"), and the text without it. */
function zoneCut(text: string): { explicitZone: string | null; base: string } {
  const zoneMatch = ZONE.exec(text) ?? placeAfterTime(text)
  const explicitZone = zoneMatch === null ? null : canonicalTimeZone(zoneMatch[1])
  return { explicitZone, base: zoneMatch === null || explicitZone === null ? text : cut(text, zoneMatch) }
}

/** The reminder a text asks for by when it says (a rule, a period, a span, a local time), its prompt the words left; null when it says no when it can read. */
function whenIn(text: string, reading: ReadingFields | null, fallbackNow: number): Extract<Intent, { kind: 'create' | 'period-on-days' }> | null {
  const { explicitZone, base } = zoneCut(text)
  const now = readingNow(reading, fallbackNow)
  const calendar = calendarIntent(base, now, explicitZone ?? now.zone)
  if (calendar?.kind === 'period') return { kind: 'period-on-days', period: calendar.period, days: calendar.days, example: calendar.example, prompt: promptOf(calendar.rest) }
  if (calendar !== null) {
    const [first, ...more] = calendar.rrules.map((rrule) => ({ prompt: promptOf(calendar.rest), rrule, ...(explicitZone === null ? {} : { time_zone: explicitZone }) }))
    return more.length === 0 ? { kind: 'create', args: first } : { kind: 'create', args: first, also: more }
  }
  const every = new RegExp(`\\bevery\\s+(\\d+\\s*)?${UNIT}\\b`, 'i').exec(base)
  if (every !== null && !/\bevery\s+day\b/i.test(every[0])) {
    const seconds = (every[1] === undefined ? 1 : Number(every[1])) * unitSeconds(every[2])
    return { kind: 'create', args: { prompt: promptOf(cut(base, every)), every_seconds: seconds } }
  }
  const relative = relativeSeconds(base)
  if (relative !== null) return { kind: 'create', args: { prompt: promptOf(relative.rest), after_seconds: relative.seconds } }
  const absolute = absoluteAt(base, now, explicitZone)
  if (absolute !== null) return { kind: 'create', args: { prompt: promptOf(absolute.rest), at: absolute.at } }
  return null
}
