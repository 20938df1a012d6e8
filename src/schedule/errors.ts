import type { ScheduleErrorCode } from '../protocol/index.ts'

export type { ScheduleErrorCode }

/** A durable Schedule operation, named by `persistence_uncertain`. */
export type ScheduleOperation = 'create' | 'update' | 'delete' | 'dispatch'

/** The extra keys each error code carries beside `code` and `message`. */
export type ScheduleErrorDetailsMap = {
  invalid_prompt: Record<never, never>
  invalid_selector: Record<never, never>
  invalid_rule: Record<never, never>
  invalid_time_zone: Record<never, never>
  timezone_confirmation_required: { sessionTimeZone: string; clientTimeZones: string[] }
  not_future: Record<never, never>
  time_out_of_range: Record<never, never>
  frequency_too_high: Record<never, never>
  corrupt_schedule_log: { seq: number }
  persistence_uncertain: { operation: ScheduleOperation }
  internal_error: Record<never, never>
  schedule_not_found: { id: string }
}

/** The JSON shape of a Schedule error in a tool result: `{ code, message, ...details }`. */
export type ScheduleToolError<C extends ScheduleErrorCode = ScheduleErrorCode> = C extends ScheduleErrorCode
  ? { code: C; message: string } & ScheduleErrorDetailsMap[C]
  : never

/** A Schedule failure with a stable code, an exact message and code-specific details. */
export class ScheduleError<C extends ScheduleErrorCode = ScheduleErrorCode> extends Error {
  override readonly name = 'ScheduleError'
  readonly code: C
  readonly details: ScheduleErrorDetailsMap[C]

  constructor(code: C, message: string, details: ScheduleErrorDetailsMap[C]) {
    super(message)
    this.code = code
    this.details = details
  }

  /** The error as a tool result value: `{ code, message, ...details }`. */
  toToolError(): ScheduleToolError<C> {
    return { code: this.code, message: this.message, ...this.details } as ScheduleToolError<C>
  }
}

/** A value or the Schedule error that prevented it. */
export type ScheduleResult<T> = { ok: true; value: T } | { ok: false; error: ScheduleError }

/** Wraps a success value. */
export function ok<T>(value: T): ScheduleResult<T> {
  return { ok: true, value }
}

/** Wraps a failure. */
export function fail<T>(error: ScheduleError): ScheduleResult<T> {
  return { ok: false, error }
}

/** True iff the value is a ScheduleError. */
export function isScheduleError(value: unknown): value is ScheduleError {
  return value instanceof ScheduleError
}

const MAX_SHOWN_CHARS = 80

/** A short JSON rendering of an offending value for an error message. */
export function describeValue(value: unknown): string {
  let text: string
  try {
    text = JSON.stringify(value) ?? String(value)
  } catch {
    text = String(value)
  }
  return text.length > MAX_SHOWN_CHARS ? `${text.slice(0, MAX_SHOWN_CHARS)}…` : text
}

/** `invalid_prompt`: the prompt is missing, not a string, or blank, or holds U+0000 (as a message's text and a title may not). */
export function invalidPrompt(message = 'prompt must be a non-empty string'): ScheduleError<'invalid_prompt'> {
  return new ScheduleError('invalid_prompt', message, {})
}

/** The prompt a reminder keeps (trimmed), or `invalid_prompt` when it is not a non-empty string without U+0000. */
export function parsePrompt(prompt: unknown): ScheduleResult<string> {
  if (typeof prompt !== 'string' || prompt.trim().length === 0) return fail(invalidPrompt())
  if (prompt.includes('\u0000')) return fail(invalidPrompt('prompt must not contain the character U+0000'))
  return ok(prompt.trim())
}

/** `invalid_selector`: wrong argument shape, unknown keys, or not exactly one selector. */
export function invalidSelector(message: string): ScheduleError<'invalid_selector'> {
  return new ScheduleError('invalid_selector', message, {})
}

