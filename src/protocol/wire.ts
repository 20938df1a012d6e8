import { z } from 'zod'
import type { SessionEvent, SessionHeader } from './events.ts'
import { SESSION_ID_PATTERN } from './session-id.ts'

/** Body limit of every API request (SPEC 8). */
export const MAX_BODY_BYTES = 64 * 1024

export { SESSION_ID_PATTERN }

/** `POST /api/sessions` body; zones are validated separately so their errors carry the field. */
export const createSessionBody = z.object({
  timeZone: z.unknown().optional(),
  sessionId: z.string().regex(SESSION_ID_PATTERN).optional(),
})

/** `POST /api/sessions/:id/messages` body. */
export const sendMessageBody = z.object({
  text: z
    .string()
    .refine((t) => t.trim().length > 0, 'text must not be empty')
    .refine((t) => !t.includes('\u0000'), 'text must not contain the character U+0000'),
  clientTimeZone: z.unknown().optional(),
  mode: z.enum(['queue', 'steer']).optional(),
})

/** Smallest accepted `every_seconds` of a recurring reminder (SPEC 7.4). */
export const MIN_EVERY_SECONDS = 300

/** Shortest and longest snooze (SPEC 8). */
export const SNOOZE_SECONDS = { min: 60, max: 86_400 } as const

/** `POST /api/sessions/:id/schedules/:scheduleId/snooze` body. */
export const snoozeBody = z.strictObject({ seconds: z.int().min(SNOOZE_SECONDS.min).max(SNOOZE_SECONDS.max) })

/** `PATCH /api/sessions/:id` body: a title of 1–120 characters after trimming (SPEC 2.2 `session/title`). */
export const renameSessionBody = z.object({
  title: z
    .string()
    .refine((t) => t.trim().length >= 1, 'title must not be empty')
    .refine((t) => t.trim().length <= 120, 'title must be at most 120 characters')
    .refine((t) => !t.includes('\u0000'), 'title must not contain the character U+0000'),
})

/** Whether a session is running a turn. */
export type SessionStatus = 'idle' | 'running'

/** A session as the API describes it. */
export type SessionSummary = {
  id: string
  createdAt: number
  timeZone: string | null
  status: SessionStatus
  title?: string
  eventCount: number
}

/** What a late recurring reminder delivers (SPEC 7.7): the latest due occurrence, all (≤ 10), or none past 15 min. */
export type CatchUpPolicy = 'latest' | 'all' | 'skip'

/** A reminder record (SPEC 7.6–7.8): `at` keeps the zone it was read in when made from a local time. */
export type ScheduleRecord =
  | { id: string; kind: 'after'; prompt: string; afterSeconds: number; scheduledAt: string }
  | { id: string; kind: 'at'; prompt: string; scheduledAt: string; timeZone?: string }
  | { id: string; kind: 'every'; prompt: string; everySeconds: number; scheduledAt: string; catchUp?: CatchUpPolicy }
  | {
      id: string
      kind: 'calendar'
      prompt: string
      rrule: string
      timeZone: string
      starts: string
      catchUp: CatchUpPolicy
      scheduledAt: string
    }

/** Every reminder kind. */
export type ScheduleKind = ScheduleRecord['kind']

type WithoutZone<T> = T extends unknown ? Omit<T, 'timeZone'> : never

/**
 * A reminder as tools and the API show it (SPEC 7.1, 7.8): the record with its current target as
 * `scheduledAt`, live state, its zone (`null` only for `after`/`every` in a headerless Session), the
 * target in that zone (RFC 9557), the next occurrences, and its delivery history.
 */
export type ScheduleView = WithoutZone<ScheduleRecord> & {
  state: 'scheduled' | 'overdue'
  deliveryMode: 'session-local'
  timeZone: string | null
  scheduledAtLocal: string
  upcoming: string[]
  deliveries: number
  lastDeliveredAt: string | null
  missed: number
}

/** Every Schedule error code (SPEC 7.1); the reminder routes answer them with 422. */
export type ScheduleErrorCode =
  | 'invalid_prompt'
  | 'invalid_selector'
  | 'invalid_rule'
  | 'invalid_time_zone'
  | 'timezone_confirmation_required'
  | 'not_future'
  | 'time_out_of_range'
  | 'frequency_too_high'
  | 'corrupt_schedule_log'
  | 'persistence_uncertain'
  | 'internal_error'
  | 'schedule_not_found'

/** Every API error code (SPEC 8). */
export type ApiErrorCode =
  | 'invalid-time-zone'
  | 'session-conflict'
  | 'session-not-found'
  | 'bad-request'
  | 'payload-too-large'
  | 'forbidden'
  | 'not-found'
  | 'internal'
  | 'session-corrupt'
  | 'unauthorized'
  | 'storage-unavailable'
  | 'session-busy'
  | ScheduleErrorCode
  | 'unsupported-media-type'
  | 'request-timeout'
  | 'idempotency-key-reused'

/** The body of every API error. */
export type ApiErrorBody = { error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> } }

/** Response shapes of the API routes. */
export type CreateSessionResponse = { session: SessionSummary }
export type ListSessionsResponse = { sessions: SessionSummary[]; nextCursor: string | null }
export type GetSessionResponse = { session: SessionSummary }
export type EventsResponse = {
  header: SessionHeader
  events: SessionEvent[]
  firstSeq: number | null
  lastSeq: number | null
  eventCount: number
}
/** `GET /api/time`: the server clock and, per asked zone, its current UTC offset in minutes. */
export type TimeResponse = { now: number; timeZones?: Record<string, number> }
/** Payload of the all-sessions stream's `reminder-due` notice. */
export type ReminderDueNotice = { sessionId: string; scheduleId: string; prompt: string; occurrenceAt: string }
export type SendMessageResponse = { rpcId: string; messageId: string }
export type ListSchedulesResponse = { schedules: ScheduleView[] }
export type DeleteScheduleResponse = { id: string; deleted: boolean }
/** Answer of the reminder create, update and snooze routes. */
export type ScheduleResponse = { schedule: ScheduleView }
/** Payload of the SSE `status` event. */
export type StatusEventPayload = { status: SessionStatus }
