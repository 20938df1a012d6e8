import { canonicalTimeZone, instantsForWallTime, MIN_EVERY_SECONDS, parseRrule, parseZonedTimestamp, utcOffsetMs, wallClockAt, wallFieldsAsUtc, WEEKDAYS, zonePlace, type Weekday } from '../../protocol/index.ts'
import { dateTimeFormat, wordLocale, formatClock, formatWallClock, formatWhen } from './display/index.ts'
import { trustedNow } from './trusted-clock.ts'
import type { ReminderFields } from '../data/queries.ts'
import type { ScheduleView } from '../../protocol/index.ts'

/**
 * The kinds of reminder the form makes; `rule` is a calendar rule the form has no fields for
 * (monthly, every other week, until a date…), which an edit keeps as it is.
 */
export type FormKind = 'at' | 'after' | 'every' | 'daily' | 'weekly' | 'rule'

/** Units the form counts spans in. */
export type SpanUnit = 'min' | 'h' | 'd'

/** What the reminder form holds. */
export type ReminderDraft = {
  prompt: string
  kind: FormKind
  date: string
  time: string
  amount: string
  unit: SpanUnit
  zone: string
  /** The days of a weekly reminder, Monday first. */
  days: readonly Weekday[]
  /** The rule of the calendar reminder being edited and the date its series starts, kept when the form cannot show it; else null. */
  rule: { rrule: string; starts: string } | null
}

const UNIT_SECONDS: Record<SpanUnit, number> = { min: 60, h: 3_600, d: 86_400 }

const pad = (n: number): string => String(n).padStart(2, '0')

/** `YYYY-MM-DD` and `HH:mm` of an instant on the wall clock of a zone. */
export function wallParts(instantMs: number, zone: string): { date: string; time: string } {
  const wall = wallClockAt(zone, instantMs)
  return { date: `${String(wall.year).padStart(4, '0')}-${pad(wall.month)}-${pad(wall.day)}`, time: `${pad(wall.hour)}:${pad(wall.minute)}` }
}

function span(seconds: number): { amount: string; unit: SpanUnit } {
  if (seconds % 86_400 === 0) return { amount: String(seconds / 86_400), unit: 'd' }
  if (seconds % 3_600 === 0) return { amount: String(seconds / 3_600), unit: 'h' }
  return { amount: String(Math.max(1, Math.round(seconds / 60))), unit: 'min' }
}

/** The weekday of a wall-clock date. */
function weekdayOf(date: string): Weekday {
  const [year, month, day] = date.split('-').map(Number)
  return WEEKDAYS[(new Date(Date.UTC(year, month - 1, day)).getUTCDay() + 6) % 7]
}

/** A fresh draft: an hour from now, in the zone given (the Session's, by default); weekly on that day. */
export function newDraft(zone: string, nowMs: number): ReminderDraft {
  const inAnHour = Math.ceil((nowMs + 3_600_000) / 300_000) * 300_000
  const wall = wallParts(inAnHour, zone)
  return { prompt: '', kind: 'at', ...wall, amount: '10', unit: 'min', zone, days: [weekdayOf(wall.date)], rule: null }
}

/** The form's fields for a calendar rule: every day or on some weekdays at one time, forever; null for any other rule. */
function formRule(rrule: string): { kind: 'daily' | 'weekly'; time: string; days: Weekday[] } | null {
  const parsed = parseRrule(rrule)
  if (!parsed.ok) return null
  const { freq, interval, byDay, byMonthDay, byMonth, byHour, byMinute, bySetPos, wkst, end } = parsed.rule
  const plain = interval === 1 && byMonthDay === null && byMonth === null && bySetPos === null && wkst === null && end.kind === 'never'
  if (!plain || byHour.length !== 1 || byMinute.length !== 1) return null
  const time = `${pad(byHour[0])}:${pad(byMinute[0])}`
  if (freq === 'DAILY' && byDay === null) return { kind: 'daily', time, days: [] }
  if (freq === 'WEEKLY' && byDay !== null && byDay.every((d) => d.ordinal === null)) {
    return { kind: 'weekly', time, days: WEEKDAYS.filter((w) => byDay.some((d) => d.weekday === w)) }
  }
  return null
}

