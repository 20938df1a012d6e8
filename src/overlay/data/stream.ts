import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import type { SessionEvent, SessionStatus, StatusEventPayload } from '../../protocol/index.ts'
import { parseJsonObject } from '../lib/json-object.ts'
import type { SseMessage } from '../lib/sse-parser.ts'
import { appendToLog, type SessionLog } from '../lib/session-log.ts'
import { reportReachable } from './connectivity.ts'
import { sessionApiPath } from './http.ts'
import { queryKeys } from './keys.ts'
import { setSessionStatus } from './queries.ts'
import { openSse } from './sse-client.ts'
import { addDelta, endStreaming, settleStreaming } from './streaming-text.ts'

/** The state of a Session's live stream. */
export type StreamState = 'connecting' | 'live' | 'reconnecting'

const FLUSH_MS = 16

function asEvent(value: Record<string, unknown> | null): SessionEvent | null {
  return value !== null && typeof value.seq === 'number' && typeof value.type === 'string' && typeof value.time === 'number'
    ? (value as unknown as SessionEvent)
    : null
}

function asStatus(value: Record<string, unknown> | null): StatusEventPayload | null {
  return value?.status === 'idle' || value?.status === 'running' ? { status: value.status } : null
}

/**
 * Streams a Session's events into its log window, opened at the window's last seq (never replaying the log), resuming
 * from it after drops; tracks running status and the model's streaming text. Needs the window fetched first.
 */
export function useSessionStream(id: string, enabled: boolean): StreamState {
  const client = useQueryClient()
  const [state, setState] = useState<StreamState>('connecting')

  useEffect(() => {
    if (!enabled) return
    const key = queryKeys.events(id)
    let queue: SessionEvent[] = []
    let status: SessionStatus | null = null
    let flushTimer: ReturnType<typeof setTimeout> | undefined

    const catchUp = () => {
      if (client.isFetching({ queryKey: key, exact: true }) === 0) void client.refetchQueries({ queryKey: key, exact: true })
    }

    const flush = () => {
      flushTimer = undefined
      const events = queue
      queue = []
      const held = client.getQueryData<SessionLog>(key)
      if (events.length > 0 && held !== undefined) {
        const { log, added, gap } = appendToLog(held, events)
        if (log !== held) client.setQueryData<SessionLog>(key, log)
        if (gap) catchUp()
        let schedules = false
        let summary = false
        for (const event of added) {
          if (event.type === 'assistant/message') settleStreaming(id, event.data.turn, event.data.step)
          else if (event.type === 'turn/end') endStreaming(id, event.data.turn, event.data.reason === 'aborted' || event.data.reason === 'error')
          else if (event.type === 'schedule/change') schedules = true
          else if (event.type === 'session/title' || (event.type === 'user/message' && event.data.source.kind === 'user')) summary = true
        }
        if (schedules) void client.invalidateQueries({ queryKey: queryKeys.schedules(id) })
        if (summary) void client.invalidateQueries({ queryKey: queryKeys.session(id) })
      }
      if (status === 'idle') settleStreaming(id, null)
      if (status !== null) setSessionStatus(client, id, status)
      status = null
    }

    const schedule = () => {
      if (flushTimer === undefined) flushTimer = setTimeout(flush, FLUSH_MS)
    }

    const onMessage = (message: SseMessage) => {
      switch (message.event) {
        case 'session-event': {
          const event = asEvent(parseJsonObject(message.data))
          if (event !== null) {
            queue.push(event)
            schedule()
          }
          break
        }
        case 'status': {
          const next = asStatus(parseJsonObject(message.data))
          if (next !== null) {
            status = next.status
            schedule()
          }
          break
        }
        case 'assistant-delta': {
          const delta = parseJsonObject(message.data)
          if (delta !== null && typeof delta.turn === 'number' && typeof delta.step === 'number' && typeof delta.text === 'string') {
            addDelta(id, { turn: delta.turn, step: delta.step, text: delta.text })
          }
          break
        }
        default:
          break
      }
    }

    let opened = false
    const close = openSse(
      {
        url: () => {
          const held = client.getQueryData<SessionLog>(key)
          return sessionApiPath(id, `/stream?after=${held === undefined ? -1 : held.lastSeq}`)
        },
        resumeWithLastEventId: false,
      },
      {
        onOpen: () => {
          // the server sends the text streamed so far of an answer being generated: it replaces what was shown
          settleStreaming(id, null)
          setState('live')
          if (opened) {
            void client.invalidateQueries({ queryKey: queryKeys.session(id) })
            void client.invalidateQueries({ queryKey: queryKeys.schedules(id) })
          }
          opened = true
        },
        onMessage,
        onReachable: (reachable) => {
          reportReachable(reachable)
          if (!reachable) setState('reconnecting')
        },
        onHttpError: () => setState('reconnecting'),
      },
    )
    setState('connecting')
    return () => {
      close()
      clearTimeout(flushTimer)
      settleStreaming(id, null)
    }
  }, [client, id, enabled])

  return state
}
