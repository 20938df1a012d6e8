import { useInfiniteQuery, useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query'
import type {
  CreateSessionResponse,
  DeleteScheduleResponse,
  EventsResponse,
  GetSessionResponse,
  ListSchedulesResponse,
  ListSessionsResponse,
  ScheduleResponse,
  ScheduleView,
  SendMessageResponse,
  SessionStatus,
  SessionSummary,
} from '../../protocol/index.ts'
import { sampleBrowserZone } from '../lib/browser-zone.ts'
import { appendToLog, logFromPage, prependToLog, type SessionLog } from '../lib/session-log.ts'
import { apiRequest, sessionApiPath } from './http.ts'
import { queryKeys } from './keys.ts'

/** How a message enters the session: next turn (`queue`) or the running turn's next step (`steer`). */
export type SendMode = 'queue' | 'steer'

/** Sessions per list page. */
export const SESSIONS_PAGE = 50
/** Events per conversation page. */
export const EVENTS_PAGE = 500
const CATCH_UP_PAGE = 5_000
const CATCH_UP_PAGES = 4

/** The Session list's order (SPEC 8): newest first, then by id. */
export function newestFirst(a: SessionSummary, b: SessionSummary): number {
  return b.createdAt - a.createdAt || (a.id < b.id ? -1 : 1)
}

/** The Session list, newest first, one page at a time; `live` turns polling off while the all-sessions stream is open. */
export function useSessions(live: boolean) {
  return useInfiniteQuery({
    queryKey: queryKeys.sessions(),
    queryFn: ({ signal, pageParam }) =>
      apiRequest<ListSessionsResponse>(`/api/sessions?limit=${SESSIONS_PAGE}${pageParam === null ? '' : `&before=${encodeURIComponent(pageParam)}`}`, { signal }),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => (typeof last.nextCursor === 'string' && last.nextCursor.length > 0 ? last.nextCursor : null),
    select: (data) => {
      const seen = new Set<string>()
      const sessions: SessionSummary[] = []
      for (const page of data.pages) {
        for (const session of page.sessions) {
          if (seen.has(session.id)) continue
          seen.add(session.id)
          sessions.push(session)
        }
      }
      return sessions.sort(newestFirst)
    },
    refetchInterval: live ? false : 15_000,
  })
}

/** One Session's summary (zone, status, title). */
export function useSession(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.session(id),
    queryFn: ({ signal }) => apiRequest<GetSessionResponse>(sessionApiPath(id), { signal }),
    select: (data) => data.session,
    enabled,
  })
}

function eventsPath(id: string, params: Record<string, number>): string {
  const query = Object.entries(params)
    .map(([key, value]) => `${key}=${value}`)
    .join('&')
  return sessionApiPath(id, `/events?${query}`)
}

/** Fetches the last page of a log, or (when a window is held) the events after it, and folds them in. */
export async function fetchSessionLog(client: QueryClient, id: string, signal?: AbortSignal): Promise<SessionLog> {
  const key = queryKeys.events(id)
  const held = client.getQueryData<SessionLog>(key)
  if (held === undefined) return logFromPage(await apiRequest<EventsResponse>(eventsPath(id, { limit: EVENTS_PAGE }), { signal }))
  let log = held
  for (let round = 0; round < CATCH_UP_PAGES; round++) {
    const page = await apiRequest<EventsResponse>(eventsPath(id, { after: log.lastSeq, limit: CATCH_UP_PAGE }), { signal })
    const current = client.getQueryData<SessionLog>(key) ?? log
    const { log: next, gap } = appendToLog(current, page.events, page.header)
    log = { ...next, eventCount: Math.max(next.eventCount, page.eventCount) }
    if (gap) break
    if (page.events.length < CATCH_UP_PAGE || log.lastSeq + 1 >= log.eventCount) return log
  }
  return logFromPage(await apiRequest<EventsResponse>(eventsPath(id, { limit: EVENTS_PAGE }), { signal }))
}

/** One Session's log window: the last page first; refetches bring only what is new. */
export function useSessionLog(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.events(id),
    queryFn: ({ client, signal }) => fetchSessionLog(client, id, signal),
    structuralSharing: false,
    staleTime: 30_000,
    enabled,
  })
}

/** Loads the page of events just before the window and prepends it; resolves whether the window now starts earlier. */
export async function loadOlderEvents(client: QueryClient, id: string): Promise<boolean> {
  const key = queryKeys.events(id)
  const held = client.getQueryData<SessionLog>(key)
  if (held === undefined || held.firstSeq <= 0) return false
  const page = await apiRequest<EventsResponse>(eventsPath(id, { before: held.firstSeq, limit: EVENTS_PAGE }))
  const current = client.getQueryData<SessionLog>(key)
  if (current === undefined) return false
  const next = prependToLog(current, page.events)
  client.setQueryData<SessionLog>(key, next)
  return next.firstSeq < current.firstSeq
}

