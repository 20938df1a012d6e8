import { parseRrule, type CalendarRule, canonicalTimeZone, MIN_EVERY_SECONDS } from '../protocol/index.ts'
import type { CatchUpPolicy, ScheduleRecord } from '../protocol/index.ts'
import { checkTarget, localToInstant, parseLocalDate, parseLocalTime, parseRfc3339, toScheduledAt, wallClockAt, type LocalDate, type LocalTime } from './absolute-time.ts'
import { closeAtClockChanges, continuesPastLastInstant, monthDaysCanOccur, occurrencesAfter, type CalendarSpec } from './calendar.ts'
import { CATCH_UP_POLICIES } from './changes.ts'
import { describeValue, fail, frequencyTooHigh, invalidPrompt, invalidRule, parsePrompt, invalidSelector, invalidTimeZone, noFutureOccurrence, ok, ruleTooFrequent, timeOutOfRange, type ScheduleResult } from './errors.ts'
import type { ImplicitZoneResult } from './implicit-zone.ts'
import { isPlainObject } from './plain-object.ts'
import { firstEveryTarget } from './recurrence.ts'
import { argIssues, createArgsSchema, deleteArgsSchema, listArgsSchema, updateArgsSchema } from './tool-args.ts'

/** A local `at`: wall date and time with an explicit canonical zone, or none (implicit zone). */
export type LocalAt = { date: LocalDate; time: LocalTime; timeZone: string | null }

/** `schedule_create` arguments, validated and normalised but not yet resolved against now. */
export type CreateRequest =
  | { kind: 'after'; prompt: string; afterSeconds: number }
  | { kind: 'at-instant'; prompt: string; at: number }
  | { kind: 'at-local'; prompt: string; at: LocalAt }
  | { kind: 'every'; prompt: string; everySeconds: number; catchUp: CatchUpPolicy }
  | { kind: 'calendar'; prompt: string; calendar: CalendarRequest }

/** A calendar selector: the rule, its zone (null: implicit), the start date (null: today in the zone) and catch-up. */
export type CalendarRequest = { rrule: string; rule: CalendarRule; timeZone: string | null; starts: LocalDate | null; catchUp: CatchUpPolicy }

/** What `createRecord` needs beyond the arguments; `implicitZone` is called only for a zoneless local `at` or rrule. */
export type CreateContext = {
  now: number
  nextId: string
  implicitZone: (subject: 'at' | 'rrule') => ImplicitZoneResult
}

const SELECTOR_KEYS = ['after_seconds', 'at', 'every_seconds', 'rrule'] as const
type SelectorKey = (typeof SELECTOR_KEYS)[number]
const LOCAL_AT_KEYS = ['date', 'time', 'time_zone'] as const
const AT_FORMS =
  'an RFC 3339 timestamp such as "2026-07-15T09:30:00Z" or "2026-07-15T09:30:00+08:00", or an object {"date": "YYYY-MM-DD", "time": "HH:mm:ss", "time_zone"?: IANA zone}'

function unknownKeys(value: Record<string, unknown>, allowed: readonly string[]): string[] {
  return Object.keys(value).filter((key) => !allowed.includes(key))
}

function quoteList(keys: readonly string[]): string {
  return keys.map((key) => JSON.stringify(key)).join(', ')
}

function positiveSafeInteger(field: string, value: unknown): ScheduleResult<number> {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return ok(value)
  return fail(invalidRule(`${field} must be a positive safe integer, got ${describeValue(value)}`))
}

function parseAt(value: unknown): ScheduleResult<{ kind: 'at-instant'; at: number } | { kind: 'at-local'; at: LocalAt }> {
  if (typeof value === 'string') {
    const ms = parseRfc3339(value)
    if (ms === null) return fail(invalidRule(`at must be ${AT_FORMS}, got ${describeValue(value)}`))
    return ok({ kind: 'at-instant', at: ms })
  }
  if (!isPlainObject(value)) return fail(invalidRule(`at must be ${AT_FORMS}, got ${describeValue(value)}`))
  const extra = unknownKeys(value, LOCAL_AT_KEYS)
  if (extra.length > 0) {
    return fail(invalidSelector(`at does not accept ${quoteList(extra)}; a local at takes date, time and optionally time_zone`))
  }
  const date = parseLocalDate(value.date)
  if (date === null) {
    return fail(invalidRule(`at.date must be a real calendar date in YYYY-MM-DD form, got ${describeValue(value.date)}`))
  }
  const time = parseLocalTime(value.time)
  if (time === null) {
    return fail(
      invalidRule(`at.time must be a real time of day in HH:mm:ss or HH:mm:ss.SSS form, got ${describeValue(value.time)}`),
    )
  }
  if (!Object.hasOwn(value, 'time_zone')) return ok({ kind: 'at-local', at: { date, time, timeZone: null } })
  const timeZone = canonicalTimeZone(value.time_zone)
  if (timeZone === null) return fail(invalidTimeZone('at.time_zone', value.time_zone))
  return ok({ kind: 'at-local', at: { date, time, timeZone } })
}

