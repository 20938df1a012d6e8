import { useMutation, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query'
import type {
  CreateSessionResponse,
  DeleteScheduleResponse,
  EventsResponse,
  GetSessionResponse,
  ListSchedulesResponse,
  ListSessionsResponse,
  SendMessageResponse,
  SessionStatus,
  SessionSummary,
} from '../../protocol/index.ts'
import { sampleBrowserZone } from '../lib/browser-zone.ts'
import { contiguousEnd, mergeEvents, type EventLog } from '../lib/event-log.ts'
import { ApiError, apiRequest, sessionApiPath } from './http.ts'
import { queryKeys } from './keys.ts'

/** How a message enters the session: next turn (`queue`) or the running turn's next step (`steer`). */
export type SendMode = 'queue' | 'steer'

/** The Session list, newest first. */
export function useSessions() {
  return useQuery({
    queryKey: queryKeys.sessions(),
    queryFn: ({ signal }) => apiRequest<ListSessionsResponse>('/api/sessions', { signal }),
    select: (data) => [...data.sessions].sort((a, b) => b.createdAt - a.createdAt),
    refetchInterval: 15_000,
  })
}

/** One Session's summary (zone, status, title). */
export function useSession(id: string) {
  return useQuery({
    queryKey: queryKeys.session(id),
    queryFn: ({ signal }) => apiRequest<GetSessionResponse>(sessionApiPath(id), { signal }),
    select: (data) => data.session,
    retry: (failures, error) => !(error instanceof ApiError && error.status === 404) && failures < 3,
  })
}

/** Fetches the events after the contiguous prefix already held and merges them into the cached log. */
export async function fetchEventLog(client: QueryClient, id: string, signal?: AbortSignal): Promise<EventLog> {
  const key = queryKeys.events(id)
  const held = client.getQueryData<EventLog>(key)
  const after = held === undefined ? -1 : contiguousEnd(held.events)
  const path = after >= 0 ? sessionApiPath(id, `/events?after=${after}`) : sessionApiPath(id, '/events')
  const response = await apiRequest<EventsResponse>(path, { signal })
  return mergeEvents(client.getQueryData<EventLog>(key), response.events, response.header)
}

/** One Session's event log; refetches are incremental and merge with events the stream already delivered. */
export function useEventLog(id: string, enabled = true) {
  return useQuery({
    queryKey: queryKeys.events(id),
    queryFn: ({ client, signal }) => fetchEventLog(client, id, signal),
    structuralSharing: false,
    staleTime: 30_000,
    enabled,
  })
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

/** Records a Session's running status (null: unchanged) and event count in the cached summary and list entry. */
export function setSessionStatus(client: QueryClient, id: string, status: SessionStatus | null, eventCount?: number): void {
  const patch = (session: SessionSummary): SessionSummary => ({
    ...session,
    status: status ?? session.status,
    eventCount: eventCount === undefined ? session.eventCount : Math.max(session.eventCount, eventCount),
  })
  client.setQueryData<GetSessionResponse>(queryKeys.session(id), (old) => (old === undefined ? old : { session: patch(old.session) }))
  client.setQueryData<ListSessionsResponse>(queryKeys.sessions(), (old) =>
    old === undefined ? old : { ...old, sessions: old.sessions.map((s) => (s.id === id ? patch(s) : s)) },
  )
}

/** Creates a Session in this browser's zone, sampled when the person asks. */
export function useCreateSession() {
  const client = useQueryClient()
  return useMutation({
    mutationFn: () =>
      apiRequest<CreateSessionResponse>('/api/sessions', { method: 'POST', body: { timeZone: sampleBrowserZone() } }),
    onSuccess: ({ session }) => {
      client.setQueryData<GetSessionResponse>(queryKeys.session(session.id), { session })
      client.setQueryData<ListSessionsResponse>(queryKeys.sessions(), (old) =>
        old === undefined ? old : { ...old, sessions: [session, ...old.sessions.filter((s) => s.id !== session.id)] },
      )
      void client.invalidateQueries({ queryKey: queryKeys.sessions() })
    },
  })
}

/** Sends a message; the client zone is sampled fresh for every send. */
export function useSendMessage(id: string) {
  return useMutation({
    mutationFn: ({ text, mode }: { text: string; mode: SendMode }) =>
      apiRequest<SendMessageResponse>(sessionApiPath(id, '/messages'), {
        method: 'POST',
        body: { text, clientTimeZone: sampleBrowserZone(), mode },
      }),
  })
}

/** Cancels the running turn. */
export function useCancelTurn(id: string) {
  return useMutation({
    mutationFn: () => apiRequest<Record<string, never>>(sessionApiPath(id, '/cancel'), { method: 'POST' }),
  })
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
