import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { GetSessionResponse, SessionEvent, SessionStatus } from '../../protocol/index.ts'
import { contiguousEnd, hasGap, lastSeq, mergeEvents, type EventLog } from '../lib/event-log.ts'
import { withAccessToken } from './auth.ts'
import { sessionApiPath } from './http.ts'
import { queryKeys } from './keys.ts'
import { setSessionStatus } from './queries.ts'

/** The state of a Session's live stream. */
export type StreamState = 'connecting' | 'live' | 'reconnecting'

type Incoming = { kind: 'event'; event: SessionEvent } | { kind: 'status'; status: SessionStatus }

const FLUSH_MS = 16
const DEFER_MS = 100
const MAX_RETRY_MS = 30_000

function parseEvent(data: string): SessionEvent | null {
  try {
    const value: unknown = JSON.parse(data)
    if (typeof value !== 'object' || value === null) return null
    const v = value as Record<string, unknown>
    return typeof v.seq === 'number' && typeof v.type === 'string' && typeof v.time === 'number' ? (value as SessionEvent) : null
  } catch {
    return null
  }
}

function parseStatus(data: string): SessionStatus | null {
  try {
    const value: unknown = JSON.parse(data)
    if (typeof value !== 'object' || value === null) return null
    const status = (value as Record<string, unknown>).status
    return status === 'idle' || status === 'running' ? status : null
  } catch {
    return null
  }
}

/** Streams a Session's events into the query cache (deduplicated by seq), tracks running status and resumes after drops. */
export function useSessionStream(id: string, enabled: boolean): StreamState {
  const client = useQueryClient()
  const [state, setState] = useState<StreamState>('connecting')

  useEffect(() => {
    if (!enabled) return
    const eventsKey = queryKeys.events(id)
    let source: EventSource | null = null
    let closed = false
    let attempt = 0
    let retryTimer: ReturnType<typeof setTimeout> | undefined
    let flushTimer: ReturnType<typeof setTimeout> | undefined
    let queue: Incoming[] = []

    const catchUp = (cancelRefetch: boolean) => {
      void client.refetchQueries({ queryKey: eventsKey, exact: true }, { cancelRefetch })
    }

    const flush = () => {
      flushTimer = undefined
      const batch = queue
      queue = []
      const events: SessionEvent[] = []
      let status: SessionStatus | null = null
      let schedulesChanged = false
      for (const item of batch) {
        if (item.kind === 'status') {
          status = item.status
          continue
        }
        events.push(item.event)
        if (item.event.type === 'schedule/change') schedulesChanged = true
      }
      let merged: EventLog | undefined
      if (events.length > 0) {
        const held = client.getQueryData<EventLog>(eventsKey)
        if (held === undefined) {
          if (client.getQueryState(eventsKey)?.status !== 'error') {
            queue = events.map((event): Incoming => ({ kind: 'event', event })).concat(queue)
            if (flushTimer === undefined) flushTimer = setTimeout(flush, DEFER_MS)
          }
        } else {
          merged = mergeEvents(held, events)
          if (merged !== held) client.setQueryData<EventLog>(eventsKey, merged)
          if (hasGap(merged.events) && client.isFetching({ queryKey: eventsKey, exact: true }) === 0) catchUp(false)
        }
      }
      if (status !== null || merged !== undefined) {
        const eventCount = merged === undefined ? undefined : lastSeq(merged.events) + 1
        setSessionStatus(client, id, status, eventCount)
      }
      if (schedulesChanged) void client.invalidateQueries({ queryKey: queryKeys.schedules(id) })
      const untitled = client.getQueryData<GetSessionResponse>(queryKeys.session(id))?.session.title === undefined
      if (untitled && events.some((e) => e.type === 'user/message' && e.data.source.kind === 'user')) {
        void client.invalidateQueries({ queryKey: queryKeys.session(id) })
        void client.invalidateQueries({ queryKey: queryKeys.sessions() })
      }
    }

    const enqueue = (item: Incoming) => {
      queue.push(item)
      if (flushTimer === undefined) flushTimer = setTimeout(flush, FLUSH_MS)
    }

    const connect = () => {
      if (closed) return
      const held = client.getQueryData<EventLog>(eventsKey)
      const after = held === undefined ? -1 : contiguousEnd(held.events)
      const es = new EventSource(withAccessToken(sessionApiPath(id, after >= 0 ? `/stream?after=${after}` : '/stream')))
      source = es
      es.addEventListener('open', () => {
        attempt = 0
        setState('live')
        catchUp(client.getQueryData<EventLog>(eventsKey) !== undefined)
        void client.invalidateQueries({ queryKey: queryKeys.session(id) })
        void client.invalidateQueries({ queryKey: queryKeys.schedules(id) })
      })
      es.addEventListener('session-event', (message: MessageEvent<string>) => {
        const event = parseEvent(message.data)
        if (event !== null) enqueue({ kind: 'event', event })
      })
      es.addEventListener('status', (message: MessageEvent<string>) => {
        const status = parseStatus(message.data)
        if (status !== null) enqueue({ kind: 'status', status })
      })
      es.addEventListener('error', () => {
        if (closed) return
        setState('reconnecting')
        if (es.readyState !== EventSource.CLOSED) return
        es.close()
        const delay = Math.min(MAX_RETRY_MS, 1000 * 2 ** attempt)
        attempt += 1
        retryTimer = setTimeout(connect, delay)
      })
    }

    setState('connecting')
    connect()
    return () => {
      closed = true
      source?.close()
      if (retryTimer !== undefined) clearTimeout(retryTimer)
      if (flushTimer !== undefined) clearTimeout(flushTimer)
      queue = []
    }
  }, [client, id, enabled])

  return state
}