const OPTION_KEYS = ['time_zone', 'starts', 'catch_up'] as const
/** How many upcoming occurrences a new calendar rule is checked over for the 300-second spacing (and every clock change of its zone that its search for occurrences reaches). */
const SPACING_SAMPLE = 400
const MIN_SPACING_MS = 300_000

function selectorList(): string {
  return SELECTOR_KEYS.join(', ')
}

function parseCatchUp(value: unknown): ScheduleResult<CatchUpPolicy> {
  if (typeof value === 'string' && (CATCH_UP_POLICIES as readonly string[]).includes(value)) return ok(value as CatchUpPolicy)
  return fail(invalidRule(`catch_up must be "latest", "all" or "skip", got ${describeValue(value)}`))
}

function parseStarts(value: unknown): ScheduleResult<LocalDate> {
  const date = parseLocalDate(value)
  return date === null ? fail(invalidRule(`starts must be a real calendar date in YYYY-MM-DD form, got ${describeValue(value)}`)) : ok(date)
}

function parseZone(field: string, value: unknown): ScheduleResult<string> {
  const zone = canonicalTimeZone(value)
  return zone === null ? fail(invalidTimeZone(field, value)) : ok(zone)
}

type Options = { timeZone: string | null; starts: LocalDate | null; catchUp: CatchUpPolicy | null }

function parseOptions(args: Record<string, unknown>, selector: SelectorKey | null): ScheduleResult<Options> {
  const given = OPTION_KEYS.filter((key) => Object.hasOwn(args, key))
  for (const key of given) {
    const allowed = key === 'catch_up' ? selector === 'rrule' || selector === 'every_seconds' : selector === 'rrule'
    if (!allowed) {
      const rule =
        key === 'catch_up'
          ? 'catch_up applies only to every_seconds and rrule'
          : key === 'time_zone'
            ? 'time_zone applies only to rrule; a local at takes at.time_zone'
            : 'starts applies only to rrule'
      return fail(invalidSelector(rule))
    }
  }
  const options: Options = { timeZone: null, starts: null, catchUp: null }
  if (Object.hasOwn(args, 'time_zone')) {
    const zone = parseZone('time_zone', args.time_zone)
    if (!zone.ok) return zone
    options.timeZone = zone.value
  }
  if (Object.hasOwn(args, 'starts')) {
    const startsOn = parseStarts(args.starts)
    if (!startsOn.ok) return startsOn
    options.starts = startsOn.value
  }
  if (Object.hasOwn(args, 'catch_up')) {
    const catchUp = parseCatchUp(args.catch_up)
    if (!catchUp.ok) return catchUp
    options.catchUp = catchUp.value
  }
  return ok(options)
}

function parseSelector(key: SelectorKey, args: Record<string, unknown>, prompt: string, options: Options): ScheduleResult<CreateRequest> {
  switch (key) {
    case 'after_seconds': {
      const seconds = positiveSafeInteger('after_seconds', args.after_seconds)
      return seconds.ok ? ok({ kind: 'after', prompt, afterSeconds: seconds.value }) : seconds
    }
    case 'every_seconds': {
      const seconds = positiveSafeInteger('every_seconds', args.every_seconds)
      if (!seconds.ok) return seconds
      if (seconds.value < MIN_EVERY_SECONDS) return fail(frequencyTooHigh(seconds.value))
      return ok({ kind: 'every', prompt, everySeconds: seconds.value, catchUp: options.catchUp ?? 'latest' })
    }
    case 'at': {
      const at = parseAt(args.at)
      return at.ok ? ok({ ...at.value, prompt }) : at
    }
    case 'rrule': {
      const rule = parseRrule(args.rrule)
      if (!rule.ok) return fail(invalidRule(`rrule is not valid: ${rule.reason}`))
      const calendar: CalendarRequest = {
        rrule: args.rrule as string,
        rule: rule.rule,
        timeZone: options.timeZone,
        starts: options.starts,
        catchUp: options.catchUp ?? 'latest',
      }
      return ok({ kind: 'calendar', prompt, calendar })
    }
    default: {
      const unreachable: never = key
      return unreachable
    }
  }
}