/** The draft that edits an existing reminder, in its own zone. */
export function draftOf(view: ScheduleView, zone: string): ReminderDraft {
  const target = Date.parse(view.scheduledAt)
  const base = { ...newDraft(zone, trustedNow()), prompt: view.prompt, ...(Number.isFinite(target) ? wallParts(target, zone) : {}) }
  switch (view.kind) {
    case 'at':
      return { ...base, kind: 'at' }
    case 'after':
      return { ...base, kind: 'after', ...span(view.afterSeconds) }
    case 'every':
      return { ...base, kind: 'every', ...span(view.everySeconds) }
    case 'calendar': {
      const shown = formRule(view.rrule)
      if (shown === null) return { ...base, kind: 'rule', rule: { rrule: view.rrule, starts: view.starts } }
      return { ...base, kind: shown.kind, time: shown.time, ...(shown.kind === 'weekly' ? { days: shown.days } : {}) }
    }
    default: {
      const unknown: never = view
      return unknown
    }
  }
}

/** The longest span the form takes for "after a while" and "repeat every" (10 years): longer ones are typing slips. */
const MAX_SPAN_SECONDS = 3650 * 86_400

/** Why a draft cannot be sent yet, or null when it can. */
export function draftProblem(draft: ReminderDraft): string | null {
  if (draft.prompt.trim().length === 0) return 'Say what to remind you of.'
  if (draft.kind === 'at' || draft.kind === 'daily' || draft.kind === 'weekly' || draft.kind === 'rule') {
    if (canonicalTimeZone(draft.zone) === null) return 'Pick a time zone from the list.'
    if (draft.kind === 'rule') return draft.rule === null ? 'Pick when.' : null
    if (!/^\d{2}:\d{2}$/.test(draft.time)) return 'Pick a time.'
    if (draft.kind === 'at' && !/^\d{4}-\d{2}-\d{2}$/.test(draft.date)) return 'Pick a date.'
    if (draft.kind === 'weekly' && draft.days.length === 0) return 'Pick at least one day.'
    return null
  }
  const amount = Number(draft.amount)
  if (!Number.isSafeInteger(amount) || amount <= 0) return 'Give a whole number greater than zero.'
  if (draft.kind === 'every' && amount * UNIT_SECONDS[draft.unit] < MIN_EVERY_SECONDS) return `Repeat at most every ${MIN_EVERY_SECONDS / 60} minutes.`
  if (amount * UNIT_SECONDS[draft.unit] > MAX_SPAN_SECONDS) return draft.kind === 'after' ? 'Pick at most 10 years ahead (3,650 days).' : 'Repeat at least every 10 years (3,650 days).'
  return null
}

/** The wall fields of `YYYY-MM-DD` and `HH:mm`. */
function wallOf(date: string, time: string): { year: number; month: number; day: number; hour: number; minute: number; second: number } {
  const [year, month, day] = date.split('-').map(Number)
  const [hour, minute] = time.split(':').map(Number)
  return { year, month, day, hour, minute, second: 0 }
}

/**
 * The instant a local date and time name in `zone` (the earlier one when a clock change repeats the hour), or null
 * when a clock change skips it.
 */
export function localInstant(date: string, time: string, zone: string): number | null {
  return instantsForWallTime(wallOf(date, time), zone)[0] ?? null
}

/** Whether a draft is a one-off with a known zone and a whole date and time, so its time can be looked at in its zone. */
function wellFormedOneOff(draft: ReminderDraft): boolean {
  return draft.kind === 'at' && canonicalTimeZone(draft.zone) !== null && /^\d{4}-\d{2}-\d{2}$/.test(draft.date) && /^\d{2}:\d{2}$/.test(draft.time)
}

