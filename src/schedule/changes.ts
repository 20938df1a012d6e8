import type { EventDraft } from '../protocol/events.ts'
import type { ScheduleRecord } from '../protocol/wire.ts'
import { parseCanonicalInstant } from './absolute-time.ts'
import { describeValue } from './errors.ts'
import { MIN_EVERY_SECONDS } from './recurrence.ts'

/** `schedule/change` creating a reminder. */
export type CreateChange = { version: 1; operation: 'create'; schedule: ScheduleRecord }
/** `schedule/change` deleting an active reminder. */
export type DeleteChange = { version: 1; operation: 'delete'; id: string }
/** `schedule/change` recording a delivery: one-shot without, recurring with `acceptedAt`. */
export type DispatchChange =
  | { version: 1; operation: 'dispatch'; id: string }
  | { version: 1; operation: 'dispatch'; id: string; acceptedAt: string }
/** Every `schedule/change` data shape (SPEC 7.6). */
export type ScheduleChange = CreateChange | DeleteChange | DispatchChange

/** The outcome of decoding `schedule/change` data: the change, or why it is refused. */
export type DecodedChange = { ok: true; change: ScheduleChange } | { ok: false; reason: string }

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

/** Change data deleting a reminder. */
export function deleteChange(id: string): DeleteChange {
  return { version: 1, operation: 'delete', id }
}

/** Change data recording a delivery; `acceptedAt` only for a recurring reminder. */
export function dispatchChange(id: string, acceptedAt: string | null): DispatchChange {
  return acceptedAt === null ? { version: 1, operation: 'dispatch', id } : { version: 1, operation: 'dispatch', id, acceptedAt }
}

/** The event draft that appends a change. */
export function scheduleChangeDraft(change: ScheduleChange): EventDraft<'schedule/change'> {
  return { type: 'schedule/change', data: change }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === Object.prototype || proto === null
}

function hasExactKeys(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value)
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key))
}

function keyList(keys: readonly string[]): string {
  return keys.join(', ')
}

const RECORD_KEYS = {
  after: ['id', 'kind', 'prompt', 'afterSeconds', 'scheduledAt'],
  at: ['id', 'kind', 'prompt', 'scheduledAt'],
  every: ['id', 'kind', 'prompt', 'everySeconds', 'scheduledAt'],
} as const

function decodeRecord(value: unknown): { ok: true; record: ScheduleRecord } | { ok: false; reason: string } {
  if (!isPlainObject(value)) return { ok: false, reason: 'schedule must be a JSON object' }
  const kind = value.kind
  if (kind !== 'after' && kind !== 'at' && kind !== 'every') {
    return { ok: false, reason: `unknown schedule kind ${describeValue(kind)}` }
  }
  const keys = RECORD_KEYS[kind]
  if (!hasExactKeys(value, keys)) return { ok: false, reason: `a schedule of kind ${kind} must have exactly the keys ${keyList(keys)}` }
  const { id, prompt, scheduledAt } = value
  if (typeof id !== 'string' || scheduleIdNumber(id) === null) return { ok: false, reason: 'schedule id must be schedule-<n>' }
  if (typeof prompt !== 'string' || prompt.trim().length === 0) return { ok: false, reason: 'schedule prompt must be a non-empty string' }
  if (typeof scheduledAt !== 'string' || parseCanonicalInstant(scheduledAt) === null) {
    return { ok: false, reason: 'scheduledAt must be a canonical UTC instant between years 0001 and 9999' }
  }
  switch (kind) {
    case 'after': {
      const afterSeconds = value.afterSeconds
      if (typeof afterSeconds !== 'number' || !Number.isSafeInteger(afterSeconds) || afterSeconds <= 0) {
        return { ok: false, reason: 'afterSeconds must be a positive safe integer' }
      }
      return { ok: true, record: { id, kind, prompt, afterSeconds, scheduledAt } }
    }
    case 'at':
      return { ok: true, record: { id, kind, prompt, scheduledAt } }
    case 'every': {
      const everySeconds = value.everySeconds
      if (typeof everySeconds !== 'number' || !Number.isSafeInteger(everySeconds) || everySeconds < MIN_EVERY_SECONDS) {
        return { ok: false, reason: `everySeconds must be a safe integer of at least ${MIN_EVERY_SECONDS}` }
      }
      return { ok: true, record: { id, kind, prompt, everySeconds, scheduledAt } }
    }
    default: {
      const unreachable: never = kind
      return unreachable
    }
  }
}

/** Strictly decodes `schedule/change` data (SPEC 7.6): version 1, exact key sets, exact record shapes. */
export function decodeScheduleChange(data: unknown): DecodedChange {
  if (!isPlainObject(data)) return { ok: false, reason: 'change data must be a JSON object' }
  if (data.version !== 1) return { ok: false, reason: `unsupported change version ${describeValue(data.version)}` }
  switch (data.operation) {
    case 'create': {
      if (!hasExactKeys(data, ['version', 'operation', 'schedule'])) {
        return { ok: false, reason: 'a create change must have exactly the keys version, operation, schedule' }
      }
      const decoded = decodeRecord(data.schedule)
      return decoded.ok ? { ok: true, change: createChange(decoded.record) } : decoded
    }
    case 'delete': {
      if (!hasExactKeys(data, ['version', 'operation', 'id'])) {
        return { ok: false, reason: 'a delete change must have exactly the keys version, operation, id' }
      }
      if (typeof data.id !== 'string' || scheduleIdNumber(data.id) === null) return { ok: false, reason: 'change id must be schedule-<n>' }
      return { ok: true, change: deleteChange(data.id) }
    }
    case 'dispatch': {
      const recurring = Object.hasOwn(data, 'acceptedAt')
      const keys = recurring ? ['version', 'operation', 'id', 'acceptedAt'] : ['version', 'operation', 'id']
      if (!hasExactKeys(data, keys)) {
        return { ok: false, reason: 'a dispatch change must have exactly the keys version, operation, id and optionally acceptedAt' }
      }
      if (typeof data.id !== 'string' || scheduleIdNumber(data.id) === null) return { ok: false, reason: 'change id must be schedule-<n>' }
      if (!recurring) return { ok: true, change: dispatchChange(data.id, null) }
      if (typeof data.acceptedAt !== 'string' || parseCanonicalInstant(data.acceptedAt) === null) {
        return { ok: false, reason: 'acceptedAt must be a canonical UTC instant between years 0001 and 9999' }
      }
      return { ok: true, change: dispatchChange(data.id, data.acceptedAt) }
    }
    default:
      return { ok: false, reason: `unknown change operation ${describeValue(data.operation)}` }
  }
}
