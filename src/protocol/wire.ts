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
  text: z.string().refine((t) => t.trim().length > 0, 'text must not be empty'),
  clientTimeZone: z.unknown().optional(),
  mode: z.enum(['queue', 'steer']).optional(),
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

/** A reminder record (SPEC 7.6). */
export type ScheduleRecord =
  | { id: string; kind: 'after'; prompt: string; afterSeconds: number; scheduledAt: string }
  | { id: string; kind: 'at'; prompt: string; scheduledAt: string }
  | { id: string; kind: 'every'; prompt: string; everySeconds: number; scheduledAt: string }

/** A reminder as tools and the API show it (SPEC 7.1). */
export type ScheduleView = ScheduleRecord & { state: 'scheduled' | 'overdue'; deliveryMode: 'session-local' }

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

/** The body of every API error. */
export type ApiErrorBody = { error: { code: ApiErrorCode; message: string; details?: Record<string, unknown> } }

/** Response shapes of the API routes. */
export type CreateSessionResponse = { session: SessionSummary }
export type ListSessionsResponse = { sessions: SessionSummary[] }
export type GetSessionResponse = { session: SessionSummary }
export type EventsResponse = { header: SessionHeader; events: SessionEvent[] }
export type SendMessageResponse = { rpcId: string; messageId: string }
export type ListSchedulesResponse = { schedules: ScheduleView[] }
export type DeleteScheduleResponse = { id: string; deleted: boolean }
/** Payload of the SSE `status` event. */
export type StatusEventPayload = { status: SessionStatus }