/** A wall date and time as this browser says them, whatever zone they are in: `2:30 AM on Sunday, March 14, 2027`. */
function wallWords(date: string, time: string, locale: string): string {
  const wall = wallOf(date, time)
  const day = dateTimeFormat(wordLocale(locale), 'UTC', 'weekday-date-year', { weekday: 'long', day: 'numeric', month: 'long', year: 'numeric' }).format(wallFieldsAsUtc(wall))
  return `${formatWallClock(wall, locale)} on ${day}`
}

function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}

/**
 * Why the date and time of a one-off draft cannot be used, in this browser's words: a clock change skips it in its
 * zone, or it has passed there. Null when it can (and for every other kind, whose times always come again).
 */
export function whenProblem(draft: ReminderDraft, locale: string, nowMs: number): string | null {
  if (!wellFormedOneOff(draft)) return null
  const place = zonePlace(draft.zone)
  const instant = localInstant(draft.date, draft.time, draft.zone)
  if (instant === null) return `${wallWords(draft.date, draft.time, locale)} does not exist in ${place}: the clocks skip that time. Pick another time.`
  if (instant <= nowMs) {
    return `${sentence(formatWhen(instant, draft.zone, locale, nowMs))} has already passed in ${place} (it is ${formatClock(nowMs, draft.zone, locale)} there now). Pick a later time.`
  }
  return null
}

/**
 * The time of the one-off reminder being edited when the draft still names it: the same zone, and its wall time
 * there to the minute (either of the two, when the clocks repeat it); null when the draft names another time.
 */
export function keptInstant(draft: ReminderDraft, view: ScheduleView): number | null {
  if (view.kind !== 'at' || !wellFormedOneOff(draft) || draft.zone !== view.timeZone) return null
  const target = Date.parse(view.scheduledAt)
  const minute = target - (((target % 60_000) + 60_000) % 60_000)
  return instantsForWallTime(wallOf(draft.date, draft.time), draft.zone).includes(minute) ? target : null
}

/**
 * Whether an edit leaves an `after` or `every` reminder's length as it was: then it sends none, so a reminder due in
 * 10 minutes stays due when it was (its length would count again from the save) and a repeating one keeps its series.
 */
export function keptSpan(draft: ReminderDraft, view: ScheduleView): boolean {
  const seconds = Number(draft.amount) * UNIT_SECONDS[draft.unit]
  if (draft.kind === 'after' && view.kind === 'after') return seconds === view.afterSeconds
  if (draft.kind === 'every' && view.kind === 'every') return seconds === view.everySeconds
  return false
}

/**
 * What the form says beside the length of an `after` reminder being edited: when it is due while the length stays
 * (the save keeps that time, passed or not), and that another counts from the save (`Due today 6:43 AM. Another
 * length counts from when you save.`); null for a new reminder and every other kind. `zone` is the one the reminder
 * is shown in.
 */
export function spanNote(draft: ReminderDraft, view: ScheduleView | null, zone: string, locale: string, nowMs: number): string | null {
  if (view === null || view.kind !== 'after' || draft.kind !== 'after') return null
  const due = Date.parse(view.scheduledAt)
  if (!keptSpan(draft, view) || !Number.isFinite(due)) return 'Its length counts from when you save.'
  return `Due ${formatWhen(due, zone, locale, nowMs)}. Another length counts from when you save.`
}

/**
 * What the form says of a one-off draft's time that a clock change repeats in its zone (the clocks go back): that it
 * comes twice and which of the two the reminder is for: the first (SPEC 7.3), or the second when the reminder being
 * edited is already there (`kept`, from keptInstant) and stays; null for a time that comes once, and for every other kind.
 */
export function whenNote(draft: ReminderDraft, locale: string, kept: number | null = null): string | null {
  if (!wellFormedOneOff(draft)) return null
  const instants = instantsForWallTime(wallOf(draft.date, draft.time), draft.zone)
  if (instants.length < 2) return null
  return twiceWords(sentence(wallWords(draft.date, draft.time, locale)), zonePlace(draft.zone), 'this reminder', kept !== null && kept >= instants[1])
}