/** One Session's active reminders. */
export function useSchedules(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.schedules(id),
    queryFn: ({ signal }) => apiRequest<ListSchedulesResponse>(sessionApiPath(id, '/schedules'), { signal }),
    select: (data) => data.schedules,
    refetchInterval: 60_000,
    enabled,
  })
}

/** Records a summary the server sent (stream notice, create, rename) in the Session's cache and the list. */
export function putSession(client: QueryClient, session: SessionSummary): void {
  client.setQueryData<GetSessionResponse>(queryKeys.session(session.id), { session })
  const data = client.getQueryData<InfiniteData<ListSessionsResponse, string | null>>(queryKeys.sessions())
  if (data === undefined) return
  const listed = data.pages.some((page) => page.sessions.some((s) => s.id === session.id))
  client.setQueryData<InfiniteData<ListSessionsResponse, string | null>>(queryKeys.sessions(), {
    ...data,
    pages: data.pages.map((page, index) => {
      if (listed) return { ...page, sessions: page.sessions.map((s) => (s.id === session.id ? session : s)) }
      return index === 0 ? { ...page, sessions: [session, ...page.sessions] } : page
    }),
  })
}

/** Records a Session's running status in its cached summary and list entry; where that status is already held, nothing changes. */
export function setSessionStatus(client: QueryClient, id: string, status: SessionStatus): void {
  const held = client.getQueryData<GetSessionResponse>(queryKeys.session(id))
  if (held !== undefined && held.session.status !== status) {
    client.setQueryData<GetSessionResponse>(queryKeys.session(id), { session: { ...held.session, status } })
  }
  const data = client.getQueryData<InfiniteData<ListSessionsResponse, string | null>>(queryKeys.sessions())
  const stale = (page: ListSessionsResponse) => page.sessions.some((s) => s.id === id && s.status !== status)
  if (data === undefined || !data.pages.some(stale)) return
  client.setQueryData<InfiniteData<ListSessionsResponse, string | null>>(queryKeys.sessions(), {
    ...data,
    pages: data.pages.map((page) => (stale(page) ? { ...page, sessions: page.sessions.map((s) => (s.id === id ? { ...s, status } : s)) } : page)),
  })
}

/** Creates a Session in this browser's zone, sampled when the person asks. */
export function useCreateSession() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: () => apiRequest<CreateSessionResponse>('/api/sessions', { method: 'POST', body: { timeZone: sampleBrowserZone() } }),
    onSuccess: ({ session }) => putSession(client, session),
  })
}

/** Renames a Session (`PATCH`, SPEC 8 v2). */
export function useRenameSession(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (title: string) => apiRequest<GetSessionResponse>(sessionApiPath(id), { method: 'PATCH', body: { title } }),
    onSuccess: ({ session }) => putSession(client, session),
  })
}

/**
 * Sends a message; the client zone is sampled fresh for every send. `key` names this message to the server
 * (`Idempotency-Key`): sending it again under the same key, after an answer that was lost, enters it once.
 */
export function useSendMessage(id: string) {
  return useMutation({
    mutationFn: ({ text, mode, key }: { text: string; mode: SendMode; key: string }) =>
      apiRequest<SendMessageResponse>(sessionApiPath(id, '/messages'), {
        method: 'POST',
        body: { text, clientTimeZone: sampleBrowserZone(), mode },
        headers: { 'idempotency-key': key },
      }),
  })
}

/** Cancels the running turn. */
export function useCancelTurn(id: string) {
  return useMutation({
    mutationFn: () => apiRequest<Record<string, never>>(sessionApiPath(id, '/cancel'), { method: 'POST' }),
  })
}

function upsertSchedule(client: QueryClient, id: string, view: ScheduleView): void {
  client.setQueryData<ListSchedulesResponse>(queryKeys.schedules(id), (old) => {
    if (old === undefined) return old
    const known = old.schedules.some((s) => s.id === view.id)
    return { schedules: known ? old.schedules.map((s) => (s.id === view.id ? view : s)) : [...old.schedules, view] }
  })
}

/**
 * A reminder of `sessionId` came due (the app stream's notice). A one-off one is gone on the server, so it leaves the
 * held list now: a Session not on screen would otherwise show it as overdue when opened, until its list is fetched
 * again. A recurring one has moved to its next occurrence, which only the server knows: its list is refetched (at
 * once when on screen, else when next shown).
 */
