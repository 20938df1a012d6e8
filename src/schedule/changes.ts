import type { EventDraft, CatchUpPolicy, ScheduleRecord } from '../protocol/index.ts'
import { parseRrule, canonicalTimeZone, MIN_EVERY_SECONDS } from '../protocol/index.ts'
import { parseCanonicalInstant, parseLocalDate } from './absolute-time.ts'
import { describeValue } from './errors.ts'
import { hasExactKeys, isPlainObject } from './plain-object.ts'

/** `schedule/change` creating a reminder. */
export type CreateChange = { version: 1; operation: 'create'; schedule: ScheduleRecord }
/** `schedule/change` replacing an active reminder's record (same id; SPEC 7.8). */
export type UpdateChange = { version: 1; operation: 'update'; id: string; schedule: ScheduleRecord }
/** `schedule/change` deleting an active reminder. */
export type DeleteChange = { version: 1; operation: 'delete'; id: string }
/**
 * `schedule/change` recording a delivery: one-shot without `acceptedAt`; recurring with the decision
 * time as `acceptedAt` and, when occurrences were not delivered, their count as `missed`.
 */
export type DispatchChange =
  | { version: 1; operation: 'dispatch'; id: string }
  | { version: 1; operation: 'dispatch'; id: string; acceptedAt: string }
  | { version: 1; operation: 'dispatch'; id: string; acceptedAt: string; missed: number }
/** Every `schedule/change` data shape (SPEC 7.6, 7.8). */
export type ScheduleChange = CreateChange | UpdateChange | DeleteChange | DispatchChange

/** The outcome of decoding `schedule/change` data: the change, or why it is refused. */
export type DecodedChange = { ok: true; change: ScheduleChange } | { ok: false; reason: string }

/** The catch-up policies (SPEC 7.7). */
export const CATCH_UP_POLICIES: readonly CatchUpPolicy[] = ['latest', 'all', 'skip']

const ID_PATTERN = /^schedule-[1-9][0-9]*$/

/** The reminder id for an id number (`schedule-<n>`). */
export function scheduleId(n: number): string {
  return `schedule-${n}`
}

/** The number of a well-formed reminder id, or null. */
export function scheduleIdNumber(id: unknown): number | null {
  if (typeof id !== 'string' || !ID_PATTERN.test(id)) return null
  const n = Number(id.slice('schedule-'.length))
  return Number.isSafeInteger(n) ? n : null
}

/** Change data creating a reminder. */
export function createChange(schedule: ScheduleRecord): CreateChange {
  return { version: 1, operation: 'create', schedule }
}

/** Change data replacing an active reminder's record. */
export function updateChange(schedule: ScheduleRecord): UpdateChange {
  return { version: 1, operation: 'update', id: schedule.id, schedule }
}

/** Change data deleting a reminder. */
export function deleteChange(id: string): DeleteChange {
  return { version: 1, operation: 'delete', id }
}

/** Change data recording a delivery; `acceptedAt` only for a recurring reminder, `missed` only when positive. */
export function dispatchChange(id: string, acceptedAt: string | null, missed = 0): DispatchChange {
  if (acceptedAt === null) return { version: 1, operation: 'dispatch', id }
  return missed > 0 ? { version: 1, operation: 'dispatch', id, acceptedAt, missed } : { version: 1, operation: 'dispatch', id, acceptedAt }
}

/** The event draft that appends a change. */
export function scheduleChangeDraft(change: ScheduleChange): EventDraft<'schedule/change'> {
  return { type: 'schedule/change', data: change }
}

function keyList(keys: readonly string[]): string {
  return keys.join(', ')
}

type RecordKind = ScheduleRecord['kind']

const RECORD_KEYS: Record<RecordKind, readonly (readonly string[])[]> = {
  after: [['id', 'kind', 'prompt', 'afterSeconds', 'scheduledAt']],
  at: [
    ['id', 'kind', 'prompt', 'scheduledAt'],
    ['id', 'kind', 'prompt', 'scheduledAt', 'timeZone'],
  ],
  every: [
    ['id', 'kind', 'prompt', 'everySeconds', 'scheduledAt'],
    ['id', 'kind', 'prompt', 'everySeconds', 'scheduledAt', 'catchUp'],
  ],
  calendar: [['id', 'kind', 'prompt', 'rrule', 'timeZone', 'starts', 'catchUp', 'scheduledAt']],
}