/** That a wall time comes twice in a place and which of the two a reminder (`whose`) is for, as one sentence. */
function twiceWords(words: string, place: string, whose: string, second: boolean): string {
  return `${words} comes twice in ${place}, as the clocks go back: ${whose} is for ${second ? 'the second, after they do' : 'the first, before they do'}.`
}

const DAY_MS = 86_400_000

/** `YYYY-MM-DD` of a wall date read as UTC. */
function dateOf(wallMs: number): string {
  return new Date(wallMs).toISOString().slice(0, 10)
}

/**
 * What the form says of a daily or weekly draft whose time a clock change skips or repeats in its zone on a day the
 * reminder comes, within a year from `nowMs`: the next such day of each, in date order. A skipped time comes later
 * by the length of the gap that day (SPEC 7.7: 02:30 on a spring-forward night comes at 03:30); a repeated one is the
 * first. Null when the time comes once on every such day, and for every other kind.
 */
export function ruleNote(draft: ReminderDraft, locale: string, nowMs: number): string | null {
  if (draft.kind !== 'daily' && draft.kind !== 'weekly') return null
  if (canonicalTimeZone(draft.zone) === null || !/^\d{2}:\d{2}$/.test(draft.time)) return null
  const zone = draft.zone
  const place = zonePlace(zone)
  const comes = (date: string) => draft.kind === 'daily' || draft.days.includes(weekdayOf(date))
  const today = wallClockAt(zone, nowMs)
  // from yesterday's noon, so a change earlier today is seen
  const firstNoon = Date.UTC(today.year, today.month - 1, today.day, 12) - DAY_MS
  let skipped: { date: string; text: string } | null = null
  let repeated: { date: string; text: string } | null = null
  let before = utcOffsetMs(zone, firstNoon - utcOffsetMs(zone, firstNoon))
  // the offset at each local noon: where it changes, the clocks changed since the noon before
  for (let day = 1; day <= 367 && (skipped === null || repeated === null); day++) {
    const noon = firstNoon + day * DAY_MS
    const after = utcOffsetMs(zone, noon - before)
    if (after !== before) {
      for (const date of [dateOf(noon - DAY_MS), dateOf(noon)]) {
        if (!comes(date)) continue
        const wall = wallOf(date, draft.time)
        const instants = instantsForWallTime(wall, zone)
        const words = sentence(wallWords(date, draft.time, locale))
        if (instants.length === 0 && skipped === null) {
          const moved = wallFieldsAsUtc(wall) - before
          if (moved > nowMs) skipped = { date, text: `${words} does not exist in ${place}: the clocks skip it, so that day this reminder comes at ${formatClock(moved, zone, locale)}.` }
        } else if (instants.length > 1 && repeated === null && instants[0] > nowMs) {
          repeated = { date, text: twiceWords(words, place, 'that day this reminder', false) }
        }
      }
    }
    before = after
  }
  const notes = [skipped, repeated].filter((note) => note !== null).sort((a, b) => (a.date < b.date ? -1 : 1))
  return notes.length === 0 ? null : notes.map((note) => note.text).join(' ')
}

/**
 * What a refused save says: when the server refused the draft for its time (it passed, or a clock change skips it,
 * since the form checked; or it passed by the server's clock only), that in this browser's words; else the server's own message.
 */
export function saveFailure(code: string, message: string, draft: ReminderDraft, locale: string, nowMs: number): string {
  if (code !== 'not_future' && code !== 'invalid_rule') return message
  const when = whenProblem(draft, locale, nowMs)
  if (when !== null) return when
  if (code === 'not_future' && draft.kind === 'rule') return 'This series has no time left after now.'
  const instant = code === 'not_future' && draft.kind === 'at' ? localInstant(draft.date, draft.time, draft.zone) : null
  if (instant === null) return message
  // still ahead on this device's clock, passed on the server's
  return `${sentence(formatWhen(instant, draft.zone, locale, nowMs))} has already passed in ${zonePlace(draft.zone)} by the server's clock (this device's clock may be behind). Pick a later time.`
}

/**
 * The route body that makes a new reminder of a draft: a rule kept as it was set (the form has no fields for it, e.g.
 * what was typed into a reminder deleted meanwhile) goes with its start, whose day the rule's words name; one that
 * counts its occurrences starts afresh (from its old start, the ones already past would be counted).
 */