export function settleDueSchedule(client: QueryClient, sessionId: string, scheduleId: string): void {
  const key = queryKeys.schedules(sessionId)
  const held = client.getQueryData<ListSchedulesResponse>(key)
  const schedules = held?.schedules.filter((s) => s.id !== scheduleId || (s.kind !== 'at' && s.kind !== 'after'))
  if (held !== undefined && schedules !== undefined && schedules.length < held.schedules.length) client.setQueryData<ListSchedulesResponse>(key, { schedules })
  void client.invalidateQueries({ queryKey: key, exact: true })
}

/** Deletes one reminder and refreshes the list. */
export function useDeleteSchedule(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: (scheduleId: string) =>
      apiRequest<DeleteScheduleResponse>(sessionApiPath(id, `/schedules/${encodeURIComponent(scheduleId)}`), { method: 'DELETE' }),
    onSuccess: (result) => {
      client.setQueryData<ListSchedulesResponse>(queryKeys.schedules(id), (old) =>
        old === undefined ? old : { schedules: old.schedules.filter((s) => s.id !== result.id) },
      )
    },
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.schedules(id) }),
  })
}

/** The fields of a reminder made or changed on screen (SPEC 7.9: local times always carry the zone picked). */
export type ReminderFields = {
  prompt?: string
  after_seconds?: number
  every_seconds?: number
  /** A local date and time in the zone picked, or an instant (RFC 3339). */
  at?: { date: string; time: string; time_zone: string } | string
  rrule?: string
  time_zone?: string
  starts?: string
  catch_up?: 'latest' | 'all' | 'skip'
}

/**
 * Creates a reminder without the model (`POST /schedules`). `key` names this request to the server (`Idempotency-Key`):
 * sent again under the same key, after an answer that was lost, it makes the reminder once.
 */
export function useCreateSchedule(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: ({ fields, key }: { fields: ReminderFields; key: string }) =>
      apiRequest<ScheduleResponse>(sessionApiPath(id, '/schedules'), { method: 'POST', body: fields, headers: { 'idempotency-key': key } }),
    onSuccess: ({ schedule }) => upsertSchedule(client, id, schedule),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.schedules(id) }),
  })
}

/** Changes a reminder (`PATCH /schedules/:scheduleId`), once per `key` (as a create). */
export function useUpdateSchedule(id: string) {
  const client = useQueryClient()
  return useMutation({
    mutationFn: ({ scheduleId, fields, key }: { scheduleId: string; fields: ReminderFields; key: string }) =>
      apiRequest<ScheduleResponse>(sessionApiPath(id, `/schedules/${encodeURIComponent(scheduleId)}`), {
        method: 'PATCH',
        body: fields,
        headers: { 'idempotency-key': key },
      }),
    onSuccess: ({ schedule }) => upsertSchedule(client, id, schedule),
    onSettled: () => client.invalidateQueries({ queryKey: queryKeys.schedules(id) }),
  })
}

/** How long Snooze defers a reminder (10 min). */
export const SNOOZE_FOR_SECONDS = 600

/**
 * Snoozes one occurrence of a reminder of any Session: a new one-off reminder with the same prompt, 10 minutes from now.
 * Its key is the occurrence's, so a Snooze sent again (its answer lost, or clicked in another tab, or on another device
 * while the server holds the Session) snoozes it once and answers with that one snooze.
 */
export async function snoozeSchedule(
  client: QueryClient,
  sessionId: string,
  scheduleId: string,
  occurrenceAt: string,
  seconds = SNOOZE_FOR_SECONDS,
): Promise<ScheduleView> {
  const { schedule } = await apiRequest<ScheduleResponse>(sessionApiPath(sessionId, `/schedules/${encodeURIComponent(scheduleId)}/snooze`), {
    method: 'POST',
    body: { seconds },
    headers: { 'idempotency-key': snoozeKey(scheduleId, occurrenceAt, seconds) },
  })
  upsertSchedule(client, sessionId, schedule)
  void client.invalidateQueries({ queryKey: queryKeys.schedules(sessionId) })
  return schedule
}

/** The key of a snooze of one occurrence (ids and instants are made of characters a key may hold). */
export function snoozeKey(scheduleId: string, occurrenceAt: string, seconds: number): string {
  return `snooze:${scheduleId}:${occurrenceAt}:${seconds}`
}

/** Snooze as a mutation, for buttons that show progress and errors. */
export function useSnooze() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: ({ sessionId, scheduleId, occurrenceAt }: { sessionId: string; scheduleId: string; occurrenceAt: string }) =>
      snoozeSchedule(client, sessionId, scheduleId, occurrenceAt),
  })
}