const KEY_RULES: Record<RecordKind, string> = {
  after: 'exactly the keys id, kind, prompt, afterSeconds, scheduledAt',
  at: 'exactly the keys id, kind, prompt, scheduledAt and optionally timeZone',
  every: 'exactly the keys id, kind, prompt, everySeconds, scheduledAt and optionally catchUp',
  calendar: 'exactly the keys id, kind, prompt, rrule, timeZone, starts, catchUp, scheduledAt',
}

function isRecordKind(value: unknown): value is RecordKind {
  return value === 'after' || value === 'at' || value === 'every' || value === 'calendar'
}

function isCatchUp(value: unknown): value is CatchUpPolicy {
  return typeof value === 'string' && (CATCH_UP_POLICIES as readonly string[]).includes(value)
}

type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string }

function decodeRecord(value: unknown): Decoded<ScheduleRecord> {
  if (!isPlainObject(value)) return { ok: false, reason: 'schedule must be a JSON object' }
  const kind = value.kind
  if (!isRecordKind(kind)) return { ok: false, reason: `unknown schedule kind ${describeValue(kind)}` }
  if (!RECORD_KEYS[kind].some((keys) => hasExactKeys(value, keys))) {
    return { ok: false, reason: `a schedule of kind ${kind} must have ${KEY_RULES[kind]}` }
  }
  const { id, prompt, scheduledAt } = value
  if (typeof id !== 'string' || scheduleIdNumber(id) === null) return { ok: false, reason: 'schedule id must be schedule-<n>' }
  if (typeof prompt !== 'string' || prompt.trim().length === 0) return { ok: false, reason: 'schedule prompt must be a non-empty string' }
  if (typeof scheduledAt !== 'string' || parseCanonicalInstant(scheduledAt) === null) {
    return { ok: false, reason: 'scheduledAt must be a canonical UTC instant between years 0001 and 9999' }
  }
  const zoneOk = (zone: unknown): zone is string => typeof zone === 'string' && canonicalTimeZone(zone) !== null
  switch (kind) {
    case 'after': {
      const afterSeconds = value.afterSeconds
      if (typeof afterSeconds !== 'number' || !Number.isSafeInteger(afterSeconds) || afterSeconds <= 0) {
        return { ok: false, reason: 'afterSeconds must be a positive safe integer' }
      }
      return { ok: true, value: { id, kind, prompt, afterSeconds, scheduledAt } }
    }
    case 'at': {
      if (!Object.hasOwn(value, 'timeZone')) return { ok: true, value: { id, kind, prompt, scheduledAt } }
      const timeZone = value.timeZone
      if (!zoneOk(timeZone)) return { ok: false, reason: 'timeZone must be an IANA time zone' }
      return { ok: true, value: { id, kind, prompt, scheduledAt, timeZone } }
    }
    case 'every': {
      const everySeconds = value.everySeconds
      if (typeof everySeconds !== 'number' || !Number.isSafeInteger(everySeconds) || everySeconds < MIN_EVERY_SECONDS) {
        return { ok: false, reason: `everySeconds must be a safe integer of at least ${MIN_EVERY_SECONDS}` }
      }
      if (!Object.hasOwn(value, 'catchUp')) return { ok: true, value: { id, kind, prompt, everySeconds, scheduledAt } }
      const catchUp = value.catchUp
      if (!isCatchUp(catchUp)) return { ok: false, reason: 'catchUp must be latest, all or skip' }
      return { ok: true, value: { id, kind, prompt, everySeconds, scheduledAt, catchUp } }
    }
    case 'calendar': {
      const { rrule, timeZone, starts, catchUp } = value
      if (typeof rrule !== 'string') return { ok: false, reason: 'rrule must be a string' }
      const rule = parseRrule(rrule)
      if (!rule.ok) return { ok: false, reason: `rrule is not valid: ${rule.reason}` }
      if (!zoneOk(timeZone)) return { ok: false, reason: 'timeZone must be an IANA time zone' }
      if (typeof starts !== 'string' || parseLocalDate(starts) === null) return { ok: false, reason: 'starts must be a real calendar date YYYY-MM-DD' }
      if (!isCatchUp(catchUp)) return { ok: false, reason: 'catchUp must be latest, all or skip' }
      return { ok: true, value: { id, kind, prompt, rrule, timeZone, starts, catchUp, scheduledAt } }
    }
    default: {
      const unreachable: never = kind
      return unreachable
    }
  }
}