/** `invalid_rule`: a bad number, a malformed date or time, or a wall time skipped by a clock change. */
export function invalidRule(message: string): ScheduleError<'invalid_rule'> {
  return new ScheduleError('invalid_rule', message, {})
}

/** `invalid_time_zone`: an explicit zone that SPEC 4.1 rejects. */
export function invalidTimeZone(field: string, value: unknown): ScheduleError<'invalid_time_zone'> {
  return new ScheduleError(
    'invalid_time_zone',
    `${field} must be an IANA time zone name such as "Europe/Berlin", got ${describeValue(value)}`,
    {},
  )
}

/** `timezone_confirmation_required`: a local time without a zone while the zones are not agreed. */
export function timezoneConfirmationRequired(
  sessionTimeZone: string,
  clientTimeZones: readonly string[],
  subject: 'at' | 'rrule' = 'at',
): ScheduleError<'timezone_confirmation_required'> {
  const message =
    subject === 'at'
      ? 'a local at without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as at.time_zone'
      : 'an rrule without time_zone needs the Session time zone and the client time zone of this request to be one and the same zone; ask the user which IANA time zone they mean and pass it as time_zone'
  return new ScheduleError('timezone_confirmation_required', message, { sessionTimeZone, clientTimeZones: [...clientTimeZones] })
}

/** `not_future`: the target is not strictly after now. */
export function notFuture(targetIso: string, nowIso: string): ScheduleError<'not_future'> {
  return new ScheduleError('not_future', `the target ${targetIso} is not in the future (now is ${nowIso})`, {})
}

/** `time_out_of_range`: the target is not an instant with a four-digit year. */
export function timeOutOfRange(): ScheduleError<'time_out_of_range'> {
  return new ScheduleError(
    'time_out_of_range',
    'the target must lie between 0001-01-01T00:00:00.000Z and 9999-12-31T23:59:59.999Z',
    {},
  )
}

/** `frequency_too_high`: `every_seconds` below the 300-second floor. */
export function frequencyTooHigh(everySeconds: number): ScheduleError<'frequency_too_high'> {
  return new ScheduleError('frequency_too_high', `every_seconds must be at least 300, got ${everySeconds}`, {})
}

/** `frequency_too_high`: two consecutive occurrences of a calendar rule closer than 300 seconds. */
export function ruleTooFrequent(first: string, second: string): ScheduleError<'frequency_too_high'> {
  return new ScheduleError(
    'frequency_too_high',
    `occurrences ${first} and ${second} are less than 300 seconds apart; a calendar rule needs at least 300 seconds between occurrences`,
    {},
  )
}

/** `not_future`: a calendar rule without any occurrence after now. */
export function noFutureOccurrence(nowIso: string): ScheduleError<'not_future'> {
  return new ScheduleError('not_future', `the rule has no occurrence after now (${nowIso})`, {})
}

/** `corrupt_schedule_log`: a `schedule/change` event the fold refuses, with its seq. */
export function corruptScheduleLog(seq: number, reason: string): ScheduleError<'corrupt_schedule_log'> {
  return new ScheduleError('corrupt_schedule_log', `schedule log is corrupt at seq ${seq}: ${reason}`, { seq })
}

/** `persistence_uncertain`: the change was appended but the durability barrier failed. */
export function persistenceUncertain(operation: ScheduleOperation): ScheduleError<'persistence_uncertain'> {
  return new ScheduleError(
    'persistence_uncertain',
    `the ${operation} was written but could not be confirmed durable; it may be lost if the server crashes`,
    { operation },
  )
}

/** `schedule_not_found`: an update or snooze names no active reminder. */
export function scheduleNotFound(id: string): ScheduleError<'schedule_not_found'> {
  return new ScheduleError('schedule_not_found', `there is no active reminder ${JSON.stringify(id)}`, { id })
}

/** `internal_error`: an unexpected failure, contained and reported with a stable code. */
export function internalError(): ScheduleError<'internal_error'> {
  return new ScheduleError('internal_error', 'the schedule tool failed unexpectedly', {})
}