export function newReminderFields(draft: ReminderDraft): ReminderFields {
  if (draft.kind !== 'rule' || draft.rule === null) return draftFields(draft)
  const { rrule, starts } = draft.rule
  const parsed = parseRrule(rrule)
  const counted = parsed.ok && parsed.rule.end.kind === 'count'
  return { prompt: draft.prompt.trim(), rrule, time_zone: draft.zone, ...(counted ? {} : { starts }) }
}

/** The route body of a draft (SPEC 7.9: a local time always carries the zone picked on screen). */
export function draftFields(draft: ReminderDraft): ReminderFields {
  const prompt = draft.prompt.trim()
  switch (draft.kind) {
    case 'at':
      return { prompt, at: { date: draft.date, time: `${draft.time}:00`, time_zone: draft.zone } }
    case 'after':
      return { prompt, after_seconds: Number(draft.amount) * UNIT_SECONDS[draft.unit] }
    case 'every':
      return { prompt, every_seconds: Number(draft.amount) * UNIT_SECONDS[draft.unit] }
    case 'daily':
    case 'weekly': {
      const [hour, minute] = draft.time.split(':').map(Number)
      const days = draft.kind === 'weekly' ? `;BYDAY=${WEEKDAYS.filter((w) => draft.days.includes(w)).join(',')}` : ''
      return { prompt, rrule: `FREQ=${draft.kind === 'daily' ? 'DAILY' : 'WEEKLY'}${days};BYHOUR=${hour};BYMINUTE=${minute}`, time_zone: draft.zone }
    }
    case 'rule':
      // the reminder keeps its rule; a zone picked on screen moves it there
      return { prompt, time_zone: draft.zone }
    default: {
      const unreachable: never = draft.kind
      return unreachable
    }
  }
}

/**
 * The fields an edit sends: the draft's, without a time the reminder already has: a one-off whose date, time and
 * zone still name its instant (so changing only its prompt keeps it to the second, and the second of two when the
 * clocks repeat the hour), an `after` or `every` reminder's unchanged length (so it stays due when it was, and a
 * series keeps its times), or a calendar reminder's unchanged rule (so its series, start and catch-up stay as they are).
 */
export function editFields(draft: ReminderDraft, view: ScheduleView): ReminderFields {
  const fields = draftFields(draft)
  if (keptInstant(draft, view) !== null) {
    const { at: _same, ...rest } = fields
    return rest
  }
  if (keptSpan(draft, view)) {
    const { after_seconds: _after, every_seconds: _every, ...rest } = fields
    return rest
  }
  if (view.kind !== 'calendar' || fields.rrule !== view.rrule) return fields
  const { rrule: _same, ...rest } = fields
  return rest
}

/**
 * What makes a deleted reminder again (Undo): the same words and times, a local one in its zone (its instant when its
 * wall time would name another); an `every` one counts its interval from now again. Null when a one-off's time passed.
 */
export function restoreFields(view: ScheduleView, nowMs: number): ReminderFields | null {
  const prompt = view.prompt
  switch (view.kind) {
    case 'at':
    case 'after': {
      const at = Date.parse(view.scheduledAt)
      if (!(at > nowMs)) return null
      const local = view.kind === 'at' ? parseZonedTimestamp(view.scheduledAtLocal) : null
      if (local !== null && local.time.endsWith(':00') && localInstant(local.date, local.time.slice(0, 5), local.zone) === at) {
        return { prompt, at: { date: local.date, time: local.time, time_zone: local.zone } }
      }
      return { prompt, at: view.scheduledAt }
    }
    case 'every':
      return { prompt, every_seconds: view.everySeconds, ...(view.catchUp === undefined ? {} : { catch_up: view.catchUp }) }
    case 'calendar':
      return { prompt, rrule: view.rrule, time_zone: view.timeZone ?? 'UTC', starts: view.starts, catch_up: view.catchUp }
    default:
      return null
  }
}
