import { canonicalTimeZone } from '../protocol/time-zone.ts'
import type { ScheduleRecord } from '../protocol/wire.ts'
import {
  checkTarget,
  localToInstant,
  parseLocalDate,
  parseLocalTime,
  parseRfc3339,
  type LocalDate,
  type LocalTime,
} from './absolute-time.ts'
import {
  describeValue,
  fail,
  frequencyTooHigh,
  invalidPrompt,
  invalidRule,
  invalidSelector,
  invalidTimeZone,
  ok,
  type ScheduleResult,
} from './errors.ts'
import type { ImplicitZoneResult } from './implicit-zone.ts'
import { firstEveryTarget, MIN_EVERY_SECONDS } from './recurrence.ts'

/** A local `at`: wall date and time with an explicit canonical zone, or none (implicit zone). */
export type LocalAt = { date: LocalDate; time: LocalTime; timeZone: string | null }

/** `schedule_create` arguments, validated and normalised but not yet resolved against now. */
export type CreateRequest =
  | { kind: 'after'; prompt: string; afterSeconds: number }
  | { kind: 'at-instant'; prompt: string; at: number }
  | { kind: 'at-local'; prompt: string; at: LocalAt }
  | { kind: 'every'; prompt: string; everySeconds: number }

/** What `createRecord` needs beyond the arguments; `implicitZone` is called only for a zoneless local `at`. */
export type CreateContext = {
  now: number
  nextId: string
  implicitZone: () => ImplicitZoneResult
}

const CREATE_KEYS = ['prompt', 'after_seconds', 'at', 'every_seconds'] as const
const SELECTOR_KEYS = ['after_seconds', 'at', 'every_seconds'] as const
const LOCAL_AT_KEYS = ['date', 'time', 'time_zone'] as const
const AT_FORMS =
  'an RFC 3339 timestamp such as "2026-07-15T09:30:00Z" or "2026-07-15T09:30:00+08:00", or an object {"date": "YYYY-MM-DD", "time": "HH:mm:ss", "time_zone"?: IANA zone}'

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

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

/**
 * Validates and normalises `schedule_create` arguments. Checks run in this order: arguments are a
 * JSON object, no unknown keys, prompt, exactly one selector, then the selector's value.
 * The prompt is stored trimmed.
 */
export function parseCreateArgs(args: unknown): ScheduleResult<CreateRequest> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_create arguments must be a JSON object'))
  const extra = unknownKeys(args, CREATE_KEYS)
  if (extra.length > 0) {
    return fail(
      invalidSelector(
        `schedule_create does not accept ${quoteList(extra)}; it takes prompt and exactly one of after_seconds, at, every_seconds`,
      ),
    )
  }
  if (typeof args.prompt !== 'string' || args.prompt.trim().length === 0) return fail(invalidPrompt())
  const prompt = args.prompt.trim()
  const selectors = SELECTOR_KEYS.filter((key) => Object.hasOwn(args, key))
  if (selectors.length !== 1) {
    const given = selectors.length === 0 ? 'none' : selectors.join(', ')
    return fail(invalidSelector(`exactly one of after_seconds, at, every_seconds is required, got ${given}`))
  }
  switch (selectors[0]) {
    case 'after_seconds': {
      const seconds = positiveSafeInteger('after_seconds', args.after_seconds)
      return seconds.ok ? ok({ kind: 'after', prompt, afterSeconds: seconds.value }) : seconds
    }
    case 'every_seconds': {
      const seconds = positiveSafeInteger('every_seconds', args.every_seconds)
      if (!seconds.ok) return seconds
      if (seconds.value < MIN_EVERY_SECONDS) return fail(frequencyTooHigh(seconds.value))
      return ok({ kind: 'every', prompt, everySeconds: seconds.value })
    }
    case 'at': {
      const at = parseAt(args.at)
      return at.ok ? ok({ ...at.value, prompt }) : at
    }
    default: {
      const unreachable: never = selectors[0]
      return unreachable
    }
  }
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
      return ok({ id, kind: 'every', prompt: request.prompt, everySeconds: request.everySeconds, scheduledAt: scheduledAt.value })
    }
    case 'at-instant': {
      const scheduledAt = checkTarget(request.at, now)
      return scheduledAt.ok ? ok({ id, kind: 'at', prompt: request.prompt, scheduledAt: scheduledAt.value }) : scheduledAt
    }
    case 'at-local': {
      let timeZone = request.at.timeZone
      if (timeZone === null) {
        const implicit = context.implicitZone()
        if (!implicit.ok) return fail(implicit.error)
        timeZone = implicit.timeZone
      }
      const instant = localToInstant(request.at.date, request.at.time, timeZone)
      if (!instant.ok) return instant
      const scheduledAt = checkTarget(instant.value, now)
      return scheduledAt.ok ? ok({ id, kind: 'at', prompt: request.prompt, scheduledAt: scheduledAt.value }) : scheduledAt
    }
    default: {
      const unreachable: never = request
      return unreachable
    }
  }
}

/** Parses `schedule_create` arguments and resolves them into a record (SPEC 7.1–7.4, 7.6). */
export function createRecord(args: unknown, context: CreateContext): ScheduleResult<ScheduleRecord> {
  const request = parseCreateArgs(args)
  return request.ok ? resolveCreateRequest(request.value, context) : request
}

/** Validates `schedule_list` arguments: an empty JSON object. */
export function parseListArgs(args: unknown): ScheduleResult<Record<never, never>> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_list arguments must be a JSON object'))
  const extra = Object.keys(args)
  if (extra.length > 0) return fail(invalidSelector(`schedule_list does not accept ${quoteList(extra)}; it takes no arguments`))
  return ok({})
}

/** Validates `schedule_delete` arguments: exactly `{ id: string }`. */
export function parseDeleteArgs(args: unknown): ScheduleResult<{ id: string }> {
  if (!isPlainObject(args)) return fail(invalidSelector('schedule_delete arguments must be a JSON object'))
  const extra = unknownKeys(args, ['id'])
  if (extra.length > 0) return fail(invalidSelector(`schedule_delete does not accept ${quoteList(extra)}; it takes id`))
  if (typeof args.id !== 'string') {
    return fail(invalidSelector(`schedule_delete needs id as a string, got ${describeValue(args.id)}`))
  }
  return ok({ id: args.id })
}