function decodeId(value: unknown): value is string {
  return typeof value === 'string' && scheduleIdNumber(value) !== null
}

/** Strictly decodes `schedule/change` data (SPEC 7.6, 7.8): version 1, exact key sets, exact record shapes. */
export function decodeScheduleChange(data: unknown): DecodedChange {
  if (!isPlainObject(data)) return { ok: false, reason: 'change data must be a JSON object' }
  if (data.version !== 1) return { ok: false, reason: `unsupported change version ${describeValue(data.version)}` }
  switch (data.operation) {
    case 'create': {
      if (!hasExactKeys(data, ['version', 'operation', 'schedule'])) {
        return { ok: false, reason: 'a create change must have exactly the keys version, operation, schedule' }
      }
      const decoded = decodeRecord(data.schedule)
      return decoded.ok ? { ok: true, change: createChange(decoded.value) } : decoded
    }
    case 'update': {
      if (!hasExactKeys(data, ['version', 'operation', 'id', 'schedule'])) {
        return { ok: false, reason: 'an update change must have exactly the keys version, operation, id, schedule' }
      }
      if (!decodeId(data.id)) return { ok: false, reason: 'change id must be schedule-<n>' }
      const decoded = decodeRecord(data.schedule)
      if (!decoded.ok) return decoded
      if (decoded.value.id !== data.id) return { ok: false, reason: `an update of ${JSON.stringify(data.id)} must keep its id` }
      return { ok: true, change: updateChange(decoded.value) }
    }
    case 'delete': {
      if (!hasExactKeys(data, ['version', 'operation', 'id'])) {
        return { ok: false, reason: 'a delete change must have exactly the keys version, operation, id' }
      }
      if (!decodeId(data.id)) return { ok: false, reason: 'change id must be schedule-<n>' }
      return { ok: true, change: deleteChange(data.id) }
    }
    case 'dispatch': {
      const recurring = Object.hasOwn(data, 'acceptedAt')
      const withMissed = Object.hasOwn(data, 'missed')
      const keys = ['version', 'operation', 'id', ...(recurring ? ['acceptedAt'] : []), ...(withMissed ? ['missed'] : [])]
      if (!hasExactKeys(data, keys) || (withMissed && !recurring)) {
        return {
          ok: false,
          reason: 'a dispatch change must have exactly the keys version, operation, id, optionally acceptedAt, and missed only with acceptedAt',
        }
      }
      if (!decodeId(data.id)) return { ok: false, reason: 'change id must be schedule-<n>' }
      if (!recurring) return { ok: true, change: dispatchChange(data.id, null) }
      if (typeof data.acceptedAt !== 'string' || parseCanonicalInstant(data.acceptedAt) === null) {
        return { ok: false, reason: 'acceptedAt must be a canonical UTC instant between years 0001 and 9999' }
      }
      if (!withMissed) return { ok: true, change: dispatchChange(data.id, data.acceptedAt) }
      const missed = data.missed
      if (typeof missed !== 'number' || !Number.isSafeInteger(missed) || missed <= 0) {
        return { ok: false, reason: 'missed must be a positive safe integer' }
      }
      return { ok: true, change: dispatchChange(data.id, data.acceptedAt, missed) }
    }
    default:
      return { ok: false, reason: `unknown change operation ${describeValue(data.operation)}` }
  }
}