/**
 * Validates and normalises `schedule_create` arguments. Checks run in this order: arguments are a
 * JSON object, no unknown keys, prompt, exactly one selector, the selector's options, then the
 * selector's value. The prompt is stored trimmed.
 */
export function parseCreateArgs(args: unknown): ScheduleResult<CreateRequest> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_create arguments must be a JSON object'))
  const issues = argIssues(createArgsSchema, args)
  if (issues.unknownKeys.length > 0) {
    return fail(
      invalidSelector(
        `schedule_create does not accept ${quoteList(issues.unknownKeys)}; it takes prompt, exactly one of ${selectorList()}, and for a recurring reminder time_zone, starts, catch_up`,
      ),
    )
  }
  if (issues.fields.has('prompt')) return fail(invalidPrompt())
  const parsedPrompt = parsePrompt(args.prompt)
  if (!parsedPrompt.ok) return parsedPrompt
  const prompt = parsedPrompt.value
  const selectors = SELECTOR_KEYS.filter((key) => Object.hasOwn(args, key))
  if (selectors.length !== 1) {
    const given = selectors.length === 0 ? 'none' : selectors.join(', ')
    return fail(invalidSelector(`exactly one of ${selectorList()} is required, got ${given}`))
  }
  const options = parseOptions(args, selectors[0])
  if (!options.ok) return options
  const request = parseSelector(selectors[0], args, prompt, options.value)
  if (request.ok && [...issues.fields].some((field) => field !== 'prompt')) return fail(invalidRule('the arguments do not match the schedule_create schema'))
  return request
}

function todayIn(timeZone: string, now: number): LocalDate {
  const wall = wallClockAt(timeZone, now)
  return { year: wall.year, month: wall.month, day: wall.day }
}

function formatDate(date: LocalDate): string {
  return `${String(date.year).padStart(4, '0')}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`
}

function resolveCalendar(request: CalendarRequest, prompt: string, context: CreateContext): ScheduleResult<ScheduleRecord> {
  const { now, nextId: id } = context
  let timeZone = request.timeZone
  if (timeZone === null) {
    const implicit = context.implicitZone('rrule')
    if (!implicit.ok) return fail(implicit.error)
    timeZone = implicit.timeZone
  }
  const starts = request.starts ?? todayIn(timeZone, now)
  if (!monthDaysCanOccur(request.rule)) return fail(noFutureOccurrence(toScheduledAt(now)))
  const spec: CalendarSpec = { rrule: request.rrule, rule: request.rule, timeZone, starts }
  const sample = occurrencesAfter(spec, now, SPACING_SAMPLE)
  if (sample.length === 0) return fail(continuesPastLastInstant(spec, now) ? timeOutOfRange() : noFutureOccurrence(toScheduledAt(now)))
  for (let i = 1; i < sample.length; i += 1) {
    if (sample[i].instant - sample[i - 1].instant < MIN_SPACING_MS) {
      return fail(ruleTooFrequent(toScheduledAt(sample[i - 1].instant), toScheduledAt(sample[i].instant)))
    }
  }
  const close = closeAtClockChanges(spec, sample[0].instant - 1, MIN_SPACING_MS)
  if (close !== null) return fail(ruleTooFrequent(toScheduledAt(close[0].instant), toScheduledAt(close[1].instant)))
  const scheduledAt = checkTarget(sample[0].instant, now)
  if (!scheduledAt.ok) return scheduledAt
  return ok({
    id,
    kind: 'calendar',
    prompt,
    rrule: request.rrule,
    timeZone,
    starts: formatDate(starts),
    catchUp: request.catchUp,
    scheduledAt: scheduledAt.value,
  })
}

/** Resolves a validated request against now into a record with the given id. */
export function resolveCreateRequest(request: CreateRequest, context: CreateContext): ScheduleResult<ScheduleRecord> {
  const { now, nextId: id } = context
  switch (request.kind) {
    case 'after': {
      const scheduledAt = checkTarget(now + request.afterSeconds * 1000, now)
      if (!scheduledAt.ok) return scheduledAt
      return ok({ id, kind: 'after', prompt: request.prompt, afterSeconds: request.afterSeconds, scheduledAt: scheduledAt.value })
    }
    case 'every': {
      const scheduledAt = firstEveryTarget(now, request.everySeconds)
      if (!scheduledAt.ok) return scheduledAt
      return ok({
        id,
        kind: 'every',
        prompt: request.prompt,
        everySeconds: request.everySeconds,
        scheduledAt: scheduledAt.value,
        catchUp: request.catchUp,
      })
    }
    case 'at-instant': {
      const scheduledAt = checkTarget(request.at, now)
      return scheduledAt.ok ? ok({ id, kind: 'at', prompt: request.prompt, scheduledAt: scheduledAt.value }) : scheduledAt
    }
    case 'at-local': {
      let timeZone = request.at.timeZone
      if (timeZone === null) {
        const implicit = context.implicitZone('at')
        if (!implicit.ok) return fail(implicit.error)
        timeZone = implicit.timeZone
      }
      const instant = localToInstant(request.at.date, request.at.time, timeZone)
      if (!instant.ok) return instant
      const scheduledAt = checkTarget(instant.value, now)
      return scheduledAt.ok ? ok({ id, kind: 'at', prompt: request.prompt, scheduledAt: scheduledAt.value, timeZone }) : scheduledAt
    }
    case 'calendar':
      return resolveCalendar(request.calendar, request.prompt, context)
    default: {
      const unreachable: never = request
      return unreachable
    }
  }
}

/** Parses `schedule_create` arguments and resolves them into a record (SPEC 7.1–7.4, 7.6, 7.7). */
export function createRecord(args: unknown, context: CreateContext): ScheduleResult<ScheduleRecord> {
  const request = parseCreateArgs(args)
  return request.ok ? resolveCreateRequest(request.value, context) : request
}

/** `schedule_update` arguments: the id and the fields to change, still raw (they are re-validated as on create). */
export type UpdateArgs = { id: string; fields: Record<string, unknown> }

/** Validates the shape of `schedule_update` arguments: a JSON object, known keys, a string id, at most one selector. */
export function parseUpdateArgs(args: unknown): ScheduleResult<UpdateArgs> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_update arguments must be a JSON object'))
  const issues = argIssues(updateArgsSchema, args)
  if (issues.unknownKeys.length > 0) {
    return fail(
      invalidSelector(
        `schedule_update does not accept ${quoteList(issues.unknownKeys)}; it takes id, and optionally prompt, at most one of ${selectorList()}, time_zone, starts, catch_up`,
      ),
    )
  }
  if (typeof args.id !== 'string') return fail(invalidSelector(`schedule_update needs id as a string, got ${describeValue(args.id)}`))
  const { id, ...fields } = args
  if (Object.keys(fields).length === 0) return fail(invalidSelector('schedule_update needs at least one field to change'))
  const selectors = SELECTOR_KEYS.filter((key) => Object.hasOwn(fields, key))
  if (selectors.length > 1) return fail(invalidSelector(`at most one of ${selectorList()} may be changed, got ${selectors.join(', ')}`))
  return ok({ id, fields })
}

function selectorArgsOf(record: ScheduleRecord): Record<string, unknown> {
  switch (record.kind) {
    case 'after':
      return { after_seconds: record.afterSeconds }
    case 'at':
      return { at: record.scheduledAt }
    case 'every':
      return { every_seconds: record.everySeconds, ...(record.catchUp === undefined ? {} : { catch_up: record.catchUp }) }
    case 'calendar':
      return { rrule: record.rrule, time_zone: record.timeZone, starts: record.starts, catch_up: record.catchUp }
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}

function rezoneAt(record: Extract<ScheduleRecord, { kind: 'at' }>, zoneValue: unknown, now: number): ScheduleResult<ScheduleRecord> {
  if (record.timeZone === undefined) return fail(invalidSelector('time_zone applies only to rrule and to an at made from a local date and time'))
  const zone = parseZone('time_zone', zoneValue)
  if (!zone.ok) return zone
  const wall = wallClockAt(record.timeZone, Date.parse(record.scheduledAt))
  const instant = localToInstant(wall, wall, zone.value)
  if (!instant.ok) return instant
  const scheduledAt = checkTarget(instant.value, now)
  return scheduledAt.ok ? ok({ ...record, scheduledAt: scheduledAt.value, timeZone: zone.value }) : scheduledAt
}

/**
 * The record an update makes of an active one (SPEC 7.8). A new selector is validated exactly as on
 * create (the implicit-zone rule included) and keeps the catch-up policy unless given (a new rule of a calendar
 * reminder also keeps its zone, and a start on a later day than today); without one, a calendar rule is re-validated with the changed zone, start or
 * policy, a local `at` is read in the new zone at the same wall time, and a prompt alone leaves the target as it is.
 */
export function resolveUpdate(record: ScheduleRecord, fields: Record<string, unknown>, context: Omit<CreateContext, 'nextId'>): ScheduleResult<ScheduleRecord> {
  const withId = { ...context, nextId: record.id }
  let prompt = record.prompt
  if (Object.hasOwn(fields, 'prompt')) {
    const parsedPrompt = parsePrompt(fields.prompt)
    if (!parsedPrompt.ok) return parsedPrompt
    prompt = parsedPrompt.value
  }
  const selector = SELECTOR_KEYS.find((key) => Object.hasOwn(fields, key))
  if (selector !== undefined) {
    const inherited = record.kind === 'every' || record.kind === 'calendar' ? record.catchUp : undefined
    const keepCatchUp = inherited !== undefined && (selector === 'rrule' || selector === 'every_seconds') && !Object.hasOwn(fields, 'catch_up')
    // a new rule of a series that starts on a later day keeps that start (today's default would move it earlier)
    const keepStarts =
      record.kind === 'calendar' && selector === 'rrule' && !Object.hasOwn(fields, 'starts') && record.starts > formatDate(todayIn(record.timeZone, context.now))
    // a new rule of a calendar reminder keeps its zone (the implicit zone would move it to the Session's)
    const keepZone = record.kind === 'calendar' && selector === 'rrule' && !Object.hasOwn(fields, 'time_zone')
    return createRecord(
      {
        ...fields,
        prompt,
        ...(keepCatchUp ? { catch_up: inherited } : {}),
        ...(keepStarts ? { starts: record.starts } : {}),
        ...(keepZone ? { time_zone: record.timeZone } : {}),
      },
      withId,
    )
  }
  const options = OPTION_KEYS.filter((key) => Object.hasOwn(fields, key))
  switch (record.kind) {
    case 'calendar':
      return createRecord({ prompt, ...selectorArgsOf(record), ...fields }, withId)
    case 'every': {
      if (options.some((key) => key !== 'catch_up')) return fail(invalidSelector('time_zone and starts apply only to rrule'))
      if (!Object.hasOwn(fields, 'catch_up')) return ok({ ...record, prompt })
      const catchUp = parseCatchUp(fields.catch_up)
      return catchUp.ok ? ok({ ...record, prompt, catchUp: catchUp.value }) : catchUp
    }
    case 'at':
      if (options.includes('starts') || options.includes('catch_up')) return fail(invalidSelector('starts and catch_up apply only to recurring reminders'))
      if (options.includes('time_zone')) {
        const rezoned = rezoneAt(record, fields.time_zone, context.now)
        return rezoned.ok ? ok({ ...rezoned.value, prompt }) : rezoned
      }
      return ok({ ...record, prompt })
    case 'after':
      if (options.length > 0) return fail(invalidSelector('time_zone, starts and catch_up do not apply to an after_seconds reminder'))
      return ok({ ...record, prompt })
    default: {
      const unreachable: never = record
      return unreachable
    }
  }
}

/** Validates `schedule_list` arguments: an empty JSON object. */
export function parseListArgs(args: unknown): ScheduleResult<Record<never, never>> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_list arguments must be a JSON object'))
  const { unknownKeys } = argIssues(listArgsSchema, args)
  if (unknownKeys.length > 0) return fail(invalidSelector(`schedule_list does not accept ${quoteList(unknownKeys)}; it takes no arguments`))
  return ok({})
}

/** Validates `schedule_delete` arguments: exactly `{ id: string }`. */
export function parseDeleteArgs(args: unknown): ScheduleResult<{ id: string }> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_delete arguments must be a JSON object'))
  const issues = argIssues(deleteArgsSchema, args)
  if (issues.unknownKeys.length > 0) return fail(invalidSelector(`schedule_delete does not accept ${quoteList(issues.unknownKeys)}; it takes id`))
  if (issues.fields.has('id') || typeof args.id !== 'string') {
    return fail(invalidSelector(`schedule_delete needs id as a string, got ${describeValue(args.id)}`))
  }
  return ok({ id: args.id })
}
